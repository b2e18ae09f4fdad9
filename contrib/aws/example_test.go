package aws_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/airlock-go/airlock/contrib/aws"
	"github.com/airlock-go/airlock/llmstream"
)

// Bedrock with SigV4 from the default credential chain (environment, shared
// files, SSO, instance roles). It needs AWS credentials, so it has no
// output to check.
func ExampleNewDefault() {
	ctx := context.Background()
	signer, err := aws.NewDefault(ctx, "us-east-1", http.DefaultClient)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Once llmstream has its Bedrock dialect, add llmstream.WithDialect.
	client := llmstream.NewClient(
		llmstream.WithBaseURL("https://bedrock-runtime.us-east-1.amazonaws.com"),
		llmstream.WithHTTPClient(signer))
	_ = client
}
