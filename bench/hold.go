package bench

// hold.go: the held stream — what the server sends on it and what a client
// must assemble from it — and HoldServer, which holds many at once.
//
// A held stream is what a gateway or agent server pays for while a model
// thinks: HoldServer answers each chat-completion POST with a realistic
// opening (a role chunk and 14 short content chunks), then sends one small
// content chunk every Tick until told to finish (POST /finish), then a
// finish chunk, a usage chunk and data: [DONE]. hold_measure.go opens N of
// them with one client peer (hold_peers.go) and reads the client process's
// memory and goroutines; cmd/streams runs each peer in a fresh process
// against cmd/holdserver, another process, so only the client is counted.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HoldTick is the default interval between the chunks of a held stream.
const HoldTick = 500 * time.Millisecond

// HoldWarmupID is the stream every measurement opens first (request encoding,
// decoder and type caches warmed before the "before" reading); the server
// finishes it right after its opening chunks.
const HoldWarmupID = "warmup"

// HoldID names the i-th measured stream; it is the user message's content,
// and the server writes it into the opening content, so crossed streams fail
// verification.
func HoldID(i int) string { return "hold-" + strconv.Itoa(i) }

// holdOpening is the opening content of stream id, one string per chunk.
func holdOpening(id string) []string {
	return []string{"Hello", "!", " This", " is", " stream", " " + id, ",", " held", " open", " until", " told", " to", " finish", "."}
}

func holdTickText(i int) string { return " tick " + strconv.Itoa(i) }

func holdOpeningLen(id string) int {
	n := 0
	for _, s := range holdOpening(id) {
		n += len(s)
	}
	return n
}

// The server writes a stream with these three; holdStreamBytes replays them.
func holdWriteOpening(cw *chunkWriter, id string) {
	cw.role()
	for _, s := range holdOpening(id) {
		cw.content(s, false)
	}
}

func holdWriteTick(cw *chunkWriter, n int) { cw.content(holdTickText(n), false) }

func holdWriteEnd(cw *chunkWriter, id string, ticks int) {
	cw.delta(nil, "stop")
	cw.usage(12, len(holdOpening(id))+ticks)
	cw.done()
}

func holdChunkWriter(id string) *chunkWriter { return &chunkWriter{id: "chatcmpl-" + id} }

// holdOpeningBytes is the SSE bytes the server sends first on stream id:
// the role chunk and the opening content chunks.
func holdOpeningBytes(id string) []byte {
	cw := holdChunkWriter(id)
	holdWriteOpening(cw, id)
	return cw.buf.Bytes()
}

// holdStreamBytes is the whole body of stream id when it was sent ticks tick
// chunks.
func holdStreamBytes(id string, ticks int) []byte {
	cw := holdChunkWriter(id)
	holdWriteOpening(cw, id)
	for i := 1; i <= ticks; i++ {
		holdWriteTick(cw, i)
	}
	holdWriteEnd(cw, id, ticks)
	return cw.buf.Bytes()
}

// HoldWant is the message a client of stream id must assemble when the server
// sent ticks tick chunks before finishing.
func HoldWant(id string, ticks int) Message {
	var b strings.Builder
	for _, s := range holdOpening(id) {
		b.WriteString(s)
	}
	for i := 1; i <= ticks; i++ {
		b.WriteString(holdTickText(i))
	}
	return Message{Role: "assistant", Content: b.String(), FinishReason: "stop"}
}

func checkHold(id string, ticks int, m Message) error {
	return CheckMessage(&Corpus{Name: id, Want: HoldWant(id, ticks)}, m)
}

// ---------------------------------------------------------------------------
// server

// HoldServer is the held-stream chat-completion server (see the file comment).
//
//	POST /v1/chat/completions  {"stream":true,"messages":[...,{"content":ID}]}: the held stream ID
//	GET  /stats                {"open":N}: streams held right now
//	POST /finish               finish every held stream; answers HoldFinish once all have sent [DONE]
//	POST /pause, POST /resume  skip the tick chunks meanwhile (answers HoldStats)
//
// The pause is for the memory reading: with a chunk arriving somewhere
// every few microseconds, some goroutines are always at work on a grown
// stack when the reading's GCs run, and which ones decides a few KiB per
// stream from one reading to the next; a held stream at rest is what the
// reading is meant to see. A skipped tick is not sent and not counted, so
// verification is unchanged.
type HoldServer struct {
	Tick time.Duration

	paused atomic.Bool
	mu     sync.Mutex
	finish chan struct{} // closed by /finish, then replaced
	open   int
	ticks  map[string]int // tick chunks sent, per finished stream
	errs   int            // streams that ended early (write error, client gone)
}

// HoldStats is the answer to GET /stats.
type HoldStats struct {
	Open int `json:"open"`
}

// HoldFinish is the answer to POST /finish.
type HoldFinish struct {
	Ticks  map[string]int `json:"ticks"`  // stream id -> tick chunks it was sent
	Errors int            `json:"errors"` // streams that ended early
}

// NewHoldServer returns a server whose held streams send a chunk every tick.
func NewHoldServer(tick time.Duration) *HoldServer {
	return &HoldServer{Tick: tick, finish: make(chan struct{}), ticks: map[string]int{}}
}

func (s *HoldServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.serveStream(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/finish":
		s.serveFinish(w)
	case r.Method == http.MethodPost && (r.URL.Path == "/pause" || r.URL.Path == "/resume"):
		s.paused.Store(r.URL.Path == "/pause")
		fallthrough
	case r.URL.Path == "/stats":
		s.mu.Lock()
		st := HoldStats{Open: s.open}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	default:
		http.NotFound(w, r)
	}
}

type holdRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (s *HoldServer) serveStream(w http.ResponseWriter, r *http.Request) {
	var req holdRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Stream || len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Content == "" {
		http.Error(w, `{"error":{"message":"want a streaming chat completion whose last message content is the stream id"}}`, http.StatusBadRequest)
		return
	}
	id := req.Messages[len(req.Messages)-1].Content
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no flusher", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	// The server closes first after [DONE], so TIME_WAIT sockets pile up on
	// its side, not on the client's ephemeral ports (STREAMS x peers x rounds
	// connections within a minute). No effect while the stream is open.
	h.Set("Connection", "close")
	w.WriteHeader(http.StatusOK)

	s.mu.Lock()
	finish := s.finish
	s.open++
	s.mu.Unlock()
	if id == HoldWarmupID {
		finish = closedChan
	}
	n, ok := s.hold(w, fl, id, finish, r.Context())
	s.mu.Lock()
	s.open--
	if ok {
		s.ticks[id] = n
	} else {
		s.errs++
	}
	s.mu.Unlock()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// hold writes the opening, then one tick chunk per Tick until finish is
// closed, then the end of the stream. It returns the tick chunks sent and
// whether the whole stream was written.
func (s *HoldServer) hold(w io.Writer, fl http.Flusher, id string, finish <-chan struct{}, ctx context.Context) (int, bool) {
	cw := holdChunkWriter(id)
	send := func() bool {
		_, err := w.Write(cw.buf.Bytes())
		cw.buf.Reset()
		if err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	holdWriteOpening(cw, id)
	if !send() {
		return 0, false
	}
	t := time.NewTicker(s.Tick)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-finish:
			holdWriteEnd(cw, id, n)
			return n, send()
		case <-t.C:
			if s.paused.Load() {
				continue
			}
			n++
			holdWriteTick(cw, n)
			if !send() {
				return n, false
			}
		case <-ctx.Done():
			return n, false
		}
	}
}

func (s *HoldServer) serveFinish(w http.ResponseWriter) {
	s.mu.Lock()
	close(s.finish)
	s.finish = make(chan struct{})
	s.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s.mu.Lock()
		open := s.open
		s.mu.Unlock()
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			http.Error(w, fmt.Sprintf("%d streams did not finish", open), http.StatusInternalServerError)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.mu.Lock()
	res := HoldFinish{Ticks: s.ticks, Errors: s.errs}
	s.ticks, s.errs = map[string]int{}, 0
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}
