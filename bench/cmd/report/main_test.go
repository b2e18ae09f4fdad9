package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/bench"
)

// TestReport: medians, ratios to airlock and to the floor, and "–" for
// what was not run, from go test -bench lines.
func TestReport(t *testing.T) {
	in := `goos: linux
BenchmarkSSE/corpus=chat/peer=limit-indexbyte-2         	    2000	    500000 ns/op	12982.09 MB/s	0 allocs/event	       0 B/op	       0 allocs/op
BenchmarkSSE/corpus=chat/peer=airlock-2                 	    1000	   1000000 ns/op	6491.05 MB/s	0.0002 allocs/event	    5024 B/op	       4 allocs/op
BenchmarkPipeline/dialect=chat/corpus=chat/peer=airlock-2	     300	   3000000 ns/op	2163.68 MB/s	0.0019 allocs/event	 1110424 B/op	      38 allocs/op
BenchmarkPipeline/dialect=chat/corpus=chat/peer=airlock-2	     300	   5000000 ns/op	2163.68 MB/s	0.0021 allocs/event	 1110424 B/op	      42 allocs/op
BenchmarkPipeline/dialect=chat/corpus=chat/peer=airlock-2	     300	   4000000 ns/op	2163.68 MB/s	0.0020 allocs/event	 1110424 B/op	      40 allocs/op
BenchmarkPipeline/dialect=chat/corpus=chat/peer=openai-go-2	       6	 200000000 ns/op	  32.46 MB/s	58.4 allocs/event	149698728 B/op	 1168632 allocs/op
BenchmarkPipeline/dialect=chat/corpus=chat/peer=hand-sonic-2	       1	 5000000000 ns/op	  1.3 MB/s	5 allocs/event	149698728 B/op	 101125 allocs/op
`
	data := map[key]*samples{}
	if err := parse(strings.NewReader(in), data); err != nil {
		t.Fatal(err)
	}
	if s := data[key{"Pipeline", "chat", "airlock"}]; s == nil || len(s.ns) != 3 {
		t.Fatalf("airlock's pipeline samples: %+v", s)
	}
	var out strings.Builder
	r := report{data: data, w: &out}
	r.pipeline(benchDialect(t, "chat"))
	r.sse()
	got := out.String()
	for _, want := range []string{
		"| chat | 4 ms (1.62 GB/s) | 8× |",          // the median of 3, 4, 5 ms; ÷ the 0.5 ms floor
		"| 200 ms — 50× |",                          // openai-go ÷ airlock
		"| 5 s — 1,250× |",                          // no exponent
		"| 40 per stream (0.0020/event) |",          // median allocs
		"| chat | 1 ms (6.49 GB/s) | 2× | 500 µs |", // SSE
		"| 200 ms — 50× | – |",                      // go-openai not run
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "| tools |") {
		t.Errorf("a row for a corpus nothing ran on:\n%s", got)
	}
}

func benchDialect(t *testing.T, name string) *bench.Dialect {
	for _, d := range bench.Dialects {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no dialect %s", name)
	return nil
}

// TestReportEveryDialect: every dialect in bench.Dialects gets its
// pipeline table, a row per corpus, and its corpora their detail tables.
func TestReportEveryDialect(t *testing.T) {
	for _, name := range []string{"chat", "anthropic", "responses"} {
		benchDialect(t, name)
	}
	var in strings.Builder
	for _, d := range bench.Dialects {
		for _, c := range d.Corpora() {
			for _, p := range d.Peers {
				fmt.Fprintf(&in, "BenchmarkPipeline/dialect=%s/corpus=%s/peer=%s-2\t1\t1000000 ns/op\t0.01 allocs/event\t10 B/op\t1 allocs/op\n", d.Name, c.Name, p.Name)
			}
		}
	}
	data := map[key]*samples{}
	if err := parse(strings.NewReader(in.String()), data); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := report{data: data, w: &out}
	for _, d := range bench.Dialects {
		r.pipeline(d)
	}
	r.details()
	got := out.String()
	for _, d := range bench.Dialects {
		if !strings.Contains(got, "### Whole pipeline, dialect `"+d.Name+"`") {
			t.Errorf("no pipeline table for dialect %s", d.Name)
		}
		for _, c := range d.Corpora() {
			if !strings.Contains(got, "| "+c.Name+" | 1 ms (") {
				t.Errorf("no pipeline row for %s", c.Name)
			}
			if !strings.Contains(got, "#### `"+c.Name+"` (dialect "+d.Name+")") {
				t.Errorf("no detail table for %s", c.Name)
			}
		}
	}
}

// TestReportDeltas: the Bedrock and EventStream benchmarks get their own
// tables, rows in order of size, with ratios to airlock.
func TestReportDeltas(t *testing.T) {
	in := `BenchmarkBedrock/deltas=10000/peer=airlock-2	100	10000000 ns/op	 300.00 MB/s	0.0078 allocs/event	517332 B/op	79 allocs/op
BenchmarkBedrock/deltas=1000/peer=airlock-2	1000	1000000 ns/op	 400.00 MB/s	0.0756 allocs/event	91305 B/op	76 allocs/op
BenchmarkBedrock/deltas=1000/peer=aws-sdk-go-v2-2	100	12000000 ns/op	  35.00 MB/s	54.3 allocs/event	3962910 B/op	54700 allocs/op
BenchmarkEventStream/deltas=100/peer=airlock-2	50000	30000 ns/op	 600.00 MB/s	4600 B/op	9 allocs/op	280.0 ns/frame
BenchmarkEventStream/deltas=100/peer=aws-sdk-go-v2-2	5000	300000 ns/op	  60.00 MB/s	181464 B/op	900 allocs/op	2800 ns/frame
`
	data := map[key]*samples{}
	if err := parse(strings.NewReader(in), data); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := report{data: data, w: &out}
	r.byDeltas("Bedrock", "Bedrock", "")
	r.byDeltas("EventStream", "EventStream", "")
	r.details() // nothing: no corpus benchmark ran
	got := out.String()
	if strings.Contains(got, "Every peer") {
		t.Errorf("the per-corpus tables with no corpus benchmark:\n%s", got)
	}
	for _, want := range []string{
		"| 1000 | 1 ms (400 MB/s) | 12 ms — 12× | 76 per stream (0.0756/event) | 54,700 per stream (54.3/event) |",
		"| 10000 | 10 ms (300 MB/s) | – | 79 per stream (0.0078/event) | – |",
		"| 100 | 30 µs (600 MB/s) | 300 µs — 10× | 9 per stream | 900 per stream |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "| 1000 |"), strings.Index(got, "| 10000 |"); i < 0 || j < i {
		t.Errorf("rows not in order of size:\n%s", got)
	}
}
