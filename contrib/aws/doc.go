// Package aws signs airlock's requests to Amazon Bedrock with AWS
// Signature Version 4, from the AWS default credential chain or the
// credentials you give.
//
//	signer, err := aws.NewDefault(ctx, "us-east-1", transport.New())
//	client := llmstream.NewClient(
//		llmstream.WithDialect(llmstream.DialectBedrock),
//		llmstream.WithBaseURL(llmstream.BedrockBaseURL("us-east-1")),
//		llmstream.WithModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
//		llmstream.WithHTTPClient(signer))
//
// Wrap airlock's transport (transport.New), not http.DefaultClient, which
// has no timeout, stall detection or size cap.
//
// A [Signer] is an [llmstream.Doer]: it reads the request body (bounded,
// see [WithMaxBodyBytes]), hashes it, signs the request with
// aws-sdk-go-v2's v4 signer for the service "bedrock", and hands it to the
// Doer it wraps. No credential — the Authorization header, its signature,
// the session token, the secret key — appears in any error it returns.
//
// It is its own module, so that airlock's core module needs no AWS
// library.
package aws
