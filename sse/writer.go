package sse

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SetHeaders sets the response headers of an event stream on h: the
// text/event-stream content type, and the headers that keep caches and
// proxies from storing or buffering it (Cache-Control: no-cache, no-transform;
// X-Accel-Buffering: no, which nginx obeys). Call it before the first write.
// Other headers are left alone; no Connection header is set, since HTTP/2
// forbids it and HTTP/1.1 keeps the connection open anyway.
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}

// Writer writes server-sent events, each flushed to the client as soon as
// it is written. What it writes, a [Reader] (and any reader following the
// WHATWG rules) reads back as the same events: same Type, same ID, same
// Data, except that every line end in Data (LF, CRLF or CR) reads back
// as LF, since the format has no other.
//
// Every method checks its input before writing anything: text that cannot
// be written ([ErrInvalidField]) returns a [*FieldError] and writes
// nothing, and the Writer stays usable. An error of the underlying writer
// or of its flush is the Writer's last: it sticks, and every later call
// returns it.
//
// A Writer allocates nothing per event once its buffer has grown to the
// largest event written. It is not safe for concurrent use: one goroutine
// writes.
type Writer struct {
	w     io.Writer
	flush func() error
	buf   []byte
	err   error
}

// NewWriter returns a Writer that writes to w. When w is an
// http.ResponseWriter, each event is flushed with an
// http.ResponseController (so a wrapped ResponseWriter with an Unwrap
// method flushes too); otherwise with w's Flush() error or Flush() method,
// if it has one. A ResponseWriter that cannot flush makes the first write
// return http.ErrNotSupported. Call [SetHeaders] on the response's header
// first.
func NewWriter(w io.Writer) *Writer {
	sw := &Writer{w: w}
	switch f := w.(type) {
	case http.ResponseWriter:
		sw.flush = http.NewResponseController(f).Flush
	case interface{ Flush() error }:
		sw.flush = f.Flush
	case interface{ Flush() }:
		sw.flush = func() error { f.Flush(); return nil }
	}
	return sw
}

// WriteEvent writes ev as one event and flushes it: an "id" line when
// ev.ID is not empty, an "event" line when ev.Type is not empty, and one
// "data" line per line of ev.Data (one empty "data" line for empty Data,
// so the event is dispatched). An empty ID writes no id line, so a reader
// keeps the last ID it had; the format offers no way to send an ID and
// keep it empty other than a reset, which this method does not do.
//
// ev.ID must not hold CR, LF or NUL; ev.Type must not hold CR or LF; all
// three must be valid UTF-8. Otherwise the error is a [*FieldError] and
// nothing is written. ev.Data is not retained.
func (w *Writer) WriteEvent(ev Event) error {
	if w.err != nil {
		return w.err
	}
	if err := checkLine("id", ev.ID, true); err != nil {
		return err
	}
	if err := checkLine("event", ev.Type, false); err != nil {
		return err
	}
	if !utf8.Valid(ev.Data) {
		return &FieldError{Field: "data", Offset: invalidAt(string(ev.Data)), Reason: "invalid UTF-8"}
	}
	b := w.buf[:0]
	if ev.ID != "" {
		b = append(append(append(b, "id: "...), ev.ID...), '\n')
	}
	if ev.Type != "" {
		b = append(append(append(b, "event: "...), ev.Type...), '\n')
	}
	b = appendData(b, ev.Data)
	b = append(b, '\n')
	return w.send(b)
}

// WriteComment writes a comment line (": text") and flushes it. Readers
// ignore comments: an empty one is the usual keep-alive, which stops
// proxies and load balancers from closing an idle stream. text must not
// hold CR or LF and must be valid UTF-8; otherwise the error is a
// [*FieldError] and nothing is written.
func (w *Writer) WriteComment(text string) error {
	if w.err != nil {
		return w.err
	}
	if err := checkLine("comment", text, false); err != nil {
		return err
	}
	b := append(w.buf[:0], ':')
	if text != "" {
		b = append(append(b, ' '), text...)
	}
	return w.send(append(b, '\n'))
}

// send writes b in one call and flushes; the buffer is kept for the next
// event.
func (w *Writer) send(b []byte) error {
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	if w.flush != nil {
		if err := w.flush(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// appendData appends one "data: " line per line of d; CR, LF and CRLF all
// end a line.
func appendData(b, d []byte) []byte {
	for {
		i := indexLineEnd(d)
		if i < 0 {
			b = append(append(b, "data: "...), d...)
			return append(b, '\n')
		}
		b = append(append(b, "data: "...), d[:i]...)
		b = append(b, '\n')
		if d[i] == '\r' && i+1 < len(d) && d[i+1] == '\n' {
			i++
		}
		d = d[i+1:]
	}
}

// checkLine checks that s fits on one field line.
func checkLine(field, s string, noNUL bool) error {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return &FieldError{Field: field, Offset: i, Reason: "line break"}
	}
	if noNUL {
		if i := strings.IndexByte(s, 0); i >= 0 {
			// A reader ignores an id field holding NUL, so the ID
			// would be lost.
			return &FieldError{Field: field, Offset: i, Reason: "NUL byte"}
		}
	}
	if !utf8.ValidString(s) {
		return &FieldError{Field: field, Offset: invalidAt(s), Reason: "invalid UTF-8"}
	}
	return nil
}

// invalidAt returns the offset of the first byte of s that is not part of
// valid UTF-8.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return len(s)
}

// ErrInvalidField reports text a [Writer] cannot write as it is: a line
// break in an ID, an event type or a comment, a NUL in an ID, or invalid
// UTF-8 anywhere. The error returned is a [*FieldError] that unwraps to
// it; nothing was written.
var ErrInvalidField = errors.New("sse: field cannot be written")

// FieldError is the error for text a [Writer] cannot write. It unwraps to
// [ErrInvalidField].
type FieldError struct {
	// Field is "id", "event", "data" or "comment".
	Field string
	// Offset is the byte offset of the offending byte in the field's text.
	Offset int
	// Reason says what is there: "line break", "NUL byte" or "invalid UTF-8".
	Reason string
}

// Error names the field, the reason and the offset.
func (e *FieldError) Error() string {
	return "sse: cannot write " + e.Field + ": " + e.Reason + " at byte " + strconv.Itoa(e.Offset)
}

// Unwrap returns [ErrInvalidField].
func (e *FieldError) Unwrap() error { return ErrInvalidField }
