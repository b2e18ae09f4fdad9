// Package jsonscan is a small JSON scanner for the one shape llmstream's
// decoders read on every event: it validates a whole event in one walk,
// records where the members are (Span), and decodes strings into the
// caller's buffers, never allocating. It accepts exactly what
// encoding/json.Valid accepts (RFC 8259, nesting at most MaxDepth, invalid
// UTF-8 inside strings tolerated) and decodes strings as
// encoding/json.Unmarshal does (each invalid UTF-8 byte and each lone
// surrogate escape becomes U+FFFD). llmstream's FuzzChunk checks it
// against encoding/json.
package jsonscan

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/airlock-go/airlock/toolcall"
)

// MaxDepth is encoding/json's nesting limit, so both accept the same texts.
const MaxDepth = 10000

// ArgsDepth is the depth to walk a tool call's arguments object at when
// an event carries it as JSON (Gemini's args, Anthropic's input): its
// nesting is the toolcall assembler's to judge, the same in every
// dialect, so the event walk puts no limit on it. skipNested keeps a byte
// per level, so the event's size still bounds the walk.
const ArgsDepth = -1 << 30 // fits a 32-bit int; past a GiB of nesting the limit applies again

// ErrSyntax reports text that is not JSON; the caller wraps it with the offset.
var ErrSyntax = errors.New("invalid JSON")

// ErrDepth reports nesting deeper than MaxDepth.
var ErrDepth = errors.New("JSON nested too deeply")

// ErrNotObject and ErrTrailing report an event that is not one JSON object.
var (
	ErrNotObject = errors.New("not a JSON object")
	ErrTrailing  = errors.New("data after the JSON value")
)

// Span is a half-open byte range; start < 0 means absent.
type Span struct{ Start, End int }

var NoSpan = Span{-1, -1}

func (s Span) OK() bool { return s.Start >= 0 }

// Empty reports an absent or zero-length span.
func (s Span) Empty() bool { return s.Start >= s.End }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stopMask flags, in the 8 bytes of x (little-endian), the quote, the
// backslash and control characters; with ascii it flags bytes >= 0x80 too.
// Flags above the lowest may be false positives (borrows), so only the
// lowest is used.
func stopMask(x uint64, ascii bool) uint64 {
	q := x ^ (lsb * '"')
	bs := x ^ (lsb * '\\')
	m := (q - lsb) &^ q
	m |= (bs - lsb) &^ bs
	m |= (x - lsb*0x20) &^ x
	if ascii {
		m |= x
	}
	return m & msb
}

// plainRun returns the offset of the first byte at or after i that a
// string scan must look at: a quote, a backslash, a control character,
// and with ascii also a byte >= 0x80.
func plainRun(d []byte, i int, ascii bool) int {
	for ; i+8 <= len(d); i += 8 {
		if m := stopMask(binary.LittleEndian.Uint64(d[i:]), ascii); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || (ascii && c >= 0x80) {
			return i
		}
	}
	return i
}

func SkipWS(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipValue validates the value starting at d[i] (no leading space), which
// sits inside depth containers, and returns the offset just past it.
func SkipValue(d []byte, i, depth int) (int, error) {
	if i >= len(d) {
		return i, ErrSyntax
	}
	switch c := d[i]; {
	case c == '{' || c == '[':
		return skipNested(d, i, depth)
	case c == '"':
		return SkipString(d, i)
	case c == 't':
		return skipLiteral(d, i, "true")
	case c == 'f':
		return skipLiteral(d, i, "false")
	case c == 'n':
		return skipLiteral(d, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(d, i)
	}
	return i, ErrSyntax
}

func skipLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, ErrSyntax
	}
	return i + len(lit), nil
}

func skipNumber(d []byte, i int) (int, error) {
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return i, ErrSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		start := i
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
		if i == start {
			return i, ErrSyntax
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		start := i
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
		if i == start {
			return i, ErrSyntax
		}
	}
	return i, nil
}

// skipNested validates the object or array at d[i] without recursion, so
// that a hostile event nested ten thousand deep costs a byte per level, not
// a stack frame, and a stream's goroutine keeps its small stack. The open
// containers are kept in a small array on the stack, then on the heap.
func skipNested(d []byte, i, depth int) (int, error) {
	var small [64]byte
	open := small[:0]
	for {
		// d[i] opens a container.
		if depth+len(open)+1 > MaxDepth {
			return i, ErrDepth
		}
		open = append(open, d[i])
		i = SkipWS(d, i+1)
		if i < len(d) && d[i] == closer(open[len(open)-1]) {
			i++
			open = open[:len(open)-1]
		} else {
			// The first element of the new container.
			var err error
			if i, err = elementStart(d, i, open[len(open)-1]); err != nil {
				return i, err
			}
			if d[i] == '{' || d[i] == '[' {
				continue
			}
			if i, err = SkipValue(d, i, 0); err != nil {
				return i, err
			}
		}
		// After a value: close containers or go on to the next element.
		for {
			if len(open) == 0 {
				return i, nil
			}
			top := open[len(open)-1]
			if i = SkipWS(d, i); i >= len(d) {
				return i, ErrSyntax
			}
			if d[i] == closer(top) {
				i++
				open = open[:len(open)-1]
				continue
			}
			if d[i] != ',' {
				return i, ErrSyntax
			}
			var err error
			if i, err = elementStart(d, SkipWS(d, i+1), top); err != nil {
				return i, err
			}
			if d[i] == '{' || d[i] == '[' {
				break
			}
			if i, err = SkipValue(d, i, 0); err != nil {
				return i, err
			}
		}
	}
}

// closer is the byte that ends a container opened by c.
func closer(c byte) byte {
	if c == '{' {
		return '}'
	}
	return ']'
}

// elementStart steps over an object member's key and colon (in an object)
// and returns the offset of the element's value, which is not a space.
func elementStart(d []byte, i int, container byte) (int, error) {
	if container == '{' {
		if i >= len(d) || d[i] != '"' {
			return i, ErrSyntax
		}
		var err error
		if i, err = SkipString(d, i); err != nil {
			return i, err
		}
		if i = SkipWS(d, i); i >= len(d) || d[i] != ':' {
			return i, ErrSyntax
		}
		i = SkipWS(d, i+1)
	}
	if i >= len(d) {
		return i, ErrSyntax
	}
	return i, nil
}

// NextMember steps over the separator after an element of an object or array
// closed by end. It returns the offset of the next element, or -(offset just
// past end)-1 when the container closed.
func NextMember(d []byte, i int, end byte) (int, error) {
	i = SkipWS(d, i)
	if i >= len(d) {
		return i, ErrSyntax
	}
	switch d[i] {
	case ',':
		return SkipWS(d, i+1), nil
	case end:
		return -(i + 1) - 1, nil
	}
	return i, ErrSyntax
}

// SkipString validates the string starting at the quote d[i] and returns the
// offset past its closing quote.
func SkipString(d []byte, i int) (int, error) {
	i++
	for {
		if i = plainRun(d, i, false); i >= len(d) {
			return i, ErrSyntax
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(d) {
				return i, ErrSyntax
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := Hex4(d, i+2); !ok {
					return i, ErrSyntax
				}
				i += 6
			default:
				return i, ErrSyntax
			}
		case c < 0x20:
			return i, ErrSyntax
		default:
			return i, ErrSyntax // unreachable: plainRun stops only at the cases above
		}
	}
}

func Hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Unescape maps the letter of a one-letter escape to its byte.
var Unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// AppendString validates the string starting at the quote d[i], appends its
// decoded text to dst and returns the offset past its closing quote.
func AppendString(dst, d []byte, i int) ([]byte, int, error) {
	return AppendStringUTF8(dst, d, i, false)
}

// AppendStringUTF8 is appendString for text whose bytes are known to be
// valid UTF-8 when valid is true (the sse package guarantees it for every
// event it reads), which skips the check. Otherwise each invalid byte
// becomes U+FFFD, as in encoding/json.Unmarshal.
func AppendStringUTF8(dst, d []byte, i int, valid bool) ([]byte, int, error) {
	i++
	start := i // of the text not yet copied
	for {
		// The text up to the next quote, backslash or control byte is
		// copied whole. Unless valid, the scan stops at each non-ASCII
		// byte too, and checks its sequence there: the string is read
		// once, not scanned and then checked again.
		i = plainRun(d, i, !valid)
		if i < len(d) && d[i] >= utf8.RuneSelf {
			if r, size := utf8.DecodeRune(d[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(append(dst, d[start:i]...), "\uFFFD"...) // as encoding/json does
			i++
			start = i
			continue
		}
		dst = append(dst, d[start:i]...)
		if i >= len(d) {
			return dst, i, ErrSyntax
		}
		switch c := d[i]; {
		case c == '"':
			return dst, i + 1, nil
		case c == '\\':
			if i+1 >= len(d) {
				return dst, i, ErrSyntax
			}
			switch e := d[i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				dst = append(dst, Unescape[e])
				i += 2
			case 'u':
				r, ok := Hex4(d, i+2)
				if !ok {
					return dst, i, ErrSyntax
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A high surrogate followed by an escaped low one is one
					// rune; anything else is U+FFFD, as in encoding/json.
					r2, ok := rune(0), false
					if len(d)-i >= 6 && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok = Hex4(d, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return dst, i, ErrSyntax
			}
		case c < 0x20:
			return dst, i, ErrSyntax
		default:
			return dst, i, ErrSyntax // unreachable: plainRun stops only at the cases above
		}
		start = i
	}
}

// ParseIndex reads the number num (already validated JSON) as an index.
// ok is false for fractions, exponents and negatives: no usable integer.
// An integer past toolcall.MaxIndex reads as MaxIndex+1, so that a tool
// call's index is refused by the assembler (ErrInvalidIndex) and a choice's
// is not taken for choice 0, rather than either counting as no index.
func ParseIndex(num []byte) (int, bool) {
	if len(num) == 0 {
		return 0, false
	}
	var n int64 // MaxIndex+1 times 10 needs more than 32 bits
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int64(c-'0'), toolcall.MaxIndex+1)
	}
	return int(n), true
}

// Doc is the JSON text of one event being walked, and the scratch a walk
// needs. Every dialect's decoder walks its events with it.
type Doc struct {
	Data      []byte
	key       []byte // a decoded key that had escapes; valid until the next readKey
	ValidUTF8 bool   // data is known to be valid UTF-8 (it came through an sse.Reader)
}

// ReadKey reads the member name at data[i] and the colon after it, and
// returns the name and the offset of the member's value.
func (s *Doc) ReadKey(i int) ([]byte, int, error) {
	d := s.Data
	if i >= len(d) || d[i] != '"' {
		return nil, i, ErrSyntax
	}
	var key []byte
	end := plainRun(d, i+1, false)
	if end < len(d) && d[end] == '"' {
		key, end = d[i+1:end], end+1
	} else {
		// Keys with escapes are rare; the buffer is shared by all levels,
		// which is safe because a key is used only before its value is
		// walked.
		var err error
		if s.key, end, err = AppendString(s.key[:0], d, i); err != nil {
			return nil, end, err
		}
		key = s.key
	}
	if end = SkipWS(d, end); end >= len(d) || d[end] != ':' {
		return nil, end, ErrSyntax
	}
	if end = SkipWS(d, end+1); end >= len(d) {
		return nil, end, ErrSyntax
	}
	return key, end, nil
}

// ValueSpan validates the value at data[i] and returns its span, or noSpan
// when it is null.
func (s *Doc) ValueSpan(i, depth int) (Span, int, error) {
	end, err := SkipValue(s.Data, i, depth)
	if err != nil || s.Data[i] == 'n' {
		return NoSpan, end, err
	}
	return Span{i, end}, end, nil
}

// Str decodes the validated JSON string at sp into dst.
func (s *Doc) Str(dst []byte, sp Span) []byte {
	dst, _, _ = AppendStringUTF8(dst, s.Data, sp.Start, s.ValidUTF8)
	return dst
}

// IsString reports that sp holds a JSON string.
func (s *Doc) IsString(sp Span) bool { return sp.OK() && s.Data[sp.Start] == '"' }

// Text is the JSON string at sp decoded, "" when sp holds no string.
func (s *Doc) Text(sp Span) string {
	if !s.IsString(sp) {
		return ""
	}
	return string(s.Str(nil, sp))
}

// Is reports that sp holds the JSON string lit (with no escapes in it).
func (s *Doc) Is(sp Span, lit string) bool {
	return sp.End-sp.Start == len(lit)+2 && s.Data[sp.Start] == '"' && string(s.Data[sp.Start+1:sp.End-1]) == lit
}

// MemberFunc handles the value of one object member starting at data[i]
// and returns the offset past it; t is the decoder walking.
type MemberFunc[T any] func(t T, key []byte, i, depth int) (int, error)

// ElemFunc handles element pos of an array, starting at data[i].
type ElemFunc[T any] func(t T, pos, i, depth int) (int, error)

// WalkObject validates the object at s.data[i], calling fn for each member.
func WalkObject[T any](s *Doc, t T, i, depth int, fn MemberFunc[T]) (int, error) {
	d := s.Data
	depth++
	if depth > MaxDepth {
		return i, ErrDepth
	}
	i = SkipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	return WalkMembers(s, t, i, depth, fn)
}

// WalkMembers walks an object's members from the key at s.data[i] to the
// object's end, for the members at depth.
func WalkMembers[T any](s *Doc, t T, i, depth int, fn MemberFunc[T]) (int, error) {
	for {
		key, at, err := s.ReadKey(i)
		if err != nil {
			return at, err
		}
		if i, err = fn(t, key, at, depth); err != nil {
			return i, err
		}
		if i, err = NextMember(s.Data, i, '}'); err != nil {
			return i, err // an offset into data, never negative
		} else if i < 0 {
			return -i - 1, nil
		}
	}
}

// WalkArray validates the array at s.data[i], calling fn for each element.
func WalkArray[T any](s *Doc, t T, i, depth int, fn ElemFunc[T]) (int, error) {
	d := s.Data
	depth++
	if depth > MaxDepth {
		return i, ErrDepth
	}
	i = SkipWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	for pos := 0; ; pos++ {
		if i >= len(d) {
			return i, ErrSyntax
		}
		var err error
		if i, err = fn(t, pos, i, depth); err != nil {
			return i, err
		}
		if i, err = NextMember(d, i, ']'); err != nil {
			return i, err
		} else if i < 0 {
			return -i - 1, nil
		}
	}
}

// WalkEvent validates data as one JSON object, calling fn for each
// top-level member; anything after the object is an error.
func WalkEvent[T any](s *Doc, t T, data []byte, fn MemberFunc[T]) (int, error) {
	s.Data = data
	i := SkipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		if end, err := SkipValue(data, i, 0); err != nil {
			return end, err
		}
		return i, ErrNotObject
	}
	i, err := WalkObject(s, t, i, 0, fn)
	if err != nil {
		return i, err
	}
	if i = SkipWS(data, i); i != len(data) {
		return i, ErrTrailing
	}
	return i, nil
}

// Int reads a validated JSON number at s as a non-negative int.
func Int(d []byte, s Span) (int, bool) {
	if !s.OK() {
		return 0, false
	}
	return ParseIndex(d[s.Start:s.End])
}

// AppendQuoted appends s as a JSON string.
func AppendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// DecodedString is the value of the validated JSON string at s in d.
func DecodedString(d []byte, s Span) string {
	raw := d[s.Start:s.End]
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c >= 0x80 {
			v, _, _ := AppendString(nil, raw, 0)
			return string(v)
		}
	}
	return string(raw[1 : len(raw)-1])
}

// IsEmptyObject reports that raw is {} with any spacing.
func IsEmptyObject(raw []byte) bool {
	i := SkipWS(raw, 1)
	return len(raw) > 0 && raw[0] == '{' && i < len(raw) && raw[i] == '}'
}

// Valid reports that raw is one JSON value.
func Valid(raw []byte) bool {
	i := SkipWS(raw, 0)
	end, err := SkipValue(raw, i, 0)
	return err == nil && SkipWS(raw, end) == len(raw)
}
