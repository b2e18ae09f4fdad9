package toolcall

import "strconv"

// scanner.go: an incremental RFC 8259 JSON validator. It is fed a call's
// argument bytes fragment by fragment as they arrive, keeps O(1) state plus one
// bit per open container, and never looks at a byte twice. That makes
// Finalize's validation O(1) per call, the "already complete JSON" test of the
// id-change rule O(1), and gives Preview the list of open containers it must
// close.

// MaxNestingDepth is the deepest nesting of arrays and objects accepted in a
// call's arguments and in a fragment's Extra. Arguments nested deeper are
// invalid, which [Assembler.Finalize] reports as an [*ArgumentsError]
// wrapping [ErrInvalidArguments]; such an Extra is refused by
// [Assembler.Add] with [ErrInvalidExtra]. It equals the limit of
// encoding/json, so both accept the same texts; it is not configurable.
const MaxNestingDepth = 10000

// scanState is where the scanner stands between two bytes.
type scanState uint8

const (
	scanValue       scanState = iota // a value must come: start of text, after ':' or after ',' in an array
	scanArrayFirst                   // after '[': a value or ']'
	scanObjectFirst                  // after '{': a key or '}'
	scanKey                          // after ',' in an object: a key
	scanColon                        // after a key: ':'
	scanAfterValue                   // after a value inside a container: ',' or the closer
	scanDone                         // after the top-level value: only whitespace
	scanString                       // inside a string
	scanEscape                       // after '\' in a string
	scanHex1                         // after "\u": four hex digits to go
	scanHex2                         // three to go
	scanHex3                         // two to go
	scanHex4                         // one to go
	scanMinus                        // after a number's '-'
	scanZero                         // after a number's leading '0'
	scanInt                          // in a number's integer digits (not a leading 0)
	scanDot                          // after a number's '.'
	scanFrac                         // in a number's fraction digits
	scanExp                          // after a number's 'e' or 'E'
	scanExpSign                      // after the exponent's sign
	scanExpDigits                    // in the exponent's digits
	scanLiteral                      // inside true, false or null
	scanError                        // the text can no longer become JSON
)

// scanFault says why the scanner stopped.
type scanFault uint8

const (
	faultNone     scanFault = iota
	faultByte               // a byte that cannot appear where it did
	faultTooDeep            // a container past MaxNestingDepth
	faultTruncate           // the text ended inside a value (set by Finalize, never by feed)
)

// inlineDepth is how many levels the scanner tracks without allocating.
const inlineDepth = 128

// scanner validates JSON text incrementally. Offsets are counted from the
// first byte ever fed since reset.
type scanner struct {
	state scanState
	inKey bool   // the string being scanned is an object key
	lit   string // the rest of the literal being scanned (scanLiteral)
	depth int    // open containers
	n     int    // bytes fed so far

	// For Preview: where the text can be cut so that what stays, plus the
	// closers of the open containers, is JSON.
	memberEnd int // just past the last complete element/member, or the opener
	escStart  int // offset of the '\' that began the current escape
	numOK     int // end of the longest prefix of the current number that is a number

	fault     scanFault
	faultAt   int       // offset of the offending byte
	faultByte byte      // the offending byte
	faultIn   scanState // the state that refused it

	// One bit per open container, 1 for an object, 0 for an array; level d
	// lives in bit d%64 of word d/64. The first inlineDepth levels need no
	// allocation; deeper ones grow deep, which reset keeps for reuse.
	stack [inlineDepth / 64]uint64
	deep  []uint64

	// watch, when set, is told where values and keys begin and end
	// (Members); its calls are per value, never per byte.
	watch *Members
}

// reset makes s ready for a new text, keeping its allocated stack.
func (s *scanner) reset() {
	deep, watch := s.deep, s.watch
	*s = scanner{deep: deep, watch: watch}
}

// isWhite is the RFC 8259 whitespace set.
func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// isDigit reports an ASCII digit.
func isDigit(c byte) bool {
	return '0' <= c && c <= '9'
}

// isHex reports an ASCII hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// plainString[c] says byte c stands for itself inside a string: not a quote,
// not a backslash, not a control character. Bytes ≥ 0x80 are plain: like
// encoding/json, the scanner does not check UTF-8 inside strings.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// complete reports that the text so far is one whole JSON value (followed
// only by whitespace, if anything).
func (s *scanner) complete() bool {
	switch s.state {
	case scanDone:
		return true
	case scanZero, scanInt, scanFrac, scanExpDigits:
		// A number at the top level has no closing delimiter; its end is the
		// end of the text.
		return s.depth == 0
	}
	return false
}

// blank reports that nothing but whitespace has been fed.
func (s *scanner) blank() bool {
	return s.state == scanValue && s.depth == 0
}

// failed reports that the text can no longer become JSON.
func (s *scanner) failed() bool {
	return s.state == scanError
}

// fail stops the scanner for good at offset at.
func (s *scanner) fail(f scanFault, at int, c byte) {
	s.fault, s.faultAt, s.faultByte, s.faultIn = f, at, c, s.state
	s.state = scanError
}

// isObject reports whether open container level d is an object.
func (s *scanner) isObject(d int) bool {
	if d < inlineDepth {
		return s.stack[d>>6]&(1<<(d&63)) != 0
	}
	d -= inlineDepth
	return s.deep[d>>6]&(1<<(d&63)) != 0
}

// push opens a container at offset at; it fails the scan past MaxNestingDepth.
func (s *scanner) push(object bool, at int, c byte) bool {
	d := s.depth
	if d >= MaxNestingDepth {
		s.fail(faultTooDeep, at, c)
		return false
	}
	var w *uint64
	if d < inlineDepth {
		w = &s.stack[d>>6]
	} else {
		i := (d - inlineDepth) >> 6
		if i == len(s.deep) {
			s.deep = append(s.deep, 0)
		}
		w = &s.deep[i]
	}
	if object {
		*w |= 1 << (d & 63)
	} else {
		*w &^= 1 << (d & 63)
	}
	s.depth++
	s.memberEnd = at + 1
	return true
}

// endValue records a value that ended just before offset end.
func (s *scanner) endValue(end int) {
	if s.watch != nil {
		s.watch.end(end)
	}
	s.memberEnd = end
	if s.depth == 0 {
		s.state = scanDone
	} else {
		s.state = scanAfterValue
	}
}

// beginValue starts the value whose first byte c is at offset at.
func (s *scanner) beginValue(c byte, at int) {
	if s.watch != nil {
		s.watch.begin(c, at)
	}
	switch {
	case c == '{':
		if s.push(true, at, c) {
			s.state = scanObjectFirst
		}
	case c == '[':
		if s.push(false, at, c) {
			s.state = scanArrayFirst
		}
	case c == '"':
		s.state, s.inKey = scanString, false
	case c == '-':
		s.state = scanMinus
	case c == '0':
		s.state = scanZero
	case '1' <= c && c <= '9':
		s.state = scanInt
	case c == 't':
		s.state, s.lit = scanLiteral, "rue"
	case c == 'f':
		s.state, s.lit = scanLiteral, "alse"
	case c == 'n':
		s.state, s.lit = scanLiteral, "ull"
	default:
		s.fail(faultByte, at, c)
	}
}

// closeContainer handles '}' or ']' at offset at after a value or an opener.
func (s *scanner) closeContainer(c byte, at int) {
	if s.depth == 0 || s.isObject(s.depth-1) != (c == '}') {
		s.fail(faultByte, at, c)
		return
	}
	s.depth--
	s.endValue(at + 1)
}

// feed advances s over p, the next bytes of the text. Its cost is linear in
// len(p) and it does not allocate unless the nesting passes inlineDepth.
func feed[T string | []byte](s *scanner, p T) {
	base := s.n
	s.n += len(p)
	if s.state == scanError {
		return
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch s.state {
		case scanString:
			// Most bytes of a call's arguments are string contents: skip a
			// run of them in a tight loop.
			for plainString[c] {
				i++
				if i == len(p) {
					return
				}
				c = p[i]
			}
			switch c {
			case '"':
				if s.inKey {
					s.inKey = false
					s.state = scanColon
					if s.watch != nil {
						s.watch.key(base + i + 1)
					}
				} else {
					s.endValue(base + i + 1)
				}
			case '\\':
				s.escStart = base + i
				s.state = scanEscape
			default:
				s.fail(faultByte, base+i, c)
				return
			}
		case scanValue:
			if !isWhite(c) {
				s.beginValue(c, base+i)
			}
		case scanArrayFirst:
			switch {
			case isWhite(c):
			case c == ']':
				s.closeContainer(c, base+i)
			default:
				s.beginValue(c, base+i)
			}
		case scanObjectFirst:
			switch {
			case isWhite(c):
			case c == '"':
				s.state, s.inKey = scanString, true
				if s.watch != nil {
					s.watch.keyAt = base + i
				}
			case c == '}':
				s.closeContainer(c, base+i)
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanKey:
			switch {
			case isWhite(c):
			case c == '"':
				s.state, s.inKey = scanString, true
				if s.watch != nil {
					s.watch.keyAt = base + i
				}
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanColon:
			switch {
			case isWhite(c):
			case c == ':':
				s.state = scanValue
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanAfterValue:
			switch {
			case isWhite(c):
			case c == ',':
				if s.isObject(s.depth - 1) {
					s.state = scanKey
				} else {
					s.state = scanValue
				}
			case c == '}' || c == ']':
				s.closeContainer(c, base+i)
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanDone:
			if !isWhite(c) {
				s.fail(faultByte, base+i, c)
			}
		case scanEscape:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.state = scanString
			case 'u':
				s.state = scanHex1
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanHex1, scanHex2, scanHex3, scanHex4:
			if !isHex(c) {
				s.fail(faultByte, base+i, c)
			} else if s.state == scanHex4 {
				s.state = scanString
			} else {
				s.state++
			}
		case scanMinus:
			switch {
			case c == '0':
				s.state = scanZero
			case '1' <= c && c <= '9':
				s.state = scanInt
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanZero, scanInt, scanFrac, scanExpDigits:
			switch {
			case isDigit(c) && s.state != scanZero:
			case c == '.' && (s.state == scanZero || s.state == scanInt):
				s.numOK = base + i
				s.state = scanDot
			case (c == 'e' || c == 'E') && s.state != scanExpDigits:
				s.numOK = base + i
				s.state = scanExp
			default:
				// The number ended just before c; c belongs to what follows.
				s.endValue(base + i)
				i--
			}
		case scanDot:
			if isDigit(c) {
				s.state = scanFrac
			} else {
				s.fail(faultByte, base+i, c)
			}
		case scanExp:
			switch {
			case c == '+' || c == '-':
				s.state = scanExpSign
			case isDigit(c):
				s.state = scanExpDigits
			default:
				s.fail(faultByte, base+i, c)
			}
		case scanExpSign:
			if isDigit(c) {
				s.state = scanExpDigits
			} else {
				s.fail(faultByte, base+i, c)
			}
		case scanLiteral:
			if c != s.lit[0] {
				s.fail(faultByte, base+i, c)
			} else if s.lit = s.lit[1:]; s.lit == "" {
				s.endValue(base + i + 1)
			}
		}
		if s.state == scanError {
			return
		}
	}
}

// closing says how to turn the text fed so far into JSON: keep its first keep
// bytes and append suffix (appended to dst). ok is false when there is nothing
// to show: only whitespace so far, a lone '-' at the top level, or a text that
// can no longer become JSON. Its cost is O(depth).
//
// The cut drops what cannot be finished without inventing content: a dangling
// key (with or without its ':'), a trailing ',', an unfinished escape, the
// unfinished tail of a number ("1." keeps "1"). What can be finished only one
// way is finished: an open string is closed, a literal is completed ("tr"
// becomes "true"), open arrays and objects are closed innermost first.
func (s *scanner) closing(dst []byte) (keep int, suffix []byte, ok bool) {
	keep = s.n
	switch s.state {
	case scanError:
		return 0, dst, false
	case scanDone, scanZero, scanInt, scanFrac, scanExpDigits, scanAfterValue:
	case scanDot, scanExp, scanExpSign:
		keep = s.numOK
	case scanLiteral:
		dst = append(dst, s.lit...)
	case scanString, scanEscape, scanHex1, scanHex2, scanHex3, scanHex4:
		switch {
		case s.inKey:
			keep = s.memberEnd
		case s.state == scanString:
			dst = append(dst, '"')
		default:
			keep = s.escStart
			dst = append(dst, '"')
		}
	default: // scanValue, scanMinus, scanArrayFirst, scanObjectFirst, scanKey, scanColon: no value here yet
		if s.depth == 0 {
			return 0, dst, false
		}
		keep = s.memberEnd
	}
	for d := s.depth - 1; d >= 0; d-- {
		if s.isObject(d) {
			dst = append(dst, '}')
		} else {
			dst = append(dst, ']')
		}
	}
	return keep, dst, true
}

// reason describes why the scan failed, or "unexpected end of JSON input"
// for a text that stopped inside a value.
func (s *scanner) reason() string {
	switch s.fault {
	case faultTooDeep:
		return "nesting deeper than " + strconv.Itoa(MaxNestingDepth)
	case faultByte:
		return "invalid character " + quoteByte(s.faultByte) + " " + stateContext[s.faultIn]
	}
	return "unexpected end of JSON input"
}

// stateContext names, for an error message, what the scanner was looking at.
var stateContext = [...]string{
	scanValue:       "looking for the beginning of a value",
	scanArrayFirst:  "looking for the beginning of a value",
	scanObjectFirst: "looking for the beginning of an object key",
	scanKey:         "looking for the beginning of an object key",
	scanColon:       "after an object key",
	scanAfterValue:  "after a value",
	scanDone:        "after the top-level value",
	scanString:      "in a string",
	scanEscape:      "in a string escape",
	scanHex1:        "in a \\u escape",
	scanHex2:        "in a \\u escape",
	scanHex3:        "in a \\u escape",
	scanHex4:        "in a \\u escape",
	scanMinus:       "in a number",
	scanZero:        "in a number",
	scanInt:         "in a number",
	scanDot:         "after a decimal point",
	scanExp:         "in an exponent",
	scanExpSign:     "in an exponent",
	scanExpDigits:   "in an exponent",
	scanLiteral:     "in a literal",
	scanError:       "",
}

// quoteByte shows c in an error message: quoted when it is ASCII, in hex
// otherwise (a lone byte of a multi-byte sequence is not a character).
func quoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}
