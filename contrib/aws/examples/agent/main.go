// Command agent is airlock's demo coding agent (examples/agent) speaking to
// Amazon Bedrock with AWS Signature Version 4, from the standard AWS
// credential chain (environment, ~/.aws/config and credentials, SSO, web
// identity, container and instance roles) instead of a Bedrock API key:
//
//	cd contrib/aws && go run ./examples/agent --dialect bedrock --model us.anthropic.claude-sonnet-4-5-20250929-v1:0
//
// It is the demo with --sigv4: a separate program because airlock's core
// module, where the demo lives, takes no AWS library. Every request of a
// real model is signed for the region of AWS_REGION (us-east-1 when
// unset), the region whose endpoint the demo calls. Offline (no
// --base-url, --api-key, --model) nothing is signed. Every other flag is
// the demo's: -h lists them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/airlock-go/airlock/contrib/aws"
	"github.com/airlock-go/airlock/examples/agent/agentcli"
	"github.com/airlock-go/airlock/llmstream"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// As examples/agent: the first Ctrl-C cancels (or pauses at a
	// question), a second one kills.
	context.AfterFunc(ctx, stop)
	code := agentcli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ(),
		agentcli.WithCommand(agentcli.Invocation(os.Args[0], "go run ./examples/agent")),
		agentcli.WithDoer(sigv4(os.Getenv("AWS_REGION"))))
	stop()
	os.Exit(code)
}

// sigv4 wraps the demo's transport in a Signer over the default credential
// chain, for region (us-east-1 when empty, as the demo's Bedrock URL).
func sigv4(region string) func(ctx context.Context, next llmstream.Doer) (llmstream.Doer, error) {
	if region == "" {
		region = "us-east-1"
	}
	return func(ctx context.Context, next llmstream.Doer) (llmstream.Doer, error) {
		return aws.NewDefault(ctx, region, next)
	}
}
