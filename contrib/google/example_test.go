package google_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/contrib/google"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// Gemini on Vertex AI with Application Default Credentials (gcloud auth
// application-default login, GOOGLE_APPLICATION_CREDENTIALS, the metadata
// server). The Doer adds the token, then sends through airlock's
// transport, so the stream keeps its timeouts, stall detection and
// retries. It needs Google credentials, so it has no output to check;
// TestVertexThroughDoer streams the same client from llmstreamtest.
func ExampleNewDefault() {
	ctx := context.Background()
	// readme:begin vertex
	d, err := google.NewDefault(ctx, transport.New())
	if err != nil {
		fmt.Println(err) // no Application Default Credentials found
		return
	}
	client := llmstream.NewClient(
		llmstream.WithDialect(llmstream.DialectGemini), // DialectAnthropic for Claude on Vertex
		llmstream.WithVertex("my-project", "us-central1"),
		llmstream.WithModel("gemini-2.5-flash"),
		llmstream.WithHTTPClient(d), // no WithAPIKey: the Doer adds the OAuth token
	)
	// readme:end

	_ = client
}
