package llmstream

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// fuzzDialects are the dialects FuzzReadMessage reads with.
var fuzzDialects = []Dialect{DialectChat, DialectAnthropic, DialectResponses, DialectGemini}

// FuzzReadMessage feeds arbitrary bytes as an SSE body of every dialect: no
// panic, the same result whole, one byte at a time and in random reads,
// every error typed, and every returned tool call's arguments valid JSON.
func FuzzReadMessage(f *testing.F) {
	files, _ := filepath.Glob("testdata/providers/*.sse")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		d := dialectOf(strings.TrimSuffix(filepath.Base(file), ".sse"))
		f.Add(data, uint64(len(data)), uint8(slices.Index(fuzzDialects, d)))
	}
	f.Add([]byte(stream(toolFrag(0, "a", "f", `{"x":`), toolFrag(0, "b", "g", `1}`), finish("tool_calls"))), uint64(7), uint8(0))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"n\",\"arguments\":\"{}\"}}]}}]}\r\rdata: [DONE]\r"), uint64(3), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, dialect uint8) {
		d := WithDialect(fuzzDialects[int(dialect)%len(fuzzDialects)])
		m, err := ReadMessage(bytes.NewReader(data), d)
		want := outcomeOf(t, m, err)
		if kind := errorKind(err); kind == "untyped" {
			t.Fatalf("untyped error %v", err)
		}
		if err == nil {
			for _, c := range m.ToolCalls {
				if !json.Valid([]byte(c.Function.Arguments)) {
					t.Fatalf("call %q has invalid arguments %q", c.ID, c.Function.Arguments)
				}
			}
		} else if len(m.ToolCalls) != 0 {
			t.Fatalf("a failed message carries tool calls: %v", err)
		}
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		sizes := make([]int, 8)
		for i := range sizes {
			sizes[i] = 1 + rng.IntN(32)
		}
		m1, err1 := ReadMessage(iotest.OneByteReader(bytes.NewReader(data)), d)
		if got := outcomeOf(t, m1, err1); !equalOutcome(got, want) {
			t.Fatalf("one byte at a time: %+v, whole: %+v", got, want)
		}
		m2, err2 := ReadMessage(&chunkedReader{data: data, sizes: sizes}, d)
		if got := outcomeOf(t, m2, err2); !equalOutcome(got, want) {
			t.Fatalf("random reads %v: %+v, whole: %+v", sizes, got, want)
		}
	})
}
