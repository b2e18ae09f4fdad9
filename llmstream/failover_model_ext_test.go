package llmstream_test

import (
	"context"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestFailoverModel: the final Message's Model is the answering attempt's,
// the name its stream gave: the first model's when it answered at once,
// the second's when the first was cut and the second continued or
// restarted the answer (the second wrote its end).
func TestFailoverModel(t *testing.T) {
	cut := llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5}
	tests := []struct {
		name      string
		dialect   llmstream.Dialect
		fault     llmstreamtest.Fault
		want      string
		continued bool
	}{
		{"clean first attempt", llmstream.DialectAnthropic, llmstreamtest.Fault{}, "a-2025", false},
		{"cut and continued", llmstream.DialectAnthropic, cut, "b-2025", true},
		{"cut and restarted", llmstream.DialectChat, cut, "b-2025", false},
		{"overloaded and restarted", llmstream.DialectResponses, llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 5, Type: "server_error"}, "b-2025", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := llmstreamtest.Turn{Text: "alpha beta gamma delta"}
			ta, tb := turn, turn
			ta.Model, tb.Model = "a-2025", "b-2025"
			a := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(ta, tt.fault)))
			b := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(tb))) // continues a prefill
			var next []llmstream.AttemptNext
			f := &llmstream.Failover{
				Models:    []llmstream.Streamer{failoverClient(a, tt.dialect, "a"), failoverClient(b, tt.dialect, "b")},
				Attempts:  -1,
				OnAttempt: func(_ context.Context, at llmstream.Attempt) { next = append(next, at.Next) },
			}
			m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "say"}}})
			if err != nil || m.Content != turn.Text || m.Model != tt.want {
				t.Fatalf("Stream = %q, model %q, %v; want %q from %q", m.Content, m.Model, err, turn.Text, tt.want)
			}
			if continued := len(next) == 2 && next[0] == llmstream.AttemptContinue; continued != tt.continued {
				t.Fatalf("attempts ended %v, want continued %v", next, tt.continued)
			}
		})
	}
}

// TestFailoverModelCustomStreamer: an answering Streamer whose Message
// names no model gives the attempt's name (the request's model, as
// Attempt.Name has it; none when the request names none), and one that
// names its own keeps it.
func TestFailoverModelCustomStreamer(t *testing.T) {
	cut := llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5}
	for _, tt := range []struct {
		name, asked, own, want string
	}{
		{"names none, asked", "asked-m", "", "asked-m"},
		{"names none, asked none", "", "", ""},
		{"names its own", "asked-m", "own-m", "own-m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(llmstreamtest.Turn{Text: "alpha beta", Model: "a-2025"}, cut)))
			custom := streamerFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
				return llmstream.Message{Role: "assistant", Content: "gamma", Model: tt.own}, nil
			})
			var names []string
			f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(a, llmstream.DialectChat, "a"), custom}, Attempts: -1,
				OnAttempt: func(_ context.Context, at llmstream.Attempt) { names = append(names, at.Name) }}
			m, err := f.Stream(context.Background(), llmstream.Request{Model: tt.asked, Messages: []llmstream.Message{{Role: "user", Content: "say"}}})
			if err != nil || m.Content != "gamma" || m.Model != tt.want {
				t.Fatalf("Stream = %q, model %q, %v; want %q", m.Content, m.Model, err, tt.want)
			}
			if len(names) != 2 || names[1] != tt.asked {
				t.Fatalf("attempt names %q, want the second %q", names, tt.asked)
			}
		})
	}
}
