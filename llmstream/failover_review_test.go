package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
)

// TestReviewFailoverBackoffCappedByMaxWait: MaxWait "caps every wait". A
// Failover's own backoff longer than MaxWait waits MaxWait and tries the
// same model again; only a server's longer wait moves on.
func TestReviewFailoverBackoffCappedByMaxWait(t *testing.T) {
	var waits []time.Duration
	s := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){fails(llmstream.ErrTruncated), answers("ok")}}
	f := &llmstream.Failover{Models: []llmstream.Streamer{s}, Attempts: 2, Backoff: time.Hour, MaxWait: time.Millisecond,
		OnAttempt: func(_ context.Context, a llmstream.Attempt) { waits = append(waits, a.Wait) }}
	m, err := f.Stream(context.Background(), llmstream.Request{})
	if err != nil || m.Content != "ok" || s.calls != 2 {
		t.Fatalf("Stream = %q, %v after %d calls; want ok after 2 (backoff capped at MaxWait)", m.Content, err, s.calls)
	}
	if len(waits) != 2 || waits[0] <= 0 || waits[0] > time.Millisecond {
		t.Fatalf("waits %v, want the hour-long backoff capped at 1ms", waits)
	}
}

// TestReviewFailoverServerWaitAtMaxWait: a server's wait at MaxWait is
// honoured on the same model; one nanosecond... one millisecond over moves
// on to the next model at once.
func TestReviewFailoverServerWaitAtMaxWait(t *testing.T) {
	limited := func(ms string) error {
		return &llmstream.APIError{Kind: llmstream.ErrorRateLimited, StatusCode: 429,
			Err: &transport.StatusError{StatusCode: 429, Header: http.Header{"Retry-After-Ms": {ms}}}}
	}
	for _, tt := range []struct {
		ms          string
		first, next int
		wait        time.Duration
	}{{"4", 2, 0, 4 * time.Millisecond}, {"5", 2, 0, 5 * time.Millisecond}, {"6", 1, 1, 0}} {
		var waits []time.Duration
		first := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){fails(limited(tt.ms)), answers("ok")}}
		second := &scripted{answers: [](func(context.Context, llmstream.Request) (llmstream.Message, error)){answers("ok")}}
		f := &llmstream.Failover{Models: []llmstream.Streamer{first, second}, MaxWait: 5 * time.Millisecond,
			OnAttempt: func(_ context.Context, a llmstream.Attempt) { waits = append(waits, a.Wait) }}
		start := time.Now()
		_, err := f.Stream(context.Background(), llmstream.Request{})
		if err != nil || first.calls != tt.first || second.calls != tt.next || waits[0] != tt.wait {
			t.Fatalf("retry-after-ms %s: %v after %d+%d calls, waits %v; want %d+%d, wait %v", tt.ms, err, first.calls, second.calls, waits, tt.first, tt.next, tt.wait)
		}
		if el := time.Since(start); el < tt.wait {
			t.Fatalf("retry-after-ms %s: the call took %v, less than the wait", tt.ms, el)
		}
	}
}

// TestReviewFailoverCancelledWhileFailing: the caller cancels while an
// attempt is running, and the attempt (a Streamer that does not watch
// ctx) then fails with a retryable error. No attempt follows, and the
// caller's cancellation is in the chain ("the caller's cancellation ends
// it at once, with the context's error in the chain").
func TestReviewFailoverCancelledWhileFailing(t *testing.T) {
	for _, failure := range []error{llmstream.ErrTruncated, apiError(llmstream.ErrorOverloaded, 529), apiError(llmstream.ErrorInvalidRequest, 400)} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		m := streamerFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			calls++
			cancel()
			return llmstream.Message{}, failure
		})
		_, err := (&llmstream.Failover{Models: []llmstream.Streamer{m, m}, Backoff: -1}).Stream(ctx, llmstream.Request{})
		if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, failure) {
			t.Errorf("%v: err %v after %d calls; want both the cancellation and the attempt's error after 1", failure, err, calls)
		}
		if k := llmstream.KindOf(err); k != llmstream.ErrorCanceled && failure == llmstream.ErrTruncated {
			t.Errorf("%v: KindOf %v, want canceled", failure, k)
		}
	}
}

// TestReviewFailoverBoundedEveryMix: whatever mix of retryable failures
// and prefill refusals the models give, the call makes at most
// len(Models)·Attempts + len(Models) attempts.
func TestReviewFailoverBoundedEveryMix(t *testing.T) {
	refused := &llmstream.APIError{Kind: llmstream.ErrorInvalidRequest, StatusCode: 400, Message: "no prefill"}
	for models := 1; models <= 3; models++ {
		for per := 1; per <= 3; per++ {
			calls := 0
			m := &anthropicFailing{refused: refused, calls: &calls}
			ms := make([]llmstream.Streamer, models)
			for i := range ms {
				ms[i] = m
			}
			var view seamView
			got, err := (&llmstream.Failover{Models: ms, Attempts: per, Backoff: -1}).Stream(context.Background(),
				llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: view.apply})
			if err == nil || calls > models*per+models {
				t.Fatalf("%d models × %d: %d calls, err %v; want an error after at most %d", models, per, calls, err, models*per+models)
			}
			if view.text != got.Content {
				t.Fatalf("%d models × %d: the display shows %q, the failed message %q", models, per, view.text, got.Content)
			}
		}
	}
}

// anthropicFailing shows text and is cut on every fresh request, and
// refuses every prefill.
type anthropicFailing struct {
	refused error
	calls   *int
}

func (anthropicFailing) Dialect() llmstream.Dialect { return llmstream.DialectAnthropic }

func (a anthropicFailing) Stream(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
	*a.calls++
	if r.Messages[len(r.Messages)-1].Role == "assistant" {
		return llmstream.Message{}, a.refused
	}
	if err := r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: fmt.Sprint("part ", *a.calls)}); err != nil {
		return llmstream.Message{}, err
	}
	return llmstream.Message{Role: "assistant", Content: fmt.Sprint("part ", *a.calls)}, llmstream.ErrTruncated
}

// TestReviewFailoverDiscardedCalls: an attempt that had finished a tool
// call and then broke is restarted; the answer's calls are the answering
// attempt's alone, and the display's calls after the seam are too.
func TestReviewFailoverDiscardedCalls(t *testing.T) {
	n := 0
	m := streamerFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		n++
		call := llmstream.ToolCall{ID: fmt.Sprint("c", n), Type: "function", Function: llmstream.FunctionCall{Name: "f", Arguments: "{}"}}
		if err := r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaToolCall, Call: toolcall.Preview{Index: 0, ID: call.ID, Name: "f"}, Text: "{}"}); err != nil {
			return llmstream.Message{}, err
		}
		msg := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{call}}
		if n == 1 {
			return msg, llmstream.ErrTruncated
		}
		return msg, nil
	})
	var view seamView
	got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(), llmstream.Request{OnDelta: view.apply})
	if err != nil || len(got.ToolCalls) != 1 || got.ToolCalls[0].ID != "c2" {
		t.Fatalf("calls %v, %v; want the answering attempt's c2 alone", got.ToolCalls, err)
	}
	if calls := view.callList(); len(calls) != 1 || calls[0].ID != "c2" || len(view.seams) != 1 || view.seams[0] != llmstream.DeltaRestart {
		t.Fatalf("display calls %v, seams %v; want c2 after one restart", calls, view.seams)
	}
}

// TestReviewFailoverSpliceSplitRune: the continuation repeats the shown
// text's trailing no-break space (two bytes) and its deltas cut that rune
// in two. The deltas with their seam must still give the Message's text.
func TestReviewFailoverSpliceSplitRune(t *testing.T) {
	for _, tt := range []struct {
		second []string
		want   string
	}{
		{[]string{"\xc2", "\xa0world"}, "Hello\u00a0world"},       // the repeat, cut in two
		{[]string{"\xc2", "\xa1world"}, "Hello\u00a0\u00a1world"}, // another rune, cut in two
		{[]string{"\xc2"}, "Hello\u00a0\xc2"},                     // half a rune, then the end
		{[]string{"\xc2", "", "\xa0", "\u00a0x"}, "Hello\u00a0\u00a0x"},
	} {
		m := &dialectStreamer{d: llmstream.DialectAnthropic, fn: cutThenAnswer([]string{"Hello\u00a0"}, tt.second)}
		var view seamView
		got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(),
			llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: view.apply})
		if err != nil || got.Content != tt.want {
			t.Fatalf("%q: Stream = %q, %v", tt.second, got.Content, err)
		}
		if view.text != got.Content {
			t.Fatalf("%q: deltas give %q, message %q (seams %v)", tt.second, view.text, got.Content, view.seams)
		}
	}
}

type dialectStreamer struct {
	d  llmstream.Dialect
	fn func(context.Context, llmstream.Request) (llmstream.Message, error)
}

func (s *dialectStreamer) Dialect() llmstream.Dialect { return s.d }
func (s *dialectStreamer) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	return s.fn(ctx, r)
}

// cutThenAnswer is a Streamer's Stream that sends first's pieces as text
// deltas and breaks (ErrTruncated), then on every later call sends
// second's and answers.
func cutThenAnswer(first, second []string) func(context.Context, llmstream.Request) (llmstream.Message, error) {
	n := 0
	return func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		n++
		parts := first
		if n > 1 {
			parts = second
		}
		text := ""
		for _, p := range parts {
			text += p
			if err := r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: p}); err != nil {
				return llmstream.Message{}, err
			}
		}
		if n == 1 {
			return llmstream.Message{Role: "assistant", Content: text}, llmstream.ErrTruncated
		}
		return llmstream.Message{Role: "assistant", Content: text}, nil
	}
}
