package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// deltasRE names the Bedrock benchmarks, which run one generated
// ConverseStream answer at a few sizes instead of the shared corpora: the
// key's corpus is "deltas=N".
var deltasRE = regexp.MustCompile(`^Benchmark(EventStream|Bedrock)/(deltas=\d+)/peer=(.+?)(?:-\d+)?$`)

// byDeltas prints one table of a deltas-sized group: a row per size,
// airlock and every other peer with how many times airlock's time it is.
func (r *report) byDeltas(group, title, about string) {
	var sizes, others []string
	for k := range r.data {
		if k.group != group {
			continue
		}
		if !slices.Contains(sizes, k.corpus) {
			sizes = append(sizes, k.corpus)
		}
		if k.peer != "airlock" && !slices.Contains(others, k.peer) {
			others = append(others, k.peer)
		}
	}
	if len(sizes) == 0 {
		return
	}
	slices.SortFunc(sizes, func(a, b string) int { return deltaCount(a) - deltaCount(b) })
	slices.Sort(others)
	r.printf("### %s: time per stream\n\n%s\n\n| deltas | airlock |", title, about)
	for _, p := range others {
		r.printf(" %s |", p)
	}
	r.printf(" allocs (airlock) |")
	for _, p := range others {
		r.printf(" allocs (%s) |", p)
	}
	r.printf("\n|---:|---:|%s\n", strings.Repeat("---:|", 2*len(others)+1))
	for _, size := range sizes {
		a := key{group, size, "airlock"}
		an := r.ns(a)
		r.printf("| %d | %s |", deltaCount(size), r.timeAndMBps(a))
		for _, p := range others {
			r.printf(" %s |", r.versus(key{group, size, p}, an))
		}
		r.printf(" %s |", r.allocs(a))
		for _, p := range others {
			r.printf(" %s |", r.allocs(key{group, size, p}))
		}
		r.printf("\n")
	}
	r.printf("\n")
}

// timeAndMBps is k's median time and MB/s (as the benchmark reported it).
func (r *report) timeAndMBps(k key) string {
	s := r.data[k]
	if s == nil || len(s.ns) == 0 {
		return "–"
	}
	if len(s.mbps) == 0 {
		return duration(median(s.ns))
	}
	return duration(median(s.ns)) + " (" + strconv.FormatFloat(median(s.mbps), 'f', 0, 64) + " MB/s)"
}

func deltaCount(size string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(size, "deltas="))
	return n
}
