package sse

import "bytes"

// Line ends (WHATWG HTML §9.2.5): CRLF, a lone LF, or a lone CR. A CR that is
// the last byte available ends its line at once; the LF that may follow it
// in the next read is then skipped, so CRLF split across reads is still one
// line end.

// finder finds the next occurrence of one byte in a growing window without
// ever searching a byte twice, which keeps line splitting linear however
// small the reads. Indexes are into the caller's buffer.
type finder struct {
	c    byte
	next int // index of the occurrence found last; negative when none
	upto int // every byte in [next+1, upto) or, with no occurrence, before upto, was searched
}

func newFinder(c byte) finder { return finder{c: c, next: -1} }

// find returns the index of the first c in b[s:e], or a negative number.
// Between calls s and e may only grow, unless shift says the buffer moved.
// The two cases that need no search are kept small enough to be inlined:
// an occurrence found earlier and not yet passed, and (for CR in an LF-only
// stream) a window already searched to its end.
func (f *finder) find(b []byte, s, e int) int {
	if f.next >= s {
		return f.next
	}
	if f.upto >= e {
		return -1
	}
	return f.search(b, s, e)
}

func (f *finder) search(b []byte, s, e int) int {
	from := max(f.upto, s)
	if from >= e {
		f.next = -1
		return -1
	}
	i := bytes.IndexByte(b[from:e], f.c)
	if i < 0 {
		f.next, f.upto = -1, e
		return -1
	}
	f.next = from + i
	f.upto = f.next + 1
	return f.next
}

// shift records that the buffer's contents moved d bytes towards its start.
func (f *finder) shift(d int) {
	if f.next >= 0 {
		f.next -= d
	}
	f.upto -= d
}

// reset forgets all positions, for a new buffer.
func (f *finder) reset() { f.next, f.upto = -1, 0 }

// splitter finds line ends.
type splitter struct {
	lf, cr finder
}

func newSplitter() splitter { return splitter{lf: newFinder('\n'), cr: newFinder('\r')} }

// next finds the first line in b[s:e]. It returns the end of the line's text
// (the index of its CR or LF) and the index where the next line starts; end is
// -1 when b[s:e] holds no line end. crLast reports a line ended by a CR that is
// the last byte of the window, so an LF at the start of the next bytes must be
// skipped.
func (l *splitter) next(b []byte, s, e int) (end, rest int, crLast bool) {
	lf := l.lf.find(b, s, e)
	if cr := l.cr.find(b, s, e); cr >= 0 && (lf < 0 || cr < lf) {
		switch {
		case cr+1 == e:
			return cr, e, true
		case b[cr+1] == '\n':
			return cr, cr + 2, false
		default:
			return cr, cr + 1, false
		}
	}
	if lf < 0 {
		return -1, s, false
	}
	return lf, lf + 1, false
}

func (l *splitter) shift(d int) {
	l.lf.shift(d)
	l.cr.shift(d)
}

func (l *splitter) reset() {
	l.lf.reset()
	l.cr.reset()
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
