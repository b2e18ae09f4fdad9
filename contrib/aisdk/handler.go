package aisdk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/sse"
)

// Handler serves an [agentloop.Loop] to the AI SDK's chat UI (useChat, or
// Chat with DefaultChatTransport, at api "/api/chat" say) over the UI
// message stream protocol. Mount it at the api path and below it
// (mux.Handle("/api/chat", h); mux.Handle("/api/chat/", h)):
//
//   - POST {api}: the chat request. The run goes on in the background,
//     its chunks kept in the [Store]; the response follows them live.
//   - GET {api}/{chatID}/stream: DefaultChatTransport's resumeStream. The
//     chat's run, if one goes on, replayed from its start and then
//     followed live; 204 when none goes on.
//   - GET {api}/{chatID}: {"messages": [...]}, the chat's UI messages as
//     this server sent them (for a page that reloads); 404 when unknown.
//
// The Handler keeps the conversation itself (server-side state, not
// signatures): a POST is accepted only when its history is the one this
// server sent, message for message, followed by one new user message or
// by answers to exactly the calls waiting for approval; anything else is
// refused and nothing runs: 400 for a malformed request (bad JSON, a chat
// id other than 1 to 128 letters, digits, '-' or '_', a trigger other than
// submit-message, a new message that is not the user's text), 409 for one
// that does not fit the chat as this server holds it (a history it did not
// send, an approval for a call not pending, a run of the chat going on),
// 413 for a body over [WithMaxBodyBytes], 503 past [WithMaxRuns] or after
// Close. The body says why, without echoing the request. The loop always
// runs on the conversation the server kept, never on the posted one.
//
// A Handler does not authenticate: wrap it, and treat the chat id as the
// key to the chat. It is safe for concurrent use. [Handler.Close] ends it.
type Handler struct {
	loop   agentloop.Loop
	cfg    config
	cfgErr error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[string]bool
	closed  bool
}

// NewHandler returns a Handler that runs loop for each chat. The Handler
// sets the Loop's Approve and Hooks on its own copy: a call that needs
// approval is put to the browser (when loop.Approve is set, it decides
// first, and only the calls it pauses go to the browser), and loop.Hooks
// are called after the Handler's own. A bad option is reported by every
// request (500) rather than here.
func NewHandler(loop agentloop.Loop, opts ...Option) *Handler {
	cfg, err := newConfig(opts)
	ctx, cancel := context.WithCancel(context.Background())
	return &Handler{loop: loop, cfg: cfg, cfgErr: err, ctx: ctx, cancel: cancel, running: map[string]bool{}}
}

// Close stops the runs going on (each ends its stream with an error
// chunk), waits for them to save their chats, and refuses later POSTs
// with 503. It is idempotent.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// ServeHTTP serves the chat API; see [Handler].
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfgErr != nil {
		http.Error(w, h.cfgErr.Error(), http.StatusInternalServerError)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet:
		h.serveGet(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		fail(w, refuse(http.StatusMethodNotAllowed, "only GET and POST are served"))
	}
}

func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(strings.TrimSuffix(r.URL.Path, "/"), "/")
	id, stream := segs[len(segs)-1], false
	if id == "stream" && len(segs) >= 2 {
		id, stream = segs[len(segs)-2], true
	}
	if !validID(id) {
		fail(w, refuse(http.StatusNotFound, "no such chat"))
		return
	}
	if !stream {
		chat, err := h.cfg.store.Load(r.Context(), id)
		if err != nil {
			fail(w, refuse(http.StatusNotFound, "no such chat"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		ui := chat.UI
		if ui == nil {
			ui = []UIMessage{}
		}
		_ = json.NewEncoder(w).Encode(struct {
			Messages []UIMessage `json:"messages"`
		}{ui})
		return
	}
	first, err := h.cfg.store.Read(r.Context(), id, 0)
	if err != nil || first.Done {
		// Nothing goes on: the client keeps what it has.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.follow(r.Context(), w, id)
}

func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	req, rerr := readRequest(w, r, h.cfg.maxBody)
	if rerr != nil {
		fail(w, rerr)
		return
	}
	if rerr := h.reserve(req.ID); rerr != nil {
		fail(w, rerr)
		return
	}
	started := false
	defer func() {
		if !started {
			h.release(req.ID)
		}
	}()
	chat, err := h.cfg.store.Load(r.Context(), req.ID)
	if err != nil && !errors.Is(err, ErrChatNotFound) {
		fail(w, refuse(http.StatusServiceUnavailable, "the chat could not be loaded"))
		return
	}
	t, rerr := checkPosted(req.Messages, chat)
	if rerr != nil {
		fail(w, rerr)
		return
	}
	j := h.job(chat, t)
	ctx := context.WithoutCancel(r.Context())
	if err := h.cfg.store.Save(ctx, req.ID, Chat{UI: t.ui, State: chat.State}); err != nil {
		fail(w, refuse(http.StatusServiceUnavailable, "the chat could not be saved"))
		return
	}
	if err := h.cfg.store.Begin(ctx, req.ID); err != nil {
		fail(w, refuse(http.StatusServiceUnavailable, "the stream could not be begun"))
		return
	}
	started = true
	go h.run(req.ID, j)
	h.follow(r.Context(), w, req.ID)
}

// reserve marks a run going on for the chat, or refuses.
func (h *Handler) reserve(id string) *refusal {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return refuse(http.StatusServiceUnavailable, "the server is shutting down")
	case h.running[id]:
		return refuse(http.StatusConflict, "a run of this chat goes on; resume its stream")
	case len(h.running) >= h.cfg.maxRuns:
		return refuse(http.StatusServiceUnavailable, "too many runs go on; try again later")
	}
	h.running[id] = true
	h.wg.Add(1) // under the lock, so never after Close began to wait
	return nil
}

// release ends what reserve began.
func (h *Handler) release(id string) {
	h.mu.Lock()
	delete(h.running, id)
	h.mu.Unlock()
	h.wg.Done()
}

// job is one run to do.
type job struct {
	ui        []UIMessage
	messageID string
	msgs      []llmstream.Message // for Run
	state     *agentloop.State    // for Resume
	decisions map[string]agentloop.Decision
}

func (h *Handler) job(chat Chat, t turn) job {
	j := job{ui: t.ui}
	if t.decisions != nil {
		j.state, j.decisions = chat.State, t.decisions
		j.messageID = t.ui[len(t.ui)-1].ID
		return j
	}
	j.messageID = newID()
	if chat.State != nil {
		j.msgs = append(j.msgs, chat.State.Messages...)
	} else if h.cfg.system != "" {
		j.msgs = append(j.msgs, llmstream.Message{Role: "system", Content: h.cfg.system})
	}
	j.msgs = append(j.msgs, *t.user)
	return j
}

// run runs the loop for a chat, writing its stream, and saves the chat.
func (h *Handler) run(chatID string, j job) {
	defer h.release(chatID)
	ctx := context.WithoutCancel(h.ctx) // the store outlives a shutdown
	// j.ui is the chat the POST saved, which the Store may keep and a GET
	// may read meanwhile (Store.Save: the caller does not change it); the
	// fold appends to the slice and writes into its last message's parts.
	v := &view{msgs: slices.Clone(j.ui)}
	if n := len(v.msgs); n > 0 {
		v.msgs[n-1].Parts = slices.Clone(v.msgs[n-1].Parts)
	}
	var appendErr error
	send := func(c *Chunk) {
		v.fold(c)
		b, err := json.Marshal(c)
		if err == nil && appendErr == nil {
			appendErr = h.cfg.store.Append(ctx, chatID, b)
		}
	}
	e := newEmitter(send)
	loop := h.loop
	loop.Hooks = e.hooks(h.loop.Hooks)
	loop.Approve = browserApproval(h.loop.Approve, v)
	e.start(j.messageID)
	var res agentloop.Result
	var err error
	if j.state != nil {
		msgs := j.state.Messages
		e.await(msgs[len(msgs)-1].ToolCalls)
		res, err = loop.Resume(h.ctx, *j.state, j.decisions)
	} else {
		res, err = loop.Run(h.ctx, j.msgs)
	}
	e.end(res, err, h.cfg.errText)
	st := res.State
	if st.Messages == nil { // the Loop or the input was invalid
		st = agentloop.State{Messages: res.Messages}
	}
	if serr := h.cfg.store.Save(ctx, chatID, Chat{UI: v.msgs, State: &st}); serr != nil && appendErr == nil {
		b, _ := json.Marshal(&Chunk{Type: chunkError, ErrorText: "the chat could not be saved; reload it"})
		_ = h.cfg.store.Append(ctx, chatID, b)
	}
	_ = h.cfg.store.End(ctx, chatID)
}

// browserApproval is the Loop's Approve: decide puts a call to the
// browser by pausing it, after first, when set, decided otherwise. A call
// whose id names another tool's part in the message the browser holds is
// refused (an error, so nothing of its turn runs): the AI SDK folds a
// call into the part of the same id, so the browser would ask to approve
// it as that other tool's call. v is read on the run's goroutine, where
// the loop calls Approve and the hooks that fold it.
func browserApproval(first func(context.Context, agentloop.Call) (agentloop.Decision, error), v *view) func(context.Context, agentloop.Call) (agentloop.Decision, error) {
	return func(ctx context.Context, c agentloop.Call) (agentloop.Decision, error) {
		if first != nil {
			d, err := first(ctx, c)
			if err != nil || d.Verdict != agentloop.Pause {
				return d, err
			}
		}
		if n := len(v.msgs); n > 0 {
			if p := findToolPart(&v.msgs[n-1], c.ID); p != nil && p.toolName() != c.Name {
				return agentloop.Decision{}, fmt.Errorf("call %s to %s has the id of an earlier %s call in this message, so the browser would show it as that call", c.ID, c.Name, p.toolName())
			}
		}
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}
}

// follow writes the chat's stream to w, replaying it from its start and
// then following it live, until it ends or the client goes.
func (h *Handler) follow(ctx context.Context, w http.ResponseWriter, chatID string) {
	sse.SetHeaders(w.Header())
	w.Header().Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
	w.WriteHeader(http.StatusOK)
	sw := sse.NewWriter(w)
	idle := time.NewTimer(h.cfg.keepAlive)
	defer idle.Stop()
	for from := 0; ; {
		r, err := h.cfg.store.Read(ctx, chatID, from)
		if err != nil {
			r = StreamRead{Done: true, Cut: true}
		}
		for _, c := range r.Chunks {
			if sw.WriteEvent(sse.Event{Data: c}) != nil {
				return
			}
		}
		from += len(r.Chunks)
		if r.Done {
			if r.Cut {
				b, _ := json.Marshal(&Chunk{Type: chunkError, ErrorText: "the stream is longer than the server keeps; reload the chat"})
				_ = sw.WriteEvent(sse.Event{Data: b})
			}
			_ = sw.WriteEvent(sse.Event{Data: []byte(doneData)})
			return
		}
		if len(r.Chunks) > 0 {
			idle.Reset(h.cfg.keepAlive)
		}
		select {
		case <-r.More:
		case <-ctx.Done():
			return
		case <-idle.C:
			if sw.WriteComment("") != nil {
				return
			}
			idle.Reset(h.cfg.keepAlive)
		}
	}
}

// newID returns a random id for an assistant message.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "msg-" + hex.EncodeToString(b[:])
}
