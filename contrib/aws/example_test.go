package aws_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/contrib/aws"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// Bedrock with SigV4 from the standard AWS credential chain (environment,
// ~/.aws files, SSO, web identity, container and instance roles). The
// Signer signs, then sends through airlock's transport, so the stream
// keeps its timeouts, stall detection and retries. It needs AWS
// credentials, so it has no output to check; TestBedrockThroughSigner
// streams the same client from llmstreamtest.
func ExampleNewDefault() {
	ctx := context.Background()
	// readme:begin sigv4
	region := "us-east-1" // the endpoint's region is the signature's
	signer, err := aws.NewDefault(ctx, region, transport.New())
	if err != nil {
		fmt.Println(err) // no configuration could be loaded
		return
	}
	client := llmstream.NewClient(
		llmstream.WithDialect(llmstream.DialectBedrock),
		llmstream.WithBaseURL(llmstream.BedrockBaseURL(region)),
		llmstream.WithModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		llmstream.WithHTTPClient(signer), // no WithAPIKey: the signature is the credential
	)
	// readme:end

	_ = client
}
