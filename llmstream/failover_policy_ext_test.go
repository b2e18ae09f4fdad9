package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
)

// scripted is a Streamer that answers from a list, one entry per call,
// and counts its calls.
type scripted struct {
	answers []func(ctx context.Context, r llmstream.Request) (llmstream.Message, error)
	calls   int
	reqs    []llmstream.Request
}

func (s *scripted) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	s.calls++
	s.reqs = append(s.reqs, r)
	if s.calls > len(s.answers) {
		return llmstream.Message{}, errors.New("scripted: no answer left")
	}
	return s.answers[s.calls-1](ctx, r)
}

func fails(err error) func(context.Context, llmstream.Request) (llmstream.Message, error) {
	return func(context.Context, llmstream.Request) (llmstream.Message, error) { return llmstream.Message{}, err }
}

func answers(text string) func(context.Context, llmstream.Request) (llmstream.Message, error) {
	return func(context.Context, llmstream.Request) (llmstream.Message, error) {
		return llmstream.Message{Role: "assistant", Content: text}, nil
	}
}

func apiError(kind llmstream.ErrorKind, status int) error {
	return &llmstream.APIError{Kind: kind, StatusCode: status, Message: kind.String()}
}

// TestFailoverMovesOn checks which failures move on to the next model
// and which are returned at once, each against two models: the first
// failing, the second answering.
func TestFailoverMovesOn(t *testing.T) {
	tests := []struct {
		name string
		err  error
		move bool
	}{
		{"truncated", llmstream.ErrTruncated, true},
		{"interrupted", fmt.Errorf("cut: %w", llmstream.ErrInterrupted), true},
		{"overloaded in stream", apiError(llmstream.ErrorOverloaded, 0), true},
		{"rate limited in stream", apiError(llmstream.ErrorRateLimited, 0), true},
		{"server error in stream", apiError(llmstream.ErrorServer, 0), true},
		{"429", apiError(llmstream.ErrorRateLimited, 429), true},
		{"503", apiError(llmstream.ErrorOverloaded, 503), true},
		{"500", apiError(llmstream.ErrorServer, 500), true},
		{"proxy 502 page", &transport.StatusError{StatusCode: 502, Header: http.Header{}}, true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"transport timeout", fmt.Errorf("slow: %w", transport.ErrTimeout), true},
		{"idle timeout before the answer", fmt.Errorf("silent: %w", llmstream.ErrIdleTimeout), true},
		{"invalid request", apiError(llmstream.ErrorInvalidRequest, 400), false},
		{"authentication", apiError(llmstream.ErrorAuthentication, 401), false},
		{"permission", apiError(llmstream.ErrorPermission, 403), false},
		{"content policy", apiError(llmstream.ErrorContentFiltered, 400), false},
		{"context length", apiError(llmstream.ErrorContextLength, 400), false},
		{"not found", apiError(llmstream.ErrorNotFound, 404), false},
		{"x-should-retry false", &llmstream.APIError{Kind: llmstream.ErrorServer, StatusCode: 500,
			Err: &transport.StatusError{StatusCode: 500, Header: http.Header{"X-Should-Retry": {"false"}}}}, false},
		{"caller canceled", context.Canceled, false},
		{"caller deadline", context.DeadlineExceeded, false},
		{"aborted by callback", llmstream.ErrAborted, false},
		{"bad event", llmstream.ErrBadEvent, false},
		{"proxy 400 page", &transport.StatusError{StatusCode: 400, Header: http.Header{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){fails(tt.err), fails(tt.err)}}
			second := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){answers("ok")}}
			f := &llmstream.Failover{Models: []llmstream.Streamer{first, second}, Backoff: -1}
			m, err := f.Stream(context.Background(), llmstream.Request{})
			if tt.move {
				if err != nil || m.Content != "ok" || first.calls != 2 || second.calls != 1 {
					t.Fatalf("Stream = %q, %v after %d+%d calls; want the second model's answer after 2+1", m.Content, err, first.calls, second.calls)
				}
				return
			}
			if !errors.Is(err, tt.err) || first.calls != 1 || second.calls != 0 {
				t.Fatalf("Stream err = %v after %d+%d calls; want %v at once", err, first.calls, second.calls, tt.err)
			}
		})
	}
}

// TestFailoverBounded checks the attempt count at its edges: Attempts
// per model, negative meaning once, and no more than that on failures
// that would move on for ever.
func TestFailoverBounded(t *testing.T) {
	for _, tt := range []struct {
		attempts, models, want int
	}{{0, 1, 2}, {-1, 1, 1}, {1, 1, 1}, {3, 1, 3}, {2, 3, 6}, {-5, 3, 3}} {
		t.Run(fmt.Sprintf("attempts=%d models=%d", tt.attempts, tt.models), func(t *testing.T) {
			calls := 0
			m := streamerFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
				calls++
				return llmstream.Message{}, llmstream.ErrTruncated
			})
			f := &llmstream.Failover{Attempts: tt.attempts, Backoff: -1}
			for range tt.models {
				f.Models = append(f.Models, m)
			}
			var seen []llmstream.Attempt
			f.OnAttempt = func(_ context.Context, a llmstream.Attempt) { seen = append(seen, a) }
			_, err := f.Stream(context.Background(), llmstream.Request{})
			if !errors.Is(err, llmstream.ErrTruncated) || calls != tt.want {
				t.Fatalf("err %v after %d calls, want ErrTruncated after %d", err, calls, tt.want)
			}
			if len(seen) != tt.want || seen[len(seen)-1].Next != llmstream.AttemptGiveUp {
				t.Fatalf("attempts reported %+v, want %d ending in give_up", seen, tt.want)
			}
		})
	}
	if _, err := (&llmstream.Failover{}).Stream(context.Background(), llmstream.Request{}); !errors.Is(err, llmstream.ErrMisuse) {
		t.Fatalf("no models: err %v, want ErrMisuse", err)
	}
}

type streamerFunc func(context.Context, llmstream.Request) (llmstream.Message, error)

func (f streamerFunc) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	return f(ctx, r)
}

// TestFailoverCallerContext cancels the caller's context at every step:
// before the call, during an attempt, during the wait between attempts.
// No attempt may start after it ended, and the context's error is
// returned.
func TestFailoverCallerContext(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &scripted{}
		_, err := (&llmstream.Failover{Models: []llmstream.Streamer{s}}).Stream(ctx, llmstream.Request{})
		if !errors.Is(err, context.Canceled) || s.calls != 0 {
			t.Fatalf("err %v after %d calls, want Canceled after none", err, s.calls)
		}
	})
	for _, step := range []int{1, 2} {
		t.Run(fmt.Sprintf("during attempt %d", step), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			m := streamerFunc(func(ctx context.Context, _ llmstream.Request) (llmstream.Message, error) {
				calls++
				if calls == step {
					cancel()
					return llmstream.Message{}, fmt.Errorf("stream: %w", context.Canceled)
				}
				return llmstream.Message{}, llmstream.ErrTruncated
			})
			f := &llmstream.Failover{Models: []llmstream.Streamer{m, m}, Attempts: 3, Backoff: -1}
			_, err := f.Stream(ctx, llmstream.Request{})
			if !errors.Is(err, context.Canceled) || calls != step {
				t.Fatalf("err %v after %d calls, want Canceled after %d", err, calls, step)
			}
		})
	}
	t.Run("deadline during the wait", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		s := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){fails(llmstream.ErrTruncated), answers("late")}}
		start := time.Now()
		_, err := (&llmstream.Failover{Models: []llmstream.Streamer{s}, Backoff: time.Hour, MaxWait: -1}).Stream(ctx, llmstream.Request{})
		if !errors.Is(err, context.DeadlineExceeded) || s.calls != 1 || time.Since(start) > 5*time.Second {
			t.Fatalf("err %v after %d calls, want DeadlineExceeded after 1, at once", err, s.calls)
		}
	})
}

// TestFailoverRetryAfter checks that a server's wait is honoured, and
// that one over MaxWait moves on to the next model at once.
func TestFailoverRetryAfter(t *testing.T) {
	limited := func(after string) error {
		return &llmstream.APIError{Kind: llmstream.ErrorRateLimited, StatusCode: 429,
			Err: &transport.StatusError{StatusCode: 429, Header: http.Header{"Retry-After": {after}}}}
	}
	var waits []time.Duration
	record := func(_ context.Context, a llmstream.Attempt) { waits = append(waits, a.Wait) }
	first := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){fails(limited("0")), fails(limited("3600"))}}
	second := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){answers("ok")}}
	f := &llmstream.Failover{Models: []llmstream.Streamer{first, second}, Attempts: 3, Backoff: time.Hour, OnAttempt: record}
	m, err := f.Stream(context.Background(), llmstream.Request{})
	if err != nil || m.Content != "ok" || first.calls != 2 || second.calls != 1 {
		t.Fatalf("Stream = %q, %v after %d+%d calls; want ok after 2+1", m.Content, err, first.calls, second.calls)
	}
	if len(waits) != 3 || waits[0] != 0 || waits[1] != 0 {
		t.Fatalf("waits %v, want Retry-After 0 honoured and the hour-long one skipped", waits)
	}
}

// TestFailoverUsage checks the accounting: every attempt's usage summed,
// the wasted one's included, and the answering model reported.
func TestFailoverUsage(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "alpha beta gamma", Usage: &llmstream.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}}
	broken := streamerFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
		return llmstream.Message{Role: "assistant", Content: "alpha", Reasoning: "r", Usage: &llmstream.Usage{PromptTokens: 7, CompletionTokens: 1, TotalTokens: 8}},
			apiError(llmstream.ErrorOverloaded, 0)
	})
	good := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn)))
	var last llmstream.Attempt
	f := &llmstream.Failover{
		Models: []llmstream.Streamer{
			broken,
			failoverClient(good, llmstream.DialectAnthropic, "claude-b"),
		},
		Attempts: 1, Backoff: -1,
		OnAttempt: func(_ context.Context, a llmstream.Attempt) { last = a },
	}
	m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Usage == nil || m.Usage.PromptTokens != 14 || m.Usage.CompletionTokens != 4 || m.Usage.TotalTokens != 18 {
		t.Fatalf("usage %+v, want both attempts' (14 in, 4 out, 18 in all)", m.Usage)
	}
	if last.Next != llmstream.AttemptAnswered || last.Model != 1 || last.Name != "claude-b" || last.Dialect != llmstream.DialectAnthropic {
		t.Fatalf("last attempt %+v, want claude-b (anthropic) answering", last)
	}
}

// TestFailoverPrefillRefused checks a model that refuses a prefill: the
// continuation's 400 is followed by a restart on the same model, which
// is not counted as an attempt, and the seam voids what was shown.
func TestFailoverPrefillRefused(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "alpha beta gamma delta"}
	n := 0
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		n++
		switch {
		case n == 1:
			return llmstreamtest.Turn{Text: turn.Text, Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5}}
		case r.Messages[len(r.Messages)-1].Role == "assistant":
			return llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400, Type: "invalid_request_error",
				Message: "This model does not support assistant message prefill. The conversation must end with a user message."}}
		}
		return turn
	}))
	var view seamView
	var seen []llmstream.Attempt
	f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-new")}, Backoff: -1,
		OnAttempt: func(_ context.Context, a llmstream.Attempt) { seen = append(seen, a) }}
	m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "say"}}, OnDelta: view.apply})
	if err != nil || m.Content != turn.Text || view.text != turn.Text {
		t.Fatalf("Stream = %q, %v, deltas %q; want the turn", m.Content, err, view.text)
	}
	var next []llmstream.AttemptNext
	for _, a := range seen {
		next = append(next, a.Next)
	}
	want := []llmstream.AttemptNext{llmstream.AttemptContinue, llmstream.AttemptRestart, llmstream.AttemptAnswered}
	if fmt.Sprint(next) != fmt.Sprint(want) || fmt.Sprint(view.seams) != "[resume restart]" {
		t.Fatalf("attempts %v seams %v, want %v and [resume restart]", next, view.seams, want)
	}
}
