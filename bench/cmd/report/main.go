// Command report turns the output of this module's benchmarks into the
// markdown tables the README quotes: for each dialect the whole pipeline,
// airlock against each peer; SSE alone on every corpus; then every figure
// of every peer per corpus. Each figure is the median of the samples
// (-count) found; "N×" is the peer's time divided by airlock's, so how many
// times faster airlock is, and "÷ floor" is a time divided by the
// bytes.IndexByte floor's on the same corpus.
//
//	go test -run '^$' -bench . -count 5 > bench.txt && go run ./cmd/report bench.txt
//
// bench/run.sh does both. Benchmarks missing from the input (a -bench
// subset) show as "–".
package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/airlock-go/airlock/bench"
)

// key names one benchmark: group is "SSE" or "Pipeline" (corpus a corpus's
// name), or "EventStream" or "Bedrock" (corpus "deltas=N").
type key struct{ group, corpus, peer string }

type samples struct{ ns, mbps, bop, allocs, allocsPerEvent []float64 }

var nameRE = regexp.MustCompile(`^Benchmark(SSE|Pipeline)/(?:dialect=[^/]+/)?corpus=([^/]+)/peer=(.+?)(?:-\d+)?$`)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: report bench.txt...")
		os.Exit(2)
	}
	data := map[key]*samples{}
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		err = parse(f, data)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", path+":", err)
			os.Exit(1)
		}
	}
	if len(data) == 0 {
		fmt.Fprintln(os.Stderr, "report: no benchmark lines of this module in the input")
		os.Exit(1)
	}
	r := report{data: data, w: os.Stdout}
	for _, d := range bench.Dialects {
		r.pipeline(d)
	}
	r.byDeltas("Bedrock", "Whole pipeline, Bedrock ConverseStream",
		"Request to assembled message over an in-memory body of event-stream frames: airlock's Client.Stream with DialectBedrock against aws-sdk-go-v2's bedrockruntime ConverseStream plus the accumulation it leaves to the caller, checked every iteration.")
	r.sse()
	r.byDeltas("EventStream", "Event-stream frames alone",
		"The same ConverseStream answer's frames, no JSON: eventstream.Reader against aws-sdk-go-v2's aws/protocol/eventstream Decoder.")
	r.details()
}

// parse adds the samples of every benchmark line in r to data.
func parse(r io.Reader, data map[key]*samples) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 {
			continue
		}
		m := nameRE.FindStringSubmatch(fs[0])
		if m == nil {
			if m = deltasRE.FindStringSubmatch(fs[0]); m == nil {
				continue
			}
		}
		k := key{m[1], m[2], m[3]}
		s := data[k]
		if s == nil {
			s = &samples{}
			data[k] = s
		}
		for i := 2; i+1 < len(fs); i += 2 {
			v, err := strconv.ParseFloat(fs[i], 64)
			if err != nil {
				continue
			}
			switch fs[i+1] {
			case "ns/op":
				s.ns = append(s.ns, v)
			case "MB/s":
				s.mbps = append(s.mbps, v)
			case "B/op":
				s.bop = append(s.bop, v)
			case "allocs/op":
				s.allocs = append(s.allocs, v)
			case "allocs/event":
				s.allocsPerEvent = append(s.allocsPerEvent, v)
			}
		}
	}
	return sc.Err()
}

type report struct {
	data map[key]*samples
	w    io.Writer
}

func (r *report) printf(format string, a ...any) { fmt.Fprintf(r.w, format, a...) }

// ns is the median time of a benchmark, NaN when it was not run.
func (r *report) ns(k key) float64 {
	if s := r.data[k]; s != nil {
		return median(s.ns)
	}
	return math.NaN()
}

func (r *report) floor(corpus string) float64 {
	return r.ns(key{"SSE", corpus, bench.SSEPeers[0].Name})
}

// pipeline prints one dialect's table: a row per corpus, airlock and
// every other peer's time with its ratio to airlock's.
func (r *report) pipeline(d *bench.Dialect) {
	others := d.Peers[:0:0]
	for _, p := range d.Peers {
		if p.Name != "airlock" {
			others = append(others, p)
		}
	}
	var corpora []*bench.Corpus
	for _, c := range d.Corpora() {
		if r.ran("Pipeline", c.Name) {
			corpora = append(corpora, c)
		}
	}
	if len(corpora) == 0 {
		return
	}
	r.printf("### Whole pipeline, dialect `%s`: time per stream\n\n", d.Name)
	r.printf("SSE + the JSON of every event + assembly into the final message, checked byte for byte.\n\n")
	r.printf("| corpus | airlock | airlock ÷ floor |")
	for _, p := range others {
		r.printf(" %s |", p.Name)
	}
	r.printf(" allocs (airlock) |\n|---|---:|---:|%s---:|\n", strings.Repeat("---:|", len(others)))
	for _, c := range corpora {
		a := key{"Pipeline", c.Name, "airlock"}
		an := r.ns(a)
		r.printf("| %s | %s | %s |", c.Name, timeAndSpeed(an, len(c.Data)), ratio(an, r.floor(c.Name)))
		for _, p := range others {
			r.printf(" %s |", r.versus(key{"Pipeline", c.Name, p.Name}, an))
		}
		r.printf(" %s |\n", r.allocs(a))
	}
	r.printf("\n")
}

// sse prints SSE alone: a row per corpus, airlock, every other SSE peer
// with its ratio to airlock, and the floor.
func (r *report) sse() {
	floor := bench.SSEPeers[0]
	var others []bench.SSEPeer
	for _, p := range bench.SSEPeers[1:] {
		if p.Name != "airlock" {
			others = append(others, p)
		}
	}
	var corpora []*bench.Corpus
	for _, c := range bench.Corpora() {
		if r.ran("SSE", c.Name) {
			corpora = append(corpora, c)
		}
	}
	if len(corpora) == 0 {
		return
	}
	r.printf("### SSE alone: time per stream\n\n")
	r.printf("Events and their data, no JSON; every corpus of every dialect.\n\n")
	r.printf("| corpus | airlock | airlock ÷ floor | %s (floor) |", floor.Name)
	for _, p := range others {
		r.printf(" %s |", p.Name)
	}
	r.printf(" allocs (airlock) |\n|---|---:|---:|---:|%s---:|\n", strings.Repeat("---:|", len(others)))
	for _, c := range corpora {
		a := key{"SSE", c.Name, "airlock"}
		an, fn := r.ns(a), r.floor(c.Name)
		r.printf("| %s | %s | %s | %s |", c.Name, timeAndSpeed(an, len(c.Data)), ratio(an, fn), duration(fn))
		for _, p := range others {
			if !p.Reads(c) {
				r.printf(" n/a |")
				continue
			}
			r.printf(" %s |", r.versus(key{"SSE", c.Name, p.Name}, an))
		}
		r.printf(" %s |\n", r.allocs(a))
	}
	r.printf("\n")
}

// ran reports whether any benchmark of group ran on corpus.
func (r *report) ran(group, corpus string) bool {
	for k := range r.data {
		if k.group == group && k.corpus == corpus {
			return true
		}
	}
	return false
}

// versus is k's time and how many times airlock's time (an) it is.
func (r *report) versus(k key, an float64) string {
	pn := r.ns(k)
	if math.IsNaN(pn) {
		return "–"
	}
	return duration(pn) + " — " + ratio(pn, an)
}

// allocs is "N per stream (M/event)" for k, from its medians; without the
// "(M/event)" for a benchmark that does not report it.
func (r *report) allocs(k key) string {
	s := r.data[k]
	if s == nil || len(s.allocs) == 0 {
		return "–"
	}
	if len(s.allocsPerEvent) == 0 {
		return commas(median(s.allocs)) + " per stream"
	}
	return fmt.Sprintf("%s per stream (%s/event)", commas(median(s.allocs)), small(median(s.allocsPerEvent)))
}

// details prints every figure of every peer, a table per corpus; nothing
// when no corpus benchmark ran (a -bench of the Bedrock ones only).
func (r *report) details() {
	if !slices.ContainsFunc(slices.Collect(maps.Keys(r.data)), func(k key) bool { return k.group == "SSE" || k.group == "Pipeline" }) {
		return
	}
	r.printf("### Every peer, per corpus\n")
	for _, d := range bench.Dialects {
		for _, c := range d.Corpora() {
			if !r.ran("SSE", c.Name) && !r.ran("Pipeline", c.Name) {
				continue
			}
			fn := r.floor(c.Name)
			r.printf("\n#### `%s` (dialect %s): %s bytes, %s events, %d tool calls — %s\n\n",
				c.Name, d.Name, commas(float64(len(c.Data))), commas(float64(c.Events)), len(c.Want.ToolCalls), c.About)
			r.printf("| kind | peer | time/stream | MB/s | ns/event | B/op | allocs/op | allocs/event | ÷ floor | ÷ airlock | n | spread |\n")
			r.printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
			var rows []key
			for _, p := range bench.SSEPeers {
				if p.Reads(c) {
					rows = append(rows, key{"SSE", c.Name, p.Name})
				}
			}
			for _, p := range d.Peers {
				rows = append(rows, key{"Pipeline", c.Name, p.Name})
			}
			for _, k := range rows {
				s := r.data[k]
				if s == nil || len(s.ns) == 0 {
					r.printf("| %s | %s | – | – | – | – | – | – | – | – | 0 | – |\n", k.group, k.peer)
					continue
				}
				ns := median(s.ns)
				r.printf("| %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %d | ±%.0f%% |\n",
					k.group, k.peer, duration(ns), float64(len(c.Data))/ns*1e3, commas(ns/float64(c.Events)),
					commas(median(s.bop)), commas(median(s.allocs)), small(median(s.allocsPerEvent)),
					ratio(ns, fn), ratio(ns, r.ns(key{k.group, c.Name, "airlock"})), len(s.ns), 50*spread(s.ns))
			}
		}
	}
	r.printf("\nMedians of n samples; spread = ±(max − min)/2 as a share of the median time. MB/s is 10⁶ bytes of corpus per second.\n")
	r.printf("÷ floor: the time divided by %s's on the same corpus; ÷ airlock: divided by airlock's of the same kind.\n", bench.SSEPeers[0].Name)
	r.printf("\nPeers:\n")
	for _, p := range bench.SSEPeers {
		r.printf("- SSE `%s`: %s\n", p.Name, p.About)
	}
	for _, d := range bench.Dialects {
		for _, p := range d.Peers {
			r.printf("- Pipeline (%s) `%s`: %s\n", d.Name, p.Name, p.About)
		}
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func spread(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	return (slices.Max(v) - slices.Min(v)) / median(v)
}

// duration formats ns with three significant digits in a fitting unit.
func duration(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "–"
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	default:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
}

func timeAndSpeed(ns float64, size int) string {
	if math.IsNaN(ns) {
		return "–"
	}
	return fmt.Sprintf("%s (%.2f GB/s)", duration(ns), float64(size)/ns)
}

// ratio is a ÷ b, "N×": with a peer's time over airlock's, how many
// times faster airlock is.
func ratio(a, b float64) string {
	switch q := a / b; {
	case math.IsNaN(q):
		return "–"
	case q >= 100:
		return commas(q) + "×"
	default:
		return fmt.Sprintf("%.3g×", q)
	}
}

// small formats a per-event figure that may be far below one.
func small(f float64) string {
	switch {
	case math.IsNaN(f):
		return "–"
	case f == 0:
		return "0"
	case f < 0.01:
		return fmt.Sprintf("%.4f", f)
	default:
		return fmt.Sprintf("%.3g", f)
	}
}

func commas(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	s := strconv.FormatInt(int64(math.Round(f)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
