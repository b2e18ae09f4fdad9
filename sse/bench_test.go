package sse

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// chatStream builds an OpenAI-shaped chat completion stream of n content
// chunks (with the fields a real stream carries on every chunk, 1–8 words of
// mixed ASCII and non-ASCII text each), then a finish chunk and [DONE]. The
// seed is fixed, so every run parses the same bytes.
func chatStream(n int, lineEnd string) []byte {
	words := []string{"the", "model", "streams", "tokens", "über", "naïve", "日本語", "🙂", "**bold**", "`code`", "\\\"quoted\\\"", "a", "of", "to", "résumé", "in"}
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	chunk := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1753460123,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_07871e2ad8","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}%s%s`, delta, finish, lineEnd, lineEnd)
	}
	chunk(`{"role":"assistant","content":""}`, "null")
	for range n {
		var words1 []string
		for range 1 + rng.IntN(8) {
			words1 = append(words1, words[rng.IntN(len(words))])
		}
		chunk(`{"content":" `+strings.Join(words1, " ")+`"}`, "null")
	}
	chunk(`{}`, `"stop"`)
	b.WriteString("data: [DONE]" + lineEnd + lineEnd)
	return b.Bytes()
}

// bigEventStream builds n events whose single data line holds size bytes
// of ASCII.
func bigEventStream(n, size int) []byte {
	var b bytes.Buffer
	line := strings.Repeat("x", size)
	for range n {
		b.WriteString("data: " + line + "\n\n")
	}
	return b.Bytes()
}

// mixedEventStream builds n events whose single data line holds size bytes
// of text mixing scripts, a non-ASCII character every few words, the way
// multilingual model output does.
func mixedEventStream(n, size int) []byte {
	words := []string{"stream", "Zürich", "中文", "line", "∞", "Kraków", "event", "🎉", "naïve", "writer", "данные", "a==b"}
	rng := rand.New(rand.NewPCG(5, 6))
	var line []byte
	for len(line) < size {
		line = append(line, words[rng.IntN(len(words))]...)
		line = append(line, ' ')
	}
	line = line[:size]
	for len(line) > 0 && line[len(line)-1] >= 0x80 {
		line[len(line)-1] = 'x' // do not end on a cut character
	}
	var b bytes.Buffer
	for range n {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteString("\n\n")
	}
	return b.Bytes()
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

// benchmarkReader parses data once per iteration through a Reader over
// newSrc(data) and reports allocations per event next to the usual per-op
// figures.
func benchmarkReader(b *testing.B, data []byte, newSrc func([]byte) io.Reader, opts ...Option) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	events := 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r := NewReader(newSrc(data), opts...)
		for {
			_, err := r.Next()
			if err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			events++
		}
	}
	runtime.ReadMemStats(&after)
	if events > 0 {
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
	}
}

func wholeReader(data []byte) io.Reader { return bytes.NewReader(data) }

func BenchmarkReader(b *testing.B) {
	chat := chatStream(2000, "\n")
	crlf := chatStream(2000, "\r\n")
	big := bigEventStream(16, 64<<10)
	mixed := mixedEventStream(16, 64<<10)
	b.Run("chat", func(b *testing.B) { benchmarkReader(b, chat, wholeReader) })
	b.Run("chat-crlf", func(b *testing.B) { benchmarkReader(b, crlf, wholeReader) })
	b.Run("chat-1460B-reads", func(b *testing.B) {
		benchmarkReader(b, chat, func(d []byte) io.Reader { return &chunkedReader{d, 1460} })
	})
	b.Run("64KiB-events", func(b *testing.B) { benchmarkReader(b, big, wholeReader) })
	b.Run("64KiB-events-mixed-scripts", func(b *testing.B) { benchmarkReader(b, mixed, wholeReader) })
}

// BenchmarkReaderLinear parses one 8 MiB event read whole and in 1460-byte
// reads: the two must cost about the same (linear time however fragmented).
func BenchmarkReaderLinear(b *testing.B) {
	data := bigEventStream(1, 8<<20)
	opt := WithMaxEventSize(16 << 20)
	b.Run("one-read", func(b *testing.B) { benchmarkReader(b, data, wholeReader, opt) })
	b.Run("1460B-reads", func(b *testing.B) {
		benchmarkReader(b, data, func(d []byte) io.Reader { return &chunkedReader{d, 1460} }, opt)
	})
	b.Run("1460B-reads-16-lines", func(b *testing.B) {
		// The same size as 16 data lines of one event: joined, not aliased.
		lines := bytes.Repeat([]byte("data: "+strings.Repeat("y", 512<<10)+"\n"), 16)
		lines = append(lines, '\n')
		benchmarkReader(b, lines, func(d []byte) io.Reader { return &chunkedReader{d, 1460} }, opt)
	})
}

func BenchmarkParser(b *testing.B) {
	chat := chatStream(2000, "\n")
	run := func(b *testing.B, chunk int) {
		b.SetBytes(int64(len(chat)))
		b.ReportAllocs()
		emit := func(Event) error { return nil }
		for b.Loop() {
			p := NewParser()
			for rest := chat; len(rest) > 0; {
				n := min(chunk, len(rest))
				if err := p.Feed(rest[:n], emit); err != nil && err != io.EOF {
					b.Fatal(err)
				}
				rest = rest[n:]
			}
			p.Close()
		}
	}
	b.Run("chat-whole", func(b *testing.B) { run(b, len(chat)) })
	b.Run("chat-1460B-chunks", func(b *testing.B) { run(b, 1460) })
	b.Run("chat-7B-chunks", func(b *testing.B) { run(b, 7) })
}

// BenchmarkIndexByteFloor is the memory-bandwidth floor on the same chat
// stream: one bytes.IndexByte pass for LF, no parsing at all.
func BenchmarkIndexByteFloor(b *testing.B) {
	chat := chatStream(2000, "\n")
	b.SetBytes(int64(len(chat)))
	n := 0
	for b.Loop() {
		for rest := chat; ; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			n++
			rest = rest[i+1:]
		}
	}
	if n == 0 {
		b.Fatal("no lines")
	}
}
