// Command streams measures memory and goroutines per concurrent open
// chat-completion stream for every bench.HoldPeer, and prints a markdown table.
//
// For each peer (and round) it starts cmd/holdserver (a separate process on a
// loopback port, so the server's memory is not counted) and then runs itself
// again as a child process for that peer alone (a fresh runtime, so nothing
// left from another peer is counted): the child opens N concurrent streams,
// each consumed in its own goroutine, waits until all have their opening
// content, forces GC twice and compares runtime.MemStats (HeapInuse +
// StackInuse) and runtime.NumGoroutine with the same reading taken before the
// first stream; then it has the server finish every stream and verifies each
// assembled message byte for byte (a mismatch fails the run).
//
//	go build -o bin/ ./cmd/streams ./cmd/holdserver && bin/streams [-n 2000] [-peers a,b] [-rounds 1]
//
// Or MEM=1 bench/run.sh (STREAMS=N, ROUNDS=R).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/airlock-go/airlock/bench"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func main() {
	n := flag.Int("n", envInt("STREAMS", 2000), "concurrent streams per peer (default $STREAMS or 2000)")
	only := flag.String("peers", "", "comma-separated peer names (default: all)")
	rounds := flag.Int("rounds", envInt("ROUNDS", 1), "rounds per peer, each in fresh processes; the table shows medians (default $ROUNDS or 1)")
	server := flag.String("server", "", "holdserver binary (default: holdserver next to this program)")
	tick := flag.Duration("tick", bench.HoldTick, "interval between the chunks of a held stream")
	hold := flag.Duration("hold", 1200*time.Millisecond, "keep the streams open at least this long after all are open (so every stream gets tick chunks)")
	jsonOut := flag.String("json", "", "also write the raw results (JSON lines) here")
	child := flag.String("child", "", "internal: measure this peer against -url and print one JSON result")
	url := flag.String("url", "", "internal: holdserver base URL for -child")
	profile := flag.String("profile", "", "diagnostics: write DIR/PEER.heap.pprof (MemProfileRate=1) and DIR/PEER.goroutines.txt while all streams are open; slows the opening, so the table is not comparable")
	flag.Parse()
	log := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "streams: "+format+"\n", a...) }

	if *child != "" {
		os.Exit(runChild(*child, *url, *n, *hold, *profile))
	}

	var sel []bench.HoldPeer
	for _, p := range bench.HoldPeers {
		if *only == "" || slices.Contains(strings.Split(*only, ","), p.Name) {
			sel = append(sel, p)
		}
	}
	if len(sel) == 0 {
		log("no peer matches -peers %q", *only)
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		log("%v", err)
		os.Exit(1)
	}
	if *server == "" {
		*server = filepath.Join(filepath.Dir(self), "holdserver")
	}
	if _, err := os.Stat(*server); err != nil {
		log("%v (build it: go build -o DIR/ ./cmd/streams ./cmd/holdserver)", err)
		os.Exit(1)
	}
	var jw io.Writer = io.Discard
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			log("%v", err)
			os.Exit(1)
		}
		defer f.Close()
		jw = f
	}

	start := time.Now()
	results := map[string][]bench.HoldResult{}
	failures := map[string]string{}
	for r := range *rounds {
		for _, p := range sel {
			if _, bad := failures[p.Name]; bad {
				continue
			}
			t0 := time.Now()
			res, err := measure(self, *server, p.Name, *n, *tick, *hold, *profile)
			if err != nil {
				log("%s round %d: FAILED: %v", p.Name, r+1, err)
				failures[p.Name] = err.Error()
				continue
			}
			log("%s round %d: %.0f B/stream, %.2f goroutines/stream, open %.2fs, verified %d/%d (%.1fs)",
				p.Name, r+1, float64(res.HeapInuse+res.StackInuse)/float64(res.N), float64(res.Goroutines)/float64(res.N),
				res.OpenSeconds, res.Verified, res.N, time.Since(t0).Seconds())
			results[p.Name] = append(results[p.Name], res)
			b, _ := json.Marshal(res)
			fmt.Fprintf(jw, "%s\n", b)
		}
	}

	fmt.Printf("### Memory and goroutines per concurrent open stream (N = %d)\n\n", *n)
	fmt.Printf("%s, GOMAXPROCS=%d, %d CPUs, %s; tick every %s, streams held ≥ %s after all were open; %d round(s) per peer (each column a median); %.0fs in all.\n\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), cpuModel(), *tick, *hold, *rounds, time.Since(start).Seconds())
	fmt.Println("| peer | bytes/stream (heap+stack) | over the floor | heap | stack | live heap | goroutines/stream | time to open N | alloc to open, B/stream | ticks/stream | verified |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	floor := math.NaN() // the first peer's bytes/stream, when it was measured
	for _, p := range sel {
		rs := results[p.Name]
		if len(rs) == 0 {
			fmt.Printf("| %s | FAILED: %s | | | | | | | | | |\n", p.Name, strings.ReplaceAll(failures[p.Name], "|", "/"))
			continue
		}
		per := func(f func(bench.HoldResult) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r) / float64(r.N)
			}
			return median(v)
		}
		openS := make([]float64, len(rs))
		verified, tmin, tmax := 0, math.MaxInt, 0
		for i, r := range rs {
			openS[i] = r.OpenSeconds
			verified += r.Verified
			tmin, tmax = min(tmin, r.TicksMin), max(tmax, r.TicksMax)
		}
		open := fmt.Sprintf("%.2f s", median(openS))
		if len(rs) > 1 {
			open += fmt.Sprintf(" (%.2f–%.2f)", slices.Min(openS), slices.Max(openS))
		}
		total := per(func(r bench.HoldResult) float64 { return float64(r.HeapInuse + r.StackInuse) })
		fail := ""
		if _, bad := failures[p.Name]; bad {
			fail = " (a later round FAILED)"
		}
		if p.Name == bench.HoldPeers[0].Name {
			floor = total
		}
		over := "–"
		if !math.IsNaN(floor) && p.Name != bench.HoldPeers[0].Name {
			over = fmt.Sprintf("%+.1f KiB", (total-floor)/1024)
		}
		fmt.Printf("| %s | %s (%.1f KiB) | %s | %s | %s | %s | %.2f | %s | %s | %d–%d | %d/%d%s |\n",
			p.Name, commas(total), total/1024, over,
			commas(per(func(r bench.HoldResult) float64 { return float64(r.HeapInuse) })),
			commas(per(func(r bench.HoldResult) float64 { return float64(r.StackInuse) })),
			commas(per(func(r bench.HoldResult) float64 { return float64(r.HeapAlloc) })),
			per(func(r bench.HoldResult) float64 { return float64(r.Goroutines) }),
			open,
			commas(per(func(r bench.HoldResult) float64 { return float64(r.OpenAlloc) })),
			tmin, tmax, verified, len(rs)*(*n), fail)
	}
	fmt.Println()
	fmt.Printf("bytes/stream = Δ(HeapInuse + StackInuse) / N between the reading with all N streams open and at rest (the server's ticks paused for the reading, so no goroutine is at work on a grown stack) and the reading before the first (each after four runtime.GC); over the floor = bytes/stream − that of %s; heap = ΔHeapInuse, stack = ΔStackInuse, live heap = ΔHeapAlloc (objects only, without span slack).\n", bench.HoldPeers[0].Name)
	fmt.Println("goroutines/stream = ΔNumGoroutine / N (the consuming goroutine is one of them). time to open N = first stream launched → all N have their opening content. alloc to open = ΔTotalAlloc / N over the same interval (GC pressure; includes the tick chunks that arrive meanwhile).")
	fmt.Println("Client process only: the server is cmd/holdserver, another process; each peer runs in a fresh process after one warm-up stream. Kernel socket buffers are not included.")
	fmt.Println("\nPeers:")
	for _, p := range sel {
		fmt.Printf("- `%s`: %s\n", p.Name, p.About)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
}

// measure starts a holdserver, runs one child for peer against it and returns
// the child's result.
func measure(self, server, peer string, n int, tick, hold time.Duration, profile string) (bench.HoldResult, error) {
	var res bench.HoldResult
	limit := time.Duration(120+n/20) * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()

	srv := exec.CommandContext(ctx, server, "-tick", tick.String(), "-streams", strconv.Itoa(n))
	srv.Stderr = os.Stderr
	stdin, err := srv.StdinPipe()
	if err != nil {
		return res, err
	}
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return res, err
	}
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() {
		stdin.Close() // holdserver exits when its stdin closes
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = srv.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return res, fmt.Errorf("holdserver: %w", err)
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.") && !strings.HasPrefix(url, "http://[::1]") {
		return res, fmt.Errorf("holdserver printed %q", line)
	}

	cmd := exec.CommandContext(ctx, self, "-child", peer, "-url", url, "-n", strconv.Itoa(n), "-hold", hold.String(), "-profile", profile)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return res, fmt.Errorf("child: %w", err)
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
		return res, fmt.Errorf("child printed %q: %w", out, err)
	}
	return res, nil
}

func runChild(name, url string, n int, hold time.Duration, profile string) int {
	var whileOpen func()
	if profile != "" {
		runtime.MemProfileRate = 1
		whileOpen = func() {
			for _, prof := range []struct {
				kind, file string
				debug      int
			}{{"heap", ".heap.pprof", 0}, {"goroutine", ".goroutines.txt", 1}} {
				f, err := os.Create(filepath.Join(profile, name+prof.file))
				if err == nil {
					err = pprof.Lookup(prof.kind).WriteTo(f, prof.debug)
					f.Close()
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "streams: %s: %v\n", prof.kind, err)
				}
			}
		}
	}
	var p *bench.HoldPeer
	for i := range bench.HoldPeers {
		if bench.HoldPeers[i].Name == name {
			p = &bench.HoldPeers[i]
		}
	}
	if p == nil {
		fmt.Fprintf(os.Stderr, "streams: no peer %q\n", name)
		return 2
	}
	if _, err := bench.RaiseNofile(uint64(n) + 256); err != nil {
		fmt.Fprintf(os.Stderr, "streams: %s: %v\n", name, err)
		return 1
	}
	res, err := bench.MeasureHold(*p, url, n, hold, whileOpen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "streams: %v\n", err)
		return 1
	}
	b, _ := json.Marshal(res)
	fmt.Printf("%s\n", b)
	return 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func commas(f float64) string {
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

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
