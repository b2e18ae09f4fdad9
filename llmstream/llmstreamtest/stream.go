package llmstreamtest

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

var (
	keepAliveComment = []byte(": keep-alive\n\n")
	doneEvent        = []byte("data: [DONE]\n\n")
)

// streamWriter writes events to one response, flushing each, so a client
// reads them as they are written rather than when a buffer fills.
type streamWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	ctx   context.Context // the request's: ends when the client goes away
	done  <-chan struct{} // closed by Server.Close
	delay time.Duration
}

// write writes b and flushes; false means the client is gone.
func (sw *streamWriter) write(b []byte) bool {
	if _, err := sw.w.Write(b); err != nil {
		return false
	}
	return sw.rc.Flush() == nil
}

// pause waits the event delay; false means the wait was cut short because
// the client went away or the server closed.
func (sw *streamWriter) pause() bool {
	if sw.delay <= 0 {
		return true
	}
	t := time.NewTimer(sw.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-sw.ctx.Done():
	case <-sw.done:
	}
	return false
}

// stall blocks until the client goes away or the server closes.
func (sw *streamWriter) stall() {
	select {
	case <-sw.ctx.Done():
	case <-sw.done:
	}
}

// stream writes the turn's events with its keep-alives and stream fault,
// then [DONE] unless the fault ends the stream otherwise.
func (sw *streamWriter) stream(r *renderer, evs []event) {
	t := r.turn
	f := t.Fault
	h := sw.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	if ct, ok := r.wire.(interface{ contentType() string }); ok {
		h.Set("Content-Type", ct.contentType()) // frames, not SSE
	}
	h.Set("Cache-Control", "no-cache")
	sw.w.WriteHeader(http.StatusOK)
	if sw.rc.Flush() != nil {
		return
	}
	keepAlive := r.wire.keepAlive()
	for range t.KeepAlive {
		if !sw.write(keepAlive) {
			return
		}
	}
	n := len(evs)
	if f.Kind == FaultTruncate {
		n = min(f.After, firstFinal(evs))
	}
	for i := range n {
		if i == f.After && !sw.strike(r, f) {
			return
		}
		if i > 0 {
			if !sw.pause() {
				return
			}
			if t.KeepAlive > 0 && !sw.write(keepAlive) {
				return
			}
		}
		if !sw.write(evs[i].data) {
			return
		}
	}
	if f.Kind == FaultTruncate {
		return
	}
	if f.After >= len(evs) && !sw.strike(r, f) {
		return
	}
	if end := r.wire.end(); end != nil {
		sw.write(end)
	}
}

// firstFinal returns the index of the first event that carries a finish
// reason, len(evs) if none does.
func firstFinal(evs []event) int {
	for i, e := range evs {
		if e.final {
			return i
		}
	}
	return len(evs)
}

// strike injects stream fault f; false means the stream ends here.
func (sw *streamWriter) strike(r *renderer, f Fault) bool {
	_, chat := r.wire.(chatWire)
	switch f.Kind {
	case FaultErrorEvent:
		sw.write(r.wire.errorEvent(r, f))
	case FaultErrorFinish:
		if !chat {
			sw.write(r.wire.errorEvent(r, f)) // OpenRouter's form is chat's alone
			return false
		}
		sw.write(r.errorFinishEvent(f))
	case FaultErrorLine:
		if !chat {
			sw.write(r.wire.errorEvent(r, f)) // llama.cpp's form is chat's alone
			return false
		}
		sw.write(errorLine(f))
	case FaultCut:
		if c, ok := r.wire.(interface{ cutFrame(*renderer) []byte }); ok {
			sw.write(c.cutFrame(r)) // a connection cut inside a frame
		}
		// The documented way to make net/http drop the connection without
		// ending the chunked body, and without logging a stack trace.
		panic(http.ErrAbortHandler)
	case FaultStall:
		sw.stall()
		return false
	case FaultMalformed:
		return sw.write(r.wire.malformed(r))
	default:
		return true
	}
	if !chat {
		return false // an in-stream error ends these dialects' streams
	}
	sw.write(doneEvent)
	return false
}

// errorObject is the OpenAI error object of a fault.
func errorObject(f Fault) object {
	return object{{"message", f.message()}, {"type", f.errType()}, {"param", nil}, {"code", f.code()}}
}

// errorBody is the JSON body of an HTTP error answer.
func errorBody(f Fault) []byte {
	b, err := json.Marshal(object{{"error", errorObject(f)}})
	if err != nil {
		// Only Code could fail, and Turn.check has validated it.
		b = []byte(`{"error":{"message":"llmstreamtest: unencodable fault"}}`)
	}
	return b
}

// errorEvent is the in-stream error event; vLLM's is spaced the Python way
// and carries "object":"error".
func (r *renderer) errorEvent(f Fault) []byte {
	if r.flavor != VLLM {
		return r.encode(object{{"error", errorObject(f)}})
	}
	o := object{{"object", "error"}, {"message", f.message()}, {"type", f.errType()}, {"param", nil}, {"code", f.code()}}
	b, err := json.Marshal(object{{"error", o}})
	if err != nil && r.err == nil {
		r.err = err
	}
	return dataEvent(pythonSpacing(b))
}

// errorFinishEvent is OpenRouter's in-stream failure: a chunk with a
// top-level error and finish_reason "error".
func (r *renderer) errorFinishEvent(f Fault) []byte {
	c := object{{"index", 0}, {"delta", object{{"content", ""}}}, {"logprobs", nil},
		{"finish_reason", "error"}, {"native_finish_reason", "error"}}
	o := object{{"id", r.id()}, {"object", "chat.completion.chunk"}, {"created", created}, {"model", r.model},
		{"provider", "llmstreamtest"}, {"error", errorObject(f)}, {"choices", []any{c}}}
	return r.encode(o)
}

// errorLine is llama.cpp's non-standard "error:" SSE line.
func errorLine(f Fault) []byte {
	b, err := json.Marshal(object{{"code", f.code()}, {"message", f.message()}, {"type", f.errType()}})
	if err != nil {
		b = []byte(`{"message":"llmstreamtest: unencodable fault"}`)
	}
	out := append([]byte("error: "), b...)
	return append(out, '\n', '\n')
}

// malformedEvent is a chunk event cut off inside a string: not JSON.
func (r *renderer) malformedEvent() []byte {
	return []byte(`data: {"id":"` + r.id() + `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"unterminated` + "\n\n")
}
