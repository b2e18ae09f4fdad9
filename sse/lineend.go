package sse

import "bytes"

// Line ends (WHATWG HTML §9.2.5): CRLF, a lone LF, or a lone CR. A CR that is
// the last byte available ends its line at once; the LF that may follow it
// in the next read is then skipped, so CRLF split across reads is still one
// line end.

// splitter finds line ends in a growing window without ever searching a
// byte twice, which keeps line splitting linear however small the reads.
// Indexes are into the caller's buffer. The zero value is ready to use.
type splitter struct {
	// No line end lies in [line start, upto): those bytes were searched.
	// Only the part at or after the current line's start counts, so the
	// splitter needs no telling when the caller passes a line.
	upto int
}

// next finds the first line in b[s:e]. It returns the end of the line's text
// (the index of its CR or LF) and the index where the next line starts; end is
// -1 when b[s:e] holds no line end. crLast reports a line ended by a CR that is
// the last byte of the window, so an LF at the start of the next bytes must be
// skipped. Between calls for the same line, s stays and e may only grow,
// unless shift says the buffer moved.
//
// The search calls the vector code itself rather than through indexLineEnd:
// next runs once per line, and each call saved is worth about 2% on LLM
// streams.
func (l *splitter) next(b []byte, s, e int) (end, rest int, crLast bool) {
	from := max(l.upto, s)
	if from >= e {
		return -1, s, false
	}
	var i int
	if n := e - from; useAVX2 && n >= 32 {
		i = lineEndAVX2(&b[from], n)
	} else {
		i = scalarLineEnd(b[from:e])
	}
	if i < 0 {
		l.upto = e
		return -1, s, false
	}
	i += from
	switch {
	case b[i] == '\n':
		return i, i + 1, false
	case i+1 == e:
		return i, e, true
	case b[i+1] == '\n':
		return i, i + 2, false
	}
	return i, i + 1, false
}

// shift records that the buffer's contents moved d bytes towards its start.
func (l *splitter) shift(d int) { l.upto -= d }

// reset forgets all positions, for a new buffer.
func (l *splitter) reset() { l.upto = 0 }

// scalarLineEnd is indexLineEnd in plain Go: the search for CR stops at
// the first LF, so each byte is looked at at most twice.
func scalarLineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	w := b
	if lf >= 0 {
		w = b[:lf]
	}
	if cr := bytes.IndexByte(w, '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// bomPrefixLen returns how many leading bytes of b are a BOM or the start of
// one; at the start of a stream they do not count towards the size limit
// while the first line is incomplete.
func bomPrefixLen(b []byte) int {
	n := min(len(b), len(bom))
	if string(b[:n]) == bom[:n] {
		return n
	}
	return 0
}
