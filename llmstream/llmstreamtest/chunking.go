package llmstreamtest

import (
	"math/rand/v2"
	"unicode/utf8"
)

// The sizes pieces are cut to, in bytes. A cut never splits a UTF-8
// sequence: it moves forward to the next rune start, so a piece may be up
// to 3 bytes longer.
const (
	maxTextPiece   = 16 // a word longer than this is cut
	maxArgFragment = 6  // argument fragments are 1..maxArgFragment bytes
)

// pieceKind says what a piece of a turn carries.
type pieceKind uint8

const (
	pieceReasoning pieceKind = iota + 1
	pieceText
	pieceRefusal
	pieceHeader // a tool call's id, type and name
	pieceArgs   // a fragment of a tool call's arguments
)

// piece is one delta's worth of a turn.
type piece struct {
	kind pieceKind
	text string // the text or argument fragment
	call int    // the tool call's index (pieceHeader, pieceArgs)
}

// runeEnd moves cut forward to a rune start (or the end of s).
func runeEnd(s string, cut int) int {
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return cut
}

// textPieces cuts s into words, each with the whitespace that follows it
// (leading whitespace stays with the first word). A word that, with the
// whitespace before it, is longer than maxTextPiece is cut there, and its
// rest is the next piece. Joined, the pieces are s.
func textPieces(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
		if i > maxTextPiece {
			i = runeEnd(s, maxTextPiece)
		} else {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// argFragments cuts s into fragments of 1..maxArgFragment bytes chosen by
// rng, each extended to a rune boundary. Joined, the fragments are s.
func argFragments(s string, rng *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+rng.IntN(maxArgFragment), len(s))
		n = runeEnd(s, n)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// prosePieces returns the reasoning, text and refusal pieces of t, in that
// order.
func prosePieces(t Turn) []piece {
	var out []piece
	for _, part := range []struct {
		kind pieceKind
		s    string
	}{{pieceReasoning, t.Reasoning}, {pieceText, t.Text}, {pieceRefusal, t.Refusal}} {
		for _, p := range textPieces(part.s) {
			out = append(out, piece{kind: part.kind, text: p})
		}
	}
	return out
}

// callPieces returns each call's header followed by its argument
// fragments. Interleaved, the calls' sequences are merged at random (each
// call's own order kept), with the headers still in index order: a real
// server announces a call (a Responses output item, a chat tool_calls
// index) only after those before it, and may then go on with any call it
// has announced. Otherwise the calls follow one another.
func callPieces(calls []Call, rng *rand.Rand, interleave bool) []piece {
	queues := make([][]piece, len(calls))
	total := 0
	for i, c := range calls {
		q := []piece{{kind: pieceHeader, call: i}}
		for _, f := range argFragments(c.Arguments, rng) {
			q = append(q, piece{kind: pieceArgs, text: f, call: i})
		}
		queues[i] = q
		total += len(q)
	}
	out := make([]piece, 0, total)
	if !interleave {
		for _, q := range queues {
			out = append(out, q...)
		}
		return out
	}
	started := 0 // calls whose header is out
	for len(out) < total {
		// Pick among the started calls that still have pieces and the
		// next call to start.
		eligible := min(started+1, len(queues))
		live := 0
		for _, q := range queues[:eligible] {
			if len(q) > 0 {
				live++
			}
		}
		k := rng.IntN(live)
		for i, q := range queues[:eligible] {
			if len(q) == 0 {
				continue
			}
			if k == 0 {
				if q[0].kind == pieceHeader {
					started++
				}
				out = append(out, q[0])
				queues[i] = q[1:]
				break
			}
			k--
		}
	}
	return out
}
