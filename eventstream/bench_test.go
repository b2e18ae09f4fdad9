package eventstream

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// converseStream builds a Bedrock ConverseStream answer of n text deltas
// (1–8 words each) and a tool call, between messageStart and the closing
// messageStop and metadata, with the headers and the "p" padding member
// Bedrock sends. The seed is fixed: every run decodes the same bytes.
func converseStream(n int) []byte {
	words := []string{"the", "model", "streams", "tokens", "über", "naïve", "日本語", "a", "of", "to", "in"}
	rng := rand.New(rand.NewPCG(1, 2))
	const pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
	var out []byte
	add := func(event, payload string) {
		out = append(out, bedrockFrame(event, payload)...)
	}
	add("messageStart", `{"p":"abcdefghijklmnopqrstuvwxyz","role":"assistant"}`)
	for range n {
		text := ""
		for range 1 + rng.IntN(8) {
			text += " " + words[rng.IntN(len(words))]
		}
		add("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q},"p":%q}`, text, pad[:1+rng.IntN(len(pad)-1)]))
	}
	add("contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijk"}`)
	add("contentBlockStart", `{"contentBlockIndex":1,"p":"abcdefgh","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}}}`)
	add("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":\"Paris\"}"}},"p":"abcd"}`)
	add("contentBlockStop", `{"contentBlockIndex":1,"p":"abcdefghijklm"}`)
	add("messageStop", `{"p":"abcdefghijklmnopqrstu","stopReason":"tool_use"}`)
	add("metadata", `{"metrics":{"latencyMs":812},"p":"abcdefghijklmnopq","usage":{"inputTokens":412,"outputTokens":96,"totalTokens":508}}`)
	return out
}

// chunkedReader returns at most size bytes per Read, like a network stack
// handing over one TCP segment at a time.
type chunkedReader struct {
	data []byte
	size int
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// benchmarkDecode runs decode over in b.N times and reports bytes per
// second, time per frame and allocations per frame.
func benchmarkDecode(b *testing.B, in []byte, decode func([]byte) int) {
	frames := decode(in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	n := 0
	for b.Loop() {
		decode(in)
		n++
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Mallocs-before)/float64(n*frames), "allocs/frame")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*frames), "ns/frame")
}

func readerFrames(src io.Reader) int {
	r := NewReader(src)
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if err != io.EOF {
				panic(err)
			}
			return n
		}
		n++
	}
}

// BenchmarkReader decodes ConverseStream answers of 100 and 1000 deltas
// (linear: ns/frame stays the same), read whole and in 1448-byte segments.
func BenchmarkReader(b *testing.B) {
	for _, n := range []int{100, 1000} {
		in := converseStream(n)
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			benchmarkDecode(b, in, func(in []byte) int { return readerFrames(bytes.NewReader(in)) })
		})
		b.Run(fmt.Sprintf("deltas=%d/segments", n), func(b *testing.B) {
			benchmarkDecode(b, in, func(in []byte) int { return readerFrames(&chunkedReader{data: in, size: 1448}) })
		})
	}
}

// BenchmarkParser feeds the same answers whole and in 1–6-byte chunks.
func BenchmarkParser(b *testing.B) {
	feed := func(size func() int) func([]byte) int {
		return func(in []byte) int {
			p := NewParser()
			n := 0
			count := func(Message) error { n++; return nil }
			for len(in) > 0 {
				k := min(size(), len(in))
				if err := p.Feed(in[:k], count); err != nil {
					panic(err)
				}
				in = in[k:]
			}
			if err := p.Close(); err != nil {
				panic(err)
			}
			return n
		}
	}
	for _, n := range []int{100, 1000} {
		in := converseStream(n)
		b.Run(fmt.Sprintf("deltas=%d/whole", n), func(b *testing.B) {
			benchmarkDecode(b, in, feed(func() int { return len(in) }))
		})
		rng := rand.New(rand.NewPCG(3, 4))
		b.Run(fmt.Sprintf("deltas=%d/1-6", n), func(b *testing.B) {
			benchmarkDecode(b, in, feed(func() int { return 1 + rng.IntN(6) }))
		})
	}
}
