package aws

import (
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
)

// TestBedrockThroughSigner: the README's client — the Bedrock dialect, a
// Signer over airlock's transport — streams a tool call from the Bedrock
// wire, every request signed for its region, no bearer key sent.
func TestBedrockThroughSigner(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{
		Text: "Reading it.", ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}}))
	tr := transport.New()
	defer tr.CloseIdleConnections()
	client := llmstream.NewClient(
		llmstream.WithDialect(llmstream.DialectBedrock),
		llmstream.WithBaseURL(srv.URL),
		llmstream.WithModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		llmstream.WithHTTPClient(New("us-west-2", staticCreds, tr)),
	)
	m, err := client.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "module?"}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "Reading it." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"path":"go.mod"}` {
		t.Errorf("message %+v", m)
	}
	req := srv.Requests()[0]
	if auth := req.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") || !strings.Contains(auth, "/us-west-2/bedrock/aws4_request") {
		t.Errorf("Authorization %q, want a SigV4 signature for us-west-2", auth)
	}
	if !strings.HasSuffix(req.Path, "/converse-stream") {
		t.Errorf("path %q, want Bedrock's converse-stream", req.Path)
	}
}
