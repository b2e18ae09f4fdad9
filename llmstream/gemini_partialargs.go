package llmstream

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/airlock-go/airlock/internal/jsonscan"
)

// This file builds a function call's arguments object from Gemini's
// streamed partial arguments (functionCall.partialArgs[], sent by Gemini 3
// on Vertex with streamFunctionCallArguments). Each partial argument names
// one leaf of the object by a JSON path (RFC 9535 subset: $.a.b,
// $.items[0].name, $['odd key']) and carries its scalar value; a string may
// arrive in pieces while its willContinue is true.
//
// The builder writes the object's JSON text as the leaves arrive, so the
// assembler gets an ordinary stream of argument fragments (bounded by its
// argument limit, previewed like every other dialect's). That needs the
// leaves in document order, which is how a model writes them: a container
// once left is never entered again, a member gets one value, an array grows
// one element at a time. A path that breaks this, or that is not a path
// this subset reads, is an error matching [ErrArgumentPath].
//
// Strings are copied as the JSON text they arrived in (escapes kept), so a
// surrogate pair split across two pieces joins up, and nothing is decoded.

// ErrArgumentPath reports a streamed function-call argument (Gemini's
// functionCall.partialArgs) that cannot be placed: a jsonPath that is not
// of the form $.name, $['name'] or $.name[index] repeated, a value of the
// wrong JSON type or more than one value, a second value for the same
// path, an array index that skips or repeats an element, or a path back
// into a container the arguments have already left. The error is an
// [*EventError] (matching [ErrBadEvent] too) with the event's data; the
// stream stops there.
var ErrArgumentPath = errors.New("llmstream: bad streamed function-call argument")

// maxPathIndex bounds an array index in a path; an array grows one element
// per value, so a larger index could never be the next one anyway.
const maxPathIndex = 1<<31 - 1

// pathSeg is one step of a path: a member name (held in the names buffer
// the path was parsed into) or an array index.
type pathSeg struct {
	name    jsonscan.Span // in the names buffer; for a member
	index   int           // for an element
	isIndex bool
}

// parsePath reads a JSON path into segs, decoding quoted names into names.
// It returns the segments and names with the path's appended.
func parsePath(path []byte, segs []pathSeg, names []byte) ([]pathSeg, []byte, error) {
	if len(path) == 0 || path[0] != '$' {
		return segs, names, pathError(path, "does not start with $")
	}
	i := 1
	for i < len(path) {
		switch path[i] {
		case '.':
			start := i + 1
			i = start
			for i < len(path) && path[i] != '.' && path[i] != '[' && path[i] != ']' {
				i++
			}
			name := path[start:i]
			if len(name) == 0 || string(name) == "*" {
				return segs, names, pathError(path, "has an empty or wildcard member name")
			}
			from := len(names)
			names = append(names, name...)
			segs = append(segs, pathSeg{name: jsonscan.Span{Start: from, End: len(names)}})
		case '[':
			i = skipPathSpace(path, i+1)
			if i >= len(path) {
				return segs, names, pathError(path, "ends inside brackets")
			}
			var seg pathSeg
			switch c := path[i]; {
			case c >= '0' && c <= '9':
				start := i
				for i < len(path) && path[i] >= '0' && path[i] <= '9' {
					i++
				}
				digits := path[start:i]
				if len(digits) > 1 && digits[0] == '0' {
					return segs, names, pathError(path, "has an index with a leading zero")
				}
				n, err := strconv.Atoi(string(digits))
				if err != nil || n > maxPathIndex {
					return segs, names, pathError(path, "has an index that is too large")
				}
				seg = pathSeg{index: n, isIndex: true}
			case c == '\'' || c == '"':
				from := len(names)
				var err error
				if names, i, err = appendPathName(names, path, i); err != nil {
					return segs, names, err
				}
				seg = pathSeg{name: jsonscan.Span{Start: from, End: len(names)}}
			default:
				return segs, names, pathError(path, "has a selector other than an index or a quoted name")
			}
			if i = skipPathSpace(path, i); i >= len(path) || path[i] != ']' {
				return segs, names, pathError(path, "has an unclosed bracket")
			}
			i++
			segs = append(segs, seg)
		default:
			return segs, names, pathError(path, "has a step that starts with neither . nor [")
		}
	}
	return segs, names, nil
}

func skipPathSpace(p []byte, i int) int {
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
		i++
	}
	return i
}

// appendPathName decodes the quoted name at p[i] (RFC 9535 escapes) into
// names and returns the offset past its closing quote.
func appendPathName(names, p []byte, i int) ([]byte, int, error) {
	quote := p[i]
	for i++; i < len(p); {
		c := p[i]
		switch {
		case c == quote:
			return names, i + 1, nil
		case c < 0x20:
			return names, i, pathError(p, "has a control character in a quoted name")
		case c != '\\':
			names = append(names, c)
			i++
			continue
		}
		if i+1 >= len(p) {
			break
		}
		switch e := p[i+1]; e {
		case 'b', 'f', 'n', 'r', 't', '/', '\\', '\'', '"':
			if (e == '\'' || e == '"') && e != quote {
				return names, i, pathError(p, "escapes the other quote in a quoted name")
			}
			if e == '\'' {
				names = append(names, e) // not a JSON escape
			} else {
				names = append(names, jsonscan.Unescape[e])
			}
			i += 2
		case 'u':
			r, ok := jsonscan.Hex4(p, i+2)
			if !ok {
				return names, i, pathError(p, "has a bad \\u escape")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if len(p)-i >= 6 && p[i] == '\\' && p[i+1] == 'u' {
					r2, ok = jsonscan.Hex4(p, i+2)
				}
				dec := utf16.DecodeRune(r, r2)
				if !ok || dec == utf8.RuneError {
					return names, i, pathError(p, "has a lone surrogate escape")
				}
				r = dec
				i += 6
			}
			names = utf8.AppendRune(names, r)
		default:
			return names, i, pathError(p, "has a bad escape in a quoted name")
		}
	}
	return names, len(p), pathError(p, "has an unterminated quoted name")
}

func pathError(path []byte, why string) error {
	return fmt.Errorf("%w: jsonPath %q %s", ErrArgumentPath, truncatePath(path), why)
}

// truncatePath keeps an error's path short.
func truncatePath(p []byte) string {
	const max = 64
	if len(p) <= max {
		return string(p)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return string(p[:cut]) + "..."
}

// argValue is the kind of a partial argument's value.
type argValue uint8

const (
	argNone argValue = iota // no value: only the end of a continuing string
	argString
	argNumber
	argBool
	argNull
)

// argFrame is one open container of the arguments being built.
type argFrame struct {
	isArray bool
	count   int    // members or elements written
	id      uint32 // an object's number, for its member names
	// Where the frame was opened in its parent: a member name (a span of
	// the builder's frameNames) or an element index.
	seg pathSeg
}

// partialArgs builds one call's arguments object. The zero value is ready
// for begin. It is not safe for concurrent use.
type partialArgs struct {
	stack      []argFrame
	frameNames []byte              // the names of the open frames, as a stack
	used       map[string]struct{} // member names taken, as frame id + name
	nextID     uint32
	leaf       pathSeg // the continuing string's member or index
	leafName   []byte
	openString bool // a string value is still arriving
	keyBuf     []byte
}

// begin starts a new arguments object and appends its first text to dst.
func (p *partialArgs) begin(dst []byte) []byte {
	p.stack = append(p.stack[:0], argFrame{id: 0})
	p.frameNames = p.frameNames[:0]
	clear(p.used)
	p.nextID = 1
	p.openString = false
	return append(dst, '{')
}

// end closes everything still open and appends the closing text to dst.
func (p *partialArgs) end(dst []byte) []byte {
	if p.openString {
		dst = append(dst, '"')
		p.openString = false
	}
	for i := len(p.stack) - 1; i >= 0; i-- {
		dst = append(dst, closerOf(p.stack[i].isArray))
	}
	p.stack = p.stack[:0]
	return dst
}

func closerOf(isArray bool) byte {
	if isArray {
		return ']'
	}
	return '}'
}

// add places one value at the path segs (names in names) and appends the
// text it adds to dst. raw is the value's JSON text: a string's content
// without its quotes, a number, true, false or null. more is the partial
// argument's willContinue: for a string, more pieces follow. On error dst
// is returned as it came and nothing changed.
func (p *partialArgs) add(dst []byte, segs []pathSeg, names []byte, kind argValue, raw []byte, more bool, path []byte) ([]byte, error) {
	n := len(segs)
	if n == 0 {
		return dst, pathError(path, "names the whole arguments object, not a member of it")
	}
	if n >= jsonscan.MaxDepth {
		return dst, pathError(path, "is nested too deeply")
	}
	if segs[0].isIndex {
		return dst, pathError(path, "indexes the arguments, which are an object")
	}
	if p.openString {
		if p.continues(segs, names) {
			switch kind {
			case argString:
				dst = append(dst, raw...)
			case argNone:
			default:
				return dst, pathError(path, "gets a non-string value while its string is still arriving")
			}
			if !more {
				dst = append(dst, '"')
				p.openString = false
			}
			return dst, nil
		}
	}
	if kind == argNone {
		return dst, pathError(path, "has no value")
	}
	// Check the whole placement before writing anything.
	k := p.common(segs, names)
	if err := p.check(segs, names, k, path); err != nil {
		return dst, err
	}
	if p.openString {
		dst = append(dst, '"') // another path began: that string is done
		p.openString = false
	}
	for len(p.stack)-1 > k {
		dst = p.pop(dst)
	}
	for i := k; i < n-1; i++ {
		dst = p.place(dst, segs[i], names)
		p.push(segs[i], names, segs[i+1].isIndex)
		dst = append(dst, opener(segs[i+1].isIndex))
	}
	dst = p.place(dst, segs[n-1], names)
	switch kind {
	case argString:
		dst = append(dst, '"')
		dst = append(dst, raw...)
		if more {
			p.openString = true
			p.leaf = segs[n-1]
			p.leafName = p.leafName[:0]
			if !p.leaf.isIndex {
				p.leafName = append(p.leafName, names[p.leaf.name.Start:p.leaf.name.End]...)
			}
		} else {
			dst = append(dst, '"')
		}
	default:
		dst = append(dst, raw...)
	}
	return dst, nil
}

func opener(isArray bool) byte {
	if isArray {
		return '['
	}
	return '{'
}

// continues reports that segs is the path of the continuing string.
func (p *partialArgs) continues(segs []pathSeg, names []byte) bool {
	n := len(segs)
	if n != len(p.stack) || p.common(segs, names) != n-1 {
		return false
	}
	last := segs[n-1]
	if last.isIndex || p.leaf.isIndex {
		return last.isIndex && p.leaf.isIndex && last.index == p.leaf.index
	}
	return string(names[last.name.Start:last.name.End]) == string(p.leafName)
}

// common returns how many of the leaf's containers (segs but the last) are
// open already: the frames above the root that match them, in order, each
// of the kind the next step needs.
func (p *partialArgs) common(segs []pathSeg, names []byte) int {
	k := 0
	for k < len(segs)-1 && k+1 < len(p.stack) {
		f := &p.stack[k+1]
		if f.isArray != segs[k+1].isIndex || !p.sameSeg(f.seg, segs[k], names) {
			break
		}
		k++
	}
	return k
}

func (p *partialArgs) sameSeg(a pathSeg, b pathSeg, names []byte) bool {
	if a.isIndex || b.isIndex {
		return a.isIndex && b.isIndex && a.index == b.index
	}
	return string(p.frameNames[a.name.Start:a.name.End]) == string(names[b.name.Start:b.name.End])
}

// check reports why the path cannot be placed once the frames above k are
// closed: the step into frame k (and each container it then opens, all
// new) must be a new member or the next element.
func (p *partialArgs) check(segs []pathSeg, names []byte, k int, path []byte) error {
	parent := &p.stack[k]
	seg := segs[k]
	switch {
	case parent.isArray && seg.index != parent.count:
		if seg.index < parent.count {
			return pathError(path, "goes back to an array element already written")
		}
		return pathError(path, fmt.Sprintf("skips to element %d of an array that has %d", seg.index, parent.count))
	case !parent.isArray && p.taken(parent.id, names[seg.name.Start:seg.name.End]):
		return pathError(path, "sets a member that already has a value")
	}
	// Beyond k every container is new, so each step is its first.
	for i := k + 1; i < len(segs); i++ {
		if segs[i].isIndex && segs[i].index != 0 {
			return pathError(path, fmt.Sprintf("skips to element %d of a new array", segs[i].index))
		}
	}
	return nil
}

func (p *partialArgs) memberKey(id uint32, name []byte) []byte {
	p.keyBuf = append(append(p.keyBuf[:0], byte(id), byte(id>>8), byte(id>>16), byte(id>>24)), name...)
	return p.keyBuf
}

func (p *partialArgs) taken(id uint32, name []byte) bool {
	_, ok := p.used[string(p.memberKey(id, name))]
	return ok
}

// place writes the separator and, in an object, the member name for seg
// in the top frame, and counts it.
func (p *partialArgs) place(dst []byte, seg pathSeg, names []byte) []byte {
	f := &p.stack[len(p.stack)-1]
	if f.count > 0 {
		dst = append(dst, ',')
	}
	f.count++
	if f.isArray {
		return dst
	}
	name := names[seg.name.Start:seg.name.End]
	if p.used == nil {
		p.used = make(map[string]struct{})
	}
	p.used[string(p.memberKey(f.id, name))] = struct{}{}
	dst = jsonscan.AppendQuoted(dst, name)
	return append(dst, ':')
}

// push opens a container at seg of the top frame.
func (p *partialArgs) push(seg pathSeg, names []byte, isArray bool) {
	f := argFrame{isArray: isArray, seg: seg}
	if !seg.isIndex {
		from := len(p.frameNames)
		p.frameNames = append(p.frameNames, names[seg.name.Start:seg.name.End]...)
		f.seg.name = jsonscan.Span{Start: from, End: len(p.frameNames)}
	}
	if !isArray {
		f.id = p.nextID
		p.nextID++
	}
	p.stack = append(p.stack, f)
}

// pop closes the top frame.
func (p *partialArgs) pop(dst []byte) []byte {
	f := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	if !f.seg.isIndex {
		p.frameNames = p.frameNames[:f.seg.name.Start]
	}
	return append(dst, closerOf(f.isArray))
}
