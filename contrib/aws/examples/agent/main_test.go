package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/examples/agent/agentcli"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSignedDemo: with AWS credentials in the environment, the demo's
// Bedrock requests arrive signed with SigV4 for the region, and the turn
// streams back over the Bedrock wire.
func TestSignedDemo(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "Signed and streamed."}))
	var stdout, stderr bytes.Buffer
	code := agentcli.Run(context.Background(),
		[]string{"--workspace", t.TempDir(), "--dialect", "bedrock", "--base-url", srv.URL, "--model", "m1", "-e", "hi"},
		strings.NewReader(""), &stdout, &stderr, nil, agentcli.WithDoer(sigv4("eu-west-3")))
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	reqs := srv.Requests()
	auth := reqs[0].Header.Get("Authorization")
	if len(reqs) != 1 || reqs[0].Dialect != llmstream.DialectBedrock || !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(auth, "/eu-west-3/bedrock/aws4_request") {
		t.Errorf("%d requests, Authorization %q; want one Bedrock request signed for eu-west-3", len(reqs), auth)
	}
	if !strings.Contains(stdout.String(), "Signed and streamed.") {
		t.Errorf("output:\n%s", stdout.String())
	}
}
