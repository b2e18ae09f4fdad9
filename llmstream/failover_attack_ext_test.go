package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestFailoverCutTwice cuts the first attempt at every event and the
// continuation at every event too (three attempts): however often the
// text is spliced, the message is the clean one and the deltas with
// their seams apply to it; no prefill ends in whitespace.
func TestFailoverCutTwice(t *testing.T) {
	turn := sweepTurn(false)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn)))
	clean, err := failoverClient(srv, llmstream.DialectAnthropic, "claude-test").Stream(context.Background(),
		llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is the answer?"}}})
	if err != nil {
		t.Fatal(err)
	}
	twice := 0
	for a := 0; a <= 16; a += sweepStride {
		for b := 0; b <= 10; b += sweepStride {
			cut := func(n int) llmstreamtest.Fault { return llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: n} }
			srv := llmstreamtest.NewServer(llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, cut(a), cut(b))))
			var view seamView
			continued := 0
			f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-test")}, Attempts: 3, Backoff: -1,
				OnAttempt: func(_ context.Context, at llmstream.Attempt) {
					if at.Next == llmstream.AttemptContinue {
						continued++
					}
				}}
			m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is the answer?"}}, OnDelta: view.apply})
			reqs := srv.Requests()
			srv.Close()
			name := fmt.Sprintf("cut after %d, then %d", a, b)
			checkSweep(t, name, sweepResult{msg: m, err: err, view: view, requests: len(reqs), maxRequests: 3}, clean)
			for _, r := range reqs {
				if last := r.Messages[len(r.Messages)-1]; last.Role == "assistant" && strings.TrimRightFunc(last.Content, unicode.IsSpace) != last.Content {
					t.Fatalf("%s: a prefill ends in whitespace: %q", name, last.Content)
				}
			}
			if continued == 2 {
				twice++
			}
		}
	}
	if twice == 0 {
		t.Fatal("no call was continued twice")
	}
}

// TestFailoverPrefillAlwaysRefused is a model that cuts every stream and
// refuses every prefill: the refusal is forgiven once, and the call ends
// after Attempts counted attempts.
func TestFailoverPrefillAlwaysRefused(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		if r.Messages[len(r.Messages)-1].Role == "assistant" {
			return llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400, Type: "invalid_request_error", Message: "no prefill"}}
		}
		return llmstreamtest.Turn{Text: "alpha beta gamma delta", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5}}
	}))
	f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-test")}, Backoff: -1}
	_, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "say"}}})
	if !errors.Is(err, llmstream.ErrInterrupted) {
		t.Fatalf("err %v, want the last cut", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3: cut, refused prefill, cut", n)
	}
}

// TestFailoverNeverContinues checks the cases that must restart, not
// continue: thinking asked of Anthropic, a Streamer that does not say its
// dialect, Bedrock with a model not Anthropic's, and a broken attempt
// that (misbehaving) returned calls with its error — whose calls never
// reach the answer.
func TestFailoverNeverContinues(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "alpha beta gamma delta"}
	cut := llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 6}
	user := []llmstream.Message{{Role: "user", Content: "say"}}
	check := func(t *testing.T, srv *llmstreamtest.Server) {
		t.Helper()
		for _, r := range srv.Requests() {
			if r.Messages[len(r.Messages)-1].Role == "assistant" {
				t.Fatal("a continuation was sent")
			}
		}
	}
	t.Run("thinking", func(t *testing.T) {
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, cut)))
		f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-test")}, Backoff: -1}
		if m, err := f.Stream(context.Background(), llmstream.Request{Messages: user, ReasoningEffort: "low"}); err != nil || m.Content != turn.Text {
			t.Fatalf("Stream = %q, %v", m.Content, err)
		}
		check(t, srv)
	})
	t.Run("thinking by the client's defaults", func(t *testing.T) {
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, cut)))
		budget := 2048
		c := failoverClient(srv, llmstream.DialectAnthropic, "claude-test", llmstream.WithRequestDefaults(llmstream.Request{ThinkingBudget: &budget}))
		f := &llmstream.Failover{Models: []llmstream.Streamer{c}, Backoff: -1}
		if m, err := f.Stream(context.Background(), llmstream.Request{Messages: user}); err != nil || m.Content != turn.Text {
			t.Fatalf("Stream = %q, %v", m.Content, err)
		}
		check(t, srv)
	})
	t.Run("bedrock, not Anthropic's model", func(t *testing.T) {
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, cut)))
		f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectBedrock, "amazon.nova-pro-v1:0")}, Backoff: -1}
		if m, err := f.Stream(context.Background(), llmstream.Request{Messages: user}); err != nil || m.Content != turn.Text {
			t.Fatalf("Stream = %q, %v", m.Content, err)
		}
		check(t, srv)
	})
	t.Run("unknown streamer, and calls of a broken attempt", func(t *testing.T) {
		var reqs []llmstream.Request
		calls := 0
		m := streamerFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
			reqs = append(reqs, r)
			calls++
			if calls == 1 {
				return llmstream.Message{Role: "assistant", Content: "alpha ", ToolCalls: []llmstream.ToolCall{{ID: "ghost", Function: llmstream.FunctionCall{Name: "rm"}}}}, llmstream.ErrTruncated
			}
			return llmstream.Message{Role: "assistant", Content: turn.Text}, nil
		})
		got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(), llmstream.Request{Messages: user})
		if err != nil || got.Content != turn.Text || len(got.ToolCalls) != 0 {
			t.Fatalf("Stream = %q with %d calls, %v; want the second attempt's text alone", got.Content, len(got.ToolCalls), err)
		}
		if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Role == "assistant" {
			t.Fatal("an unknown Streamer was sent a continuation")
		}
	})
}

// TestFailoverSeamAbort checks a callback that fails on the seam: the
// call ends with ErrAborted and the callback's error, no attempt after,
// and OnAttempt hears of the attempt as the last one.
func TestFailoverSeamAbort(t *testing.T) {
	stop := errors.New("display closed")
	for _, kind := range []llmstream.DeltaKind{llmstream.DeltaResume, llmstream.DeltaRestart} {
		t.Run(kind.String(), func(t *testing.T) {
			turn := llmstreamtest.Turn{Text: "alpha beta gamma delta"}
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 6})))
			d := llmstream.DialectAnthropic
			if kind == llmstream.DeltaRestart {
				d = llmstream.DialectChat
			}
			var seen []llmstream.Attempt
			f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, d, "claude-test")}, Backoff: -1,
				OnAttempt: func(_ context.Context, a llmstream.Attempt) { seen = append(seen, a) }}
			_, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "say"}}, OnDelta: func(dl llmstream.Delta) error {
				if dl.Kind == kind {
					return stop
				}
				return nil
			}})
			if !errors.Is(err, llmstream.ErrAborted) || !errors.Is(err, stop) || len(srv.Requests()) != 1 {
				t.Fatalf("err %v after %d requests, want ErrAborted and the callback's error after 1", err, len(srv.Requests()))
			}
			if len(seen) != 1 || seen[0].Next != llmstream.AttemptGiveUp || seen[0].Err == nil {
				t.Fatalf("OnAttempt saw %+v, want the one attempt, given up, with its error", seen)
			}
		})
	}
}

// TestFailoverConcurrent runs calls at once on one Failover, each cut
// and continued, each with its own callback: every call gets its own
// text, and its deltas alone (run it with -race).
func TestFailoverConcurrent(t *testing.T) {
	const calls = 8
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		word := r.Messages[0].Content
		turn := llmstreamtest.Turn{Text: strings.Repeat(word+" ", 6) + "end"}
		if r.Messages[len(r.Messages)-1].Role == "assistant" {
			return llmstreamtest.Attempts(turn)(r)
		}
		turn.Fault = llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5}
		return turn
	}))
	f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-test")}, Backoff: -1}
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			word := fmt.Sprintf("w%d", i)
			want := strings.Repeat(word+" ", 6) + "end"
			var view seamView
			m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: word}}, OnDelta: view.apply})
			if err != nil || m.Content != want || view.text != want {
				errs <- fmt.Errorf("call %d: %q, deltas %q, %v; want %q", i, m.Content, view.text, err, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
