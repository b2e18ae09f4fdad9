package llmstream_test

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/airlock-go/airlock/llmstream"
)

// anthropicLike is a scripted Streamer that says it speaks Anthropic: it
// streams text, cut after cut bytes on its first call, and continues a
// prefill as a model does (the rest of text after the prefill).
type anthropicLike struct {
	text  string
	cut   int
	calls int
}

func (anthropicLike) Dialect() llmstream.Dialect { return llmstream.DialectAnthropic }

func (a *anthropicLike) Stream(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
	a.calls++
	out := a.text
	if last := r.Messages[len(r.Messages)-1]; last.Role == "assistant" {
		out = strings.TrimPrefix(a.text, last.Content)
	}
	var err error
	if a.calls == 1 {
		out, err = out[:a.cut], llmstream.ErrTruncated
	}
	// In pieces of up to 3 runes, as a provider sends words.
	for rest := out; rest != ""; {
		n := 0
		for i := 0; i < 3 && n < len(rest); i++ {
			_, size := utf8.DecodeRuneInString(rest[n:])
			n += size
		}
		if err := r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: rest[:n]}); err != nil {
			return llmstream.Message{}, err
		}
		rest = rest[n:]
	}
	return llmstream.Message{Role: "assistant", Content: out}, err
}

// FuzzFailoverSplice cuts a text at any rune boundary and lets a model
// continue it: the answer and the deltas with their seams are the text,
// whatever whitespace stands at the cut.
func FuzzFailoverSplice(f *testing.F) {
	for _, s := range []struct {
		text string
		cut  int
	}{{"Hello world. ", 6}, {"a \n\n b", 2}, {"x\u00a0\u3000y", 2}, {"   ", 1}, {"tab\tend", 4}, {"", 0}} {
		f.Add(s.text, s.cut)
	}
	f.Fuzz(func(t *testing.T, text string, cut int) {
		if !utf8.ValidString(text) || cut < 0 || cut > len(text) || cut < len(text) && !utf8.RuneStart(text[cut]) {
			t.Skip()
		}
		m := &anthropicLike{text: text, cut: cut}
		var view seamView
		fo := &llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}
		msg, err := fo.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}, OnDelta: view.apply})
		if err != nil {
			t.Fatal(err)
		}
		if msg.Content != text || view.text != text {
			t.Fatalf("cut %d of %q: answer %q, deltas %q (seams %v)", cut, text, msg.Content, view.text, view.seams)
		}
		continued := len(view.seams) == 1 && view.seams[0] == llmstream.DeltaResume
		if want := strings.TrimRightFunc(text[:cut], unicode.IsSpace) != ""; continued != want {
			t.Fatalf("cut %d of %q: seams %v, continued %v, want %v", cut, text, view.seams, continued, want)
		}
	})
}
