package llmstream_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// A Failover over two models: the first (chat) cuts its stream after a
// few words, both times it is tried; chat cannot continue a turn, so its
// second attempt starts over (the display is told to clear). The second
// model (Anthropic) continues the text where the second cut left it: the
// display keeps what it shows and the caller gets one message.
func ExampleFailover() {
	turn := llmstreamtest.Turn{Text: "Streams break; this one went on."}
	cut := llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 3}
	primary := llmstreamtest.NewServer(llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, cut, cut)))
	defer primary.Close()
	fallback := llmstreamtest.NewServer(llmstreamtest.WithResponder(llmstreamtest.Attempts(turn)))
	defer fallback.Close()

	f := &llmstream.Failover{
		Models: []llmstream.Streamer{
			llmstream.NewClient(append(primary.ClientOptions(), llmstream.WithModel("gpt-4o"))...),
			llmstream.NewClient(append(fallback.ClientOptions(), llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithModel("claude-sonnet-4-5"))...),
		},
		Backoff: -1, // no wait between the offline attempts
		OnAttempt: func(_ context.Context, a llmstream.Attempt) {
			fmt.Printf("\n[attempt %d on %s: %v]\n", a.Number, a.Name, a.Next)
		},
	}
	msg, err := f.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "Say something."}},
		OnDelta: func(d llmstream.Delta) error {
			switch d.Kind {
			case llmstream.DeltaText:
				fmt.Print(d.Text)
			case llmstream.DeltaRestart:
				fmt.Print(" [restart]")
			case llmstream.DeltaResume:
				fmt.Print(" [resume]")
			}
			return nil
		},
	})
	fmt.Printf("\n%q by %s, %v\n", msg.Content, msg.Model, err)
	// Output:
	// Streams break;  [restart]
	// [attempt 1 on gpt-4o: restart]
	// Streams break;  [resume]
	// [attempt 2 on gpt-4o: continue]
	// this one went on.
	// [attempt 3 on claude-sonnet-4-5: answered]
	//
	// "Streams break; this one went on." by claude-sonnet-4-5, <nil>
}
