package toolcall

import (
	"encoding/json"
	"strconv"
)

// Member is one value of a streamed JSON text that has just completed:
// a string once its closing quote came, a number once the byte after it
// came (or the text ended, for a number alone), a literal once its last
// letter came, an array or object once it closed — never earlier, so a
// text cut short never yields a member that was not complete.
type Member struct {
	// Path locates the value: "$" for the whole text, ".name" for an
	// object member whose name is a Go-style identifier (letters, digits,
	// '_', not starting with a digit), ["name"] with the name as the text
	// spelled it otherwise, [i] for an array element:
	// `$.steps[2].title`, `$["a b"][0]`.
	Path []byte
	// Value is the value's JSON text exactly as it arrived.
	Value []byte
}

// Members reads a JSON text as it streams in — a tool call's arguments or
// a structured answer — and reports each value the moment it completes,
// with its path, every value at every depth, inner ones first (a member's
// own members, then it). It also gives, on demand, the text so far made
// into JSON ([Members.Snapshot]), to decode a partial value for display.
//
// Cost: linear in the text: each byte is scanned once, each event costs
// the length of its path segment, never the text so far; Write allocates
// only to grow its buffer (the text is kept, to hand out Values and
// snapshots) and the nesting and path stacks. Limits: the text's size is
// [WithMaxArgumentBytes] (default [DefaultMaxArgumentBytes]; the other
// options do not apply), its nesting [MaxNestingDepth].
//
// The events are the same, in the same order, however the text is split
// into Writes: they depend on the bytes alone.
//
// A Members is not safe for concurrent use; use it from one goroutine.
type Members struct {
	sc       scanner
	on       func(Member) error
	max      int // -1: none
	buf      []byte
	path     []byte
	frames   []memberFrame
	scalarAt int // where the scalar being scanned began; -1 for none
	keyAt    int // where the key being scanned began
	err      error
}

// memberFrame is one open array or object.
type memberFrame struct {
	start  int  // offset of its opener
	base   int  // len(path) of its own path
	index  int  // arrays: the next element's index
	object bool // an object, not an array
}

// NewMembers returns a Members that calls on for each completed value,
// in order, from within [Members.Write] (and [Members.End], for a text
// that is a number alone). The Member's slices alias the Members' memory
// and are valid only during the call: copy what you keep. An error from
// on stops the text: Write returns it, and every later call too. A nil on
// reports nothing (for snapshots alone).
func NewMembers(on func(Member) error, opts ...Option) *Members {
	var c config
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	m := &Members{on: on, max: c.argLimit()}
	m.Reset()
	return m
}

// Reset makes m ready for a new text, keeping its memory and its options.
func (m *Members) Reset() {
	m.sc.reset()
	m.sc.watch = m
	m.buf, m.path, m.frames = m.buf[:0], append(m.path[:0], '$'), m.frames[:0]
	m.scalarAt, m.err = -1, nil
}

// Write feeds the next bytes of the text, reporting the values they
// complete. It never returns a short count without an error. Its error,
// which sticks (every later Write and End returns it), is:
//
//   - a [*LimitError] wrapping [ErrArgumentsTooLarge], with Index -1, when
//     p would take the text past the size limit; nothing of p is applied;
//   - an [*ArgumentsError] wrapping [ErrInvalidArguments], with Index -1,
//     when the text can no longer become JSON (a byte that cannot come
//     where it did, or nesting past MaxNestingDepth); the values that
//     completed before the offending byte were reported;
//   - the error of the callback.
func (m *Members) Write(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	if m.max >= 0 && len(p) > m.max-len(m.buf) {
		m.err = &LimitError{Index: -1, Size: len(m.buf) + len(p), Max: m.max, Err: ErrArgumentsTooLarge}
		return 0, m.err
	}
	m.buf = append(m.buf, p...)
	feed(&m.sc, m.buf[len(m.buf)-len(p):])
	if m.err == nil && m.sc.failed() {
		m.err = m.invalid()
	}
	if m.err != nil {
		return 0, m.err
	}
	return len(p), nil
}

// End says the text is over: a text that is a number alone completes
// now. It returns Write's sticky error, or an [*ArgumentsError] wrapping
// [ErrInvalidArguments] when the text is not one complete JSON value (cut
// short, or empty); nothing is reported for what was not complete.
func (m *Members) End() error {
	if m.err != nil {
		return m.err
	}
	if !m.sc.complete() {
		m.sc.fault = faultTruncate
		m.err = m.invalid()
		return m.err
	}
	if m.scalarAt >= 0 { // a number alone, whose end is the text's
		m.end(len(m.buf))
	}
	return m.err
}

// Err returns the error that stopped the text (see [Members.Write] and
// [Members.End]), nil while it goes on; [Members.Reset] clears it.
func (m *Members) Err() error { return m.err }

// Snapshot returns the text so far made into JSON, as [Preview.Closed]
// makes it (open strings and containers closed, what cannot be finished
// without inventing content dropped), nil when no value has begun or the
// text failed. It costs the size of the text so far; the result is the
// caller's. Decode it (encoding/json) for a partial value to show; it
// is for display, never a value to act on.
func (m *Members) Snapshot() []byte {
	if m.err != nil {
		return nil
	}
	keep, suffix, ok := m.sc.closing(nil)
	if !ok {
		return nil
	}
	out := make([]byte, 0, keep+len(suffix))
	return append(append(out, m.buf[:keep]...), suffix...)
}

// invalid is the error for a text that is not JSON.
func (m *Members) invalid() error {
	at := m.sc.faultAt
	if m.sc.fault == faultTruncate {
		at = len(m.buf)
	}
	return &ArgumentsError{Index: -1, Offset: at, Reason: m.sc.reason(), Tail: tail(m.buf), Err: ErrInvalidArguments}
}

// begin is the scanner's word that a value begins at offset at with c.
func (m *Members) begin(c byte, at int) {
	if n := len(m.frames); n > 0 && !m.frames[n-1].object {
		f := &m.frames[n-1]
		m.path = append(m.path[:f.base], '[')
		m.path = strconv.AppendInt(m.path, int64(f.index), 10)
		m.path = append(m.path, ']')
		f.index++
	}
	if c == '{' || c == '[' {
		m.frames = append(m.frames, memberFrame{start: at, base: len(m.path), object: c == '{'})
		m.scalarAt = -1
		return
	}
	m.scalarAt = at
}

// key is the scanner's word that an object key ended just before end.
func (m *Members) key(end int) {
	f := &m.frames[len(m.frames)-1]
	m.path = appendKey(m.path[:f.base], m.buf[m.keyAt:end])
}

// end is the scanner's word that the value being scanned ended just
// before end: the scalar begun last, else the innermost container.
func (m *Members) end(end int) {
	start := m.scalarAt
	if start >= 0 {
		m.scalarAt = -1
	} else {
		n := len(m.frames) - 1
		start = m.frames[n].start
		m.frames = m.frames[:n]
	}
	if m.err == nil && m.on != nil {
		m.err = m.on(Member{Path: m.path[:len(m.path):len(m.path)], Value: m.buf[start:end:end]})
	}
	if n := len(m.frames); n > 0 {
		m.path = m.path[:m.frames[n-1].base]
	} else {
		m.path = m.path[:1]
	}
}

// appendKey appends the path segment of a key, quoted as it arrived.
func appendKey(path, quoted []byte) []byte {
	name := quoted[1 : len(quoted)-1]
	for _, c := range name {
		if c == '\\' {
			var s string
			if json.Unmarshal(quoted, &s) == nil && identifier(s) {
				return append(append(path, '.'), s...)
			}
			return append(append(append(path, '['), quoted...), ']')
		}
	}
	if identifier(string(name)) {
		return append(append(path, '.'), name...)
	}
	return append(append(append(path, '['), quoted...), ']')
}

// identifier reports a name written after a dot: ASCII letters, digits
// and '_', not starting with a digit.
func identifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
