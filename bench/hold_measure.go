package bench

// hold_measure.go: MeasureHold, N concurrent held streams with one peer,
// the process's memory and goroutines read before and with all of them
// open, every stream verified at the end.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// HoldResult is one measurement of N concurrent open streams. The memory and
// goroutine fields are whole-process deltas between the reading with all N
// streams open and at rest (the server's ticks paused, see HoldServer) and
// the reading before the first was opened (each reading after four forced
// GCs).
type HoldResult struct {
	Peer         string  `json:"peer"`
	N            int     `json:"n"`
	OpenSeconds  float64 `json:"open_s"`      // first stream launched -> all N have their opening content
	HeapInuse    int64   `json:"heap_inuse"`  // MemStats.HeapInuse delta
	StackInuse   int64   `json:"stack_inuse"` // MemStats.StackInuse delta
	HeapAlloc    int64   `json:"heap_alloc"`  // MemStats.HeapAlloc delta (live objects only)
	Goroutines   int     `json:"goroutines"`  // runtime.NumGoroutine delta
	OpenAlloc    int64   `json:"open_alloc"`  // MemStats.TotalAlloc delta: bytes allocated while opening
	ServerOpen   int     `json:"server_open"` // streams the server held right after the reading
	HeldSeconds  float64 `json:"held_s"`      // all open -> finish requested
	FinishSecond float64 `json:"finish_s"`    // finish requested -> every client done
	TicksMin     int     `json:"ticks_min"`   // tick chunks per stream (server's count), min and max
	TicksMax     int     `json:"ticks_max"`
	Verified     int     `json:"verified"` // streams whose message matched byte for byte
}

// holdQuiet is how long the reading waits after the server paused its ticks:
// long enough for the chunks already sent to be read.
const holdQuiet = 200 * time.Millisecond

type holdSnap struct {
	ms         runtime.MemStats
	goroutines int
}

func holdSnapshot() holdSnap {
	// The second GC also empties sync.Pool victim caches. A GC halves at
	// most once each goroutine stack that uses under a quarter of it, so a
	// stack grown to 32 or 64 KiB by some burst of work needs more than two
	// to come back to where it rests: with two, the stack column moved by
	// several KiB per stream between runs of the same code.
	for range 4 {
		runtime.GC()
	}
	var s holdSnap
	s.goroutines = runtime.NumGoroutine()
	runtime.ReadMemStats(&s.ms)
	return s
}

// settleGoroutines waits (up to 2 s) until the goroutine count stops changing,
// e.g. after idle connections were closed.
func settleGoroutines() {
	last := runtime.NumGoroutine()
	for range 40 {
		time.Sleep(50 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			return
		}
		last = n
	}
}

// MeasureHold opens n concurrent streams with p against the HoldServer at
// baseURL, each consumed in its own goroutine; waits until all have their
// opening content; pauses the server's ticks, reads memory and goroutines
// and resumes them; calls whileOpen (if not nil; e.g. to write a heap
// profile); keeps the streams open for at least minHold more; finishes them all and verifies every message byte for
// byte against the server's tick counts.
func MeasureHold(p HoldPeer, baseURL string, n int, minHold time.Duration, whileOpen func()) (HoldResult, error) {
	res := HoldResult{Peer: p.Name, N: n}
	open := p.New(baseURL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	m, err := open(ctx, HoldWarmupID, func() {})
	if err == nil {
		err = checkHold(HoldWarmupID, 0, m)
	}
	if err != nil {
		return res, fmt.Errorf("%s: warm-up stream: %w", p.Name, err)
	}
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.CloseIdleConnections() // in case the warm-up left a keep-alive connection (and its two goroutines)
	}
	settleGoroutines()
	before := holdSnapshot()

	type outcome struct {
		m   Message
		err error
	}
	out := make([]outcome, n)
	var done sync.WaitGroup
	var nready atomic.Int64
	allReady := make(chan struct{})
	failed := make(chan struct{})
	var failOnce sync.Once
	start := time.Now()
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			var got atomic.Bool
			m, err := open(ctx, HoldID(i), func() {
				got.Store(true)
				if nready.Add(1) == int64(n) {
					close(allReady)
				}
			})
			out[i] = outcome{m, err}
			if !got.Load() {
				failOnce.Do(func() { close(failed) })
			}
		}()
	}
	// abort cancels every stream, waits for their goroutines and reports err,
	// or (err == nil) the first stream's error.
	abort := func(err error) (HoldResult, error) {
		cancel()
		if !waitTimeout(&done, 10*time.Second) {
			return res, fmt.Errorf("%s: streams did not stop 10 s after cancel (%v)", p.Name, err)
		}
		if err != nil {
			return res, err
		}
		for i, o := range out {
			if o.err != nil {
				return res, fmt.Errorf("%s: stream %s: %w", p.Name, HoldID(i), o.err)
			}
		}
		return res, fmt.Errorf("%s: a stream ended before its opening content", p.Name)
	}
	timeout := time.NewTimer(time.Duration(60+n/50) * time.Second)
	select {
	case <-allReady:
		timeout.Stop()
	case <-failed:
		timeout.Stop()
		return abort(nil)
	case <-timeout.C:
		return abort(fmt.Errorf("%s: only %d of %d streams opened within the timeout", p.Name, nready.Load(), n))
	}
	res.OpenSeconds = time.Since(start).Seconds()
	readyAt := time.Now()
	// control requests use their own transport; its connection is closed
	// before the reading, so it counts nothing there
	ctl := &http.Client{Transport: &http.Transport{}, Timeout: 90 * time.Second}
	defer ctl.CloseIdleConnections()
	var st HoldStats
	if err := holdCall(ctl, http.MethodPost, baseURL+"/pause", &st); err != nil {
		return abort(fmt.Errorf("pause: %w", err))
	}
	ctl.CloseIdleConnections()
	// Ticks in flight are read and every goroutine parks again.
	time.Sleep(holdQuiet)
	settleGoroutines()
	after := holdSnapshot()
	if err := holdCall(ctl, http.MethodPost, baseURL+"/resume", &st); err != nil {
		return abort(fmt.Errorf("resume: %w", err))
	}
	resumedAt := time.Now() // minHold of ticks from here, for the verification
	res.HeapInuse = int64(after.ms.HeapInuse) - int64(before.ms.HeapInuse)
	res.StackInuse = int64(after.ms.StackInuse) - int64(before.ms.StackInuse)
	res.HeapAlloc = int64(after.ms.HeapAlloc) - int64(before.ms.HeapAlloc)
	res.OpenAlloc = int64(after.ms.TotalAlloc - before.ms.TotalAlloc)
	res.Goroutines = after.goroutines - before.goroutines
	if whileOpen != nil {
		whileOpen()
	}

	select {
	case <-failed:
		return abort(nil)
	default:
	}

	if err := holdCall(ctl, http.MethodGet, baseURL+"/stats", &st); err != nil {
		return abort(fmt.Errorf("stats: %w", err))
	}
	res.ServerOpen = st.Open
	if st.Open != n {
		return abort(fmt.Errorf("%s: the server holds %d streams, want %d", p.Name, st.Open, n))
	}
	if d := minHold - time.Since(resumedAt); d > 0 {
		time.Sleep(d)
	}
	res.HeldSeconds = time.Since(readyAt).Seconds()
	finStart := time.Now()
	var fin HoldFinish
	if err := holdCall(ctl, http.MethodPost, baseURL+"/finish", &fin); err != nil {
		return abort(fmt.Errorf("finish: %w", err))
	}
	if !waitTimeout(&done, 60*time.Second) {
		return abort(fmt.Errorf("%s: streams still running 60 s after finish", p.Name))
	}
	res.FinishSecond = time.Since(finStart).Seconds()
	if fin.Errors != 0 {
		return res, fmt.Errorf("%s: the server saw %d streams end early", p.Name, fin.Errors)
	}
	res.TicksMin = int(^uint(0) >> 1)
	for i, o := range out {
		id := HoldID(i)
		if o.err != nil {
			return res, fmt.Errorf("%s: stream %s: %w", p.Name, id, o.err)
		}
		ticks, ok := fin.Ticks[id]
		if !ok {
			return res, fmt.Errorf("%s: the server did not finish stream %s", p.Name, id)
		}
		if err := checkHold(id, ticks, o.m); err != nil {
			return res, fmt.Errorf("%s: %w", p.Name, err)
		}
		res.TicksMin = min(res.TicksMin, ticks)
		res.TicksMax = max(res.TicksMax, ticks)
		res.Verified++
	}
	return res, nil
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
		return true
	case <-time.After(d):
		return false
	}
}

func holdCall(c *http.Client, method, url string, v any) error {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, bytes.TrimSpace(b))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
