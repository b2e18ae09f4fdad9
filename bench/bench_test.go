package bench

import (
	"runtime"
	"testing"
)

// BenchmarkSSE: SSE parsing alone (framing and data fields, no JSON), in
// memory, every SSE peer on every corpus it reads. Every iteration checks
// the event count and data bytes.
func BenchmarkSSE(b *testing.B) {
	for _, c := range Corpora() {
		for _, p := range SSEPeers {
			if !p.Reads(c) {
				continue
			}
			b.Run("corpus="+c.Name+"/peer="+p.Name, func(b *testing.B) {
				measure(b, c, func() error {
					r, err := p.Run(c.Data)
					if err != nil {
						return err
					}
					return CheckSSE(c, r)
				})
			})
		}
	}
}

// BenchmarkPipeline: SSE, the JSON of every event and the assembly of the
// final message, each dialect's peers on each of its corpora. Every
// iteration checks the message byte for byte.
func BenchmarkPipeline(b *testing.B) {
	for _, d := range Dialects {
		for _, c := range d.Corpora() {
			for _, p := range d.Peers {
				b.Run("dialect="+d.Name+"/corpus="+c.Name+"/peer="+p.Name, func(b *testing.B) {
					run := p.New(c.Data)
					measure(b, c, func() error {
						m, err := run()
						if err != nil {
							return err
						}
						return CheckMessage(c, m)
					})
				})
			}
		}
	}
}

// measure runs once per b.Loop iteration, fails the benchmark at the first
// error, and reports bytes per second of corpus and allocations per event
// beside Go's own figures.
func measure(b *testing.B, c *Corpus, once func() error) {
	b.SetBytes(int64(len(c.Data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		if err := once(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n)/float64(c.Events), "allocs/event")
}
