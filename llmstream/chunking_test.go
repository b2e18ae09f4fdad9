package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// outcome is a decoded stream in a form that compares and prints well:
// every Message field, and the error's text and category.
type outcome struct {
	Message      json.RawMessage `json:"message"`
	Reasoning    string          `json:"reasoning,omitempty"`
	Refusal      string          `json:"refusal,omitempty"`
	FinishReason string          `json:"finish_reason,omitempty"`
	StopReason   string          `json:"stop_reason,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
	Model        string          `json:"model,omitempty"`
	Error        string          `json:"error,omitempty"`
	Kind         string          `json:"kind,omitempty"`
}

func outcomeOf(t testing.TB, m Message, err error) outcome {
	t.Helper()
	j, jerr := json.Marshal(m)
	if jerr != nil {
		t.Fatalf("marshal %+v: %v", m, jerr)
	}
	o := outcome{Message: j, Reasoning: m.Reasoning, Refusal: m.Refusal, FinishReason: m.FinishReason, Usage: m.Usage, Model: m.Model}
	if m.StopReason != 0 {
		o.StopReason = m.StopReason.String()
	}
	if err != nil {
		o.Error, o.Kind = err.Error(), errorKind(err)
	}
	return o
}

// errorKind names the typed category of err; "untyped" fails the fuzzers.
func errorKind(err error) string {
	var api *APIError
	var ev *EventError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &api):
		return "APIError/" + api.Kind.String()
	case errors.As(err, &ev) && errors.Is(err, ErrOutOfOrder):
		return "ErrOutOfOrder"
	case errors.As(err, &ev) && errors.Is(err, ErrBadEvent):
		return "ErrBadEvent"
	case errors.Is(err, ErrTruncated):
		return "ErrTruncated"
	case errors.Is(err, ErrAborted):
		return "ErrAborted"
	case errors.Is(err, sse.ErrEventTooLarge):
		return "sse.ErrEventTooLarge"
	case errors.Is(err, toolcall.ErrInvalidArguments):
		return "toolcall.ErrInvalidArguments"
	case errors.Is(err, toolcall.ErrTooManyCalls):
		return "toolcall.ErrTooManyCalls"
	case errors.Is(err, toolcall.ErrArgumentsTooLarge):
		return "toolcall.ErrArgumentsTooLarge"
	case errors.Is(err, toolcall.ErrInvalidExtra):
		return "toolcall.ErrInvalidExtra"
	}
	return "untyped"
}

// chunkedReader hands out data in the given read sizes, cycling.
type chunkedReader struct {
	data  []byte
	sizes []int
	n     int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := r.sizes[r.n%len(r.sizes)]
	r.n++
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// splittings returns readers over data: whole, one byte at a time, half
// reads, and random splits from a fixed seed.
func splittings(data []byte, seed uint64) map[string]func() io.Reader {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sizes := make([]int, 64)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(17)
	}
	return map[string]func() io.Reader{
		"whole":     func() io.Reader { return bytes.NewReader(data) },
		"one byte":  func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":      func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"random":    func() io.Reader { return &chunkedReader{data: data, sizes: sizes} },
		"pairs+one": func() io.Reader { return &chunkedReader{data: data, sizes: []int{2, 1, 3}} },
	}
}

// decodeEverySplit decodes data with every splitting and fails unless all
// agree; it returns the common outcome.
func decodeEverySplit(t *testing.T, data []byte, opts ...BridgeOption) outcome {
	t.Helper()
	var want *outcome
	var wantName string
	for name, mk := range splittings(data, uint64(len(data))) {
		m, err := ReadMessage(mk(), opts...)
		got := outcomeOf(t, m, err)
		if want == nil {
			want, wantName = &got, name
			continue
		}
		if !equalOutcome(*want, got) {
			t.Fatalf("split %q gives\n%+v\nbut %q gives\n%+v", name, got, wantName, *want)
		}
	}
	return *want
}

func equalOutcome(a, b outcome) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestEverySplitPoint splits each provider stream at every offset into
// two reads: the bridge must not care where reads end. Every Anthropic
// stream is among them (Gemini's and Responses' have tests of their own).
func TestEverySplitPoint(t *testing.T) {
	names := []string{"openai_tools", "gemini", "llamacpp_error", "openai_text_crlf"}
	files, _ := filepath.Glob("testdata/providers/anthropic_*.sse")
	if len(files) == 0 {
		t.Fatal("no Anthropic streams")
	}
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".sse"))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, "providers/"+name+".sse")
			d := WithDialect(dialectOf(name))
			m, err := ReadMessage(bytes.NewReader(data), d)
			want := outcomeOf(t, m, err)
			for at := 1; at < len(data); at++ {
				m, err := ReadMessage(&chunkedReader{data: data, sizes: []int{at, len(data)}}, d)
				if got := outcomeOf(t, m, err); !equalOutcome(got, want) {
					t.Fatalf("split at %d: got %+v, want %+v", at, got, want)
				}
			}
		})
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
