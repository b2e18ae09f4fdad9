package llmstream_test

import (
	"context"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// cutThenDeltas is cutThenAnswer with the continuation's deltas given in
// full (any kind); its Message holds their text and reasoning.
func cutThenDeltas(first string, second []llmstream.Delta) func(context.Context, llmstream.Request) (llmstream.Message, error) {
	n := 0
	return func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		n++
		if n == 1 {
			if err := r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: first}); err != nil {
				return llmstream.Message{}, err
			}
			return llmstream.Message{Role: "assistant", Content: first}, llmstream.ErrTruncated
		}
		m := llmstream.Message{Role: "assistant"}
		for _, d := range second {
			if err := r.OnDelta(d); err != nil {
				return m, err
			}
			switch d.Kind {
			case llmstream.DeltaText:
				m.Content += d.Text
			case llmstream.DeltaReasoning:
				m.Reasoning += d.Text
			}
		}
		return m, nil
	}
}

// A continuation cuts the repeated rune in two with a delta of another
// kind between the halves: the deltas' text must still be the Message's
// (the seam invariant), not the rune twice.
func TestFailoverHeldAcrossOtherKind_review2(t *testing.T) {
	text := func(s string) llmstream.Delta { return llmstream.Delta{Kind: llmstream.DeltaText, Text: s} }
	for _, other := range []llmstream.Delta{
		{Kind: llmstream.DeltaReasoning, Text: "r"},
		{Kind: llmstream.DeltaRefusal, Text: "no"},
	} {
		m := &dialectStreamer{d: llmstream.DialectAnthropic, fn: cutThenDeltas("Hello\u00a0", []llmstream.Delta{text("\xc2"), other, text("\xa0world")})}
		var view seamView
		got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(),
			llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: view.apply})
		if err != nil {
			t.Fatal(err)
		}
		if view.text != got.Content {
			t.Errorf("%v between: deltas give %q, message %q (seams %v)", other.Kind, view.text, got.Content, view.seams)
		}
	}
}

// The held half rune is shown at the attempt's end; when the callback
// refuses it the call ends with ErrAborted and the message shows the text
// as shown, the text before the splice included.
func TestFailoverHeldFlushAborts_review2(t *testing.T) {
	m := &dialectStreamer{d: llmstream.DialectAnthropic, fn: cutThenAnswer([]string{"Hello\u00a0"}, []string{"\xc2"})}
	stop := errors.New("stop")
	var seen []llmstream.Attempt
	onAttempt := func(_ context.Context, a llmstream.Attempt) { seen = append(seen, a) }
	got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1, OnAttempt: onAttempt}).Stream(context.Background(),
		llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: func(d llmstream.Delta) error {
			if d.Kind == llmstream.DeltaText && d.Text == "\xc2" {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, llmstream.ErrAborted) || !errors.Is(err, stop) {
		t.Fatalf("err = %v, want ErrAborted wrapping the callback's", err)
	}
	if got.Content != "Hello\u00a0\xc2" {
		t.Errorf("Content = %q, want the text as shown, %q", got.Content, "Hello\u00a0\xc2")
	}
	if len(seen) != 2 || seen[1].Next != llmstream.AttemptGiveUp || !errors.Is(seen[1].Err, stop) {
		t.Errorf("OnAttempt saw %+v, want the cut attempt and the answering one given up with the callback's error", seen)
	}
}

// Every way to cut a continuation that repeats multi-byte whitespace into
// byte pieces, with a reasoning delta after any piece: the deltas' text is
// the Message's.
func TestFailoverSpliceEveryByteCut_review2(t *testing.T) {
	for _, tc := range []struct{ shown, cont string }{
		{"Hi\u00a0", "\u00a0there"},
		{"Hi\u3000\u00a0", "\u3000\u00a0x"},
		{"Hi\u3000\u00a0", "\u3000\u3000x"},
		{"Hi \u2028", " \u2028\u2029"},
		{"Hi\u00a0", "\u00a1"},
	} {
		n := len(tc.cont)
		for mask := 0; mask < 1<<(n-1); mask++ { // a cut after byte i when bit i is set
			for _, withOther := range []bool{false, true} {
				var ds []llmstream.Delta
				start := 0
				for i := 1; i <= n; i++ {
					if i < n && mask&(1<<(i-1)) == 0 {
						continue
					}
					ds = append(ds, llmstream.Delta{Kind: llmstream.DeltaText, Text: tc.cont[start:i]})
					if withOther && i < n {
						ds = append(ds, llmstream.Delta{Kind: llmstream.DeltaReasoning, Text: "r"})
					}
					start = i
				}
				m := &dialectStreamer{d: llmstream.DialectAnthropic, fn: cutThenDeltas(tc.shown, ds)}
				var view seamView
				got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(),
					llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: view.apply})
				if err != nil {
					t.Fatal(err)
				}
				if view.text != got.Content {
					t.Fatalf("%q then %q cut %b (other %v): deltas give %q, message %q", tc.shown, tc.cont, mask, withOther, view.text, got.Content)
				}
			}
		}
	}
}
