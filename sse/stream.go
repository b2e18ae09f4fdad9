package sse

import (
	"bytes"
	"io"
	"time"

	"github.com/airlock-go/airlock/internal/intern"
)

// stream is the interpretation state that Reader and Parser share: it takes
// complete lines, one at a time, and builds events from them.
type stream struct {
	cfg config

	// The pending event's data. The first data line is kept as a slice of
	// the input when the caller says the input stays put (aliased); only a
	// second data line, or input about to move (unalias), copies it into
	// data. A one-line event, the usual case, is never copied.
	data    []byte
	cur     []byte // the pending data: data, or the aliased input
	aliased bool
	hasData bool // a data field was seen: "data:" alone makes an empty event

	typ    string // the event type buffer; "" dispatches as "message"
	idBuf  string // the last event ID buffer
	lastID string // the last event ID string, set from idBuf at each blank line

	retry    time.Duration
	hasRetry bool

	// So that a type or unknown field name that repeats costs no
	// allocation; made at the first one (OpenAI streams have none).
	names *intern.Table

	ev Event // the event the last dispatch produced; Reader.NextRef hands out its address

	scratch []byte // a line with U+FFFD replacements, reused
	started bool   // the first line was seen (the BOM is only looked for there)
	done    bool   // the done sentinel ended the stream
}

// init configures a new stream by opts, and returns the first invalid
// option's error, which the first call reports.
func (s *stream) init(opts []Option) error {
	var err error
	s.cfg, err = newConfig(opts)
	return err
}

// line interprets one complete line, without its line end. bad is the
// index in line of its first ill-formed UTF-8 sequence, or negative when the
// caller checked that there is none (see validPrefix). aliasable says that
// line's bytes stay unchanged until unalias is called, so the data may point
// into them. It reports a dispatch with true, the event being in s.ev (kept
// there rather than returned, which is measurably faster). It returns io.EOF
// when the done sentinel ended the stream; any error ends the stream.
func (s *stream) line(line []byte, bad int, aliasable bool) (bool, error) {
	if !s.started {
		s.started = true
		if bytes.HasPrefix(line, []byte(bom)) {
			// A BOM is well-formed, so bad, if any, lies after it.
			line = line[len(bom):]
			bad -= len(bom)
		}
	}
	if n := len(line) + len(s.cur); n > s.cfg.max {
		return false, &EventSizeError{Size: n, Max: s.cfg.max}
	}
	if len(line) == 0 {
		return s.dispatch()
	}
	if line[0] == ':' {
		return false, nil
	}
	if bad >= 0 {
		s.scratch = appendDecoded(s.scratch[:0], line, bad)
		line, aliasable = s.scratch, false
	}
	name, value := splitField(line)
	switch string(name) {
	case "data":
		return false, s.addData(value, aliasable)
	case "event":
		s.typ = s.intern(value)
	case "id":
		// An ID that repeats (or is re-sent unchanged) costs nothing.
		if bytes.IndexByte(value, 0) < 0 && string(value) != s.idBuf {
			s.idBuf = string(value)
		}
	case "retry":
		if d, ok := parseRetry(value); ok {
			s.retry, s.hasRetry = d, true
		}
	default:
		if s.cfg.unknown != nil {
			return false, s.cfg.unknown(s.intern(name), value)
		}
	}
	return false, nil
}

// intern returns b as a string, without allocating when it repeats a
// recent type or field name.
func (s *stream) intern(b []byte) string {
	if s.names == nil {
		s.names = new(intern.Table)
	}
	return s.names.String(b)
}

// addData appends one data value to the pending event.
func (s *stream) addData(v []byte, aliasable bool) error {
	if !s.hasData {
		if len(v) > s.cfg.max {
			return &EventSizeError{Size: len(v), Max: s.cfg.max}
		}
		s.hasData = true
		if aliasable {
			s.cur, s.aliased = v, true
		} else {
			s.data = append(s.data[:0], v...)
			s.cur = s.data
		}
		return nil
	}
	if n := len(s.cur) + 1 + len(v); n > s.cfg.max {
		return &EventSizeError{Size: n, Max: s.cfg.max}
	}
	s.unalias()
	s.data = append(s.data, '\n')
	s.data = append(s.data, v...)
	s.cur = s.data
	return nil
}

// unalias copies pending data that points into the input into the stream's
// own buffer, before the input changes.
func (s *stream) unalias() {
	if s.aliased {
		s.data = append(s.data[:0], s.cur...)
		s.cur, s.aliased = s.data, false
	}
}

// dispatch ends the pending event at a blank line.
func (s *stream) dispatch() (bool, error) {
	s.lastID = s.idBuf
	if !s.hasData {
		s.typ = ""
		return false, nil
	}
	s.ev.Type, s.ev.Data, s.ev.ID = s.typ, s.cur, s.lastID
	if s.typ == "" {
		s.ev.Type = "message"
	}
	s.typ, s.cur, s.aliased, s.hasData = "", s.cur[:0], false, false
	if s.cfg.sentinel != "" && string(s.ev.Data) == s.cfg.sentinel {
		s.done = true
		s.ev = Event{}
		return false, io.EOF
	}
	return true, nil
}

// dispatchValue dispatches an event whose data is the single value v, as
// a "data" line with value v and then a blank line would, when no data is
// pending (hasData is false) and the line was started (so no BOM is looked
// for) and within the limit: the shortcut for the usual event. v must stay
// put until the next line is read, as an aliasable line does.
func (s *stream) dispatchValue(v []byte) error {
	s.lastID = s.idBuf
	s.ev.Type, s.ev.Data, s.ev.ID = s.typ, v, s.lastID
	if s.typ == "" {
		s.ev.Type = "message"
	}
	s.typ = ""
	if s.cfg.sentinel != "" && string(v) == s.cfg.sentinel {
		s.done = true
		s.ev = Event{}
		return io.EOF
	}
	return nil
}

// release drops the buffers and the last event once the stream has ended;
// what LastEventID, Retry and Done report stays.
func (s *stream) release() {
	s.data, s.cur, s.scratch = nil, nil, nil
	s.aliased, s.hasData = false, false
	s.ev = Event{}
}

// checkPartial applies the size limit to the incomplete line at the end of
// the input seen so far, so that a line without an end cannot grow the
// buffers without bound. Counting it the same way line does keeps the
// outcome independent of where the reads split.
func (s *stream) checkPartial(partial []byte) error {
	n := len(partial)
	if !s.started {
		n -= bomPrefixLen(partial)
	}
	if n += len(s.cur); n > s.cfg.max {
		return &EventSizeError{Size: n, Max: s.cfg.max}
	}
	return nil
}
