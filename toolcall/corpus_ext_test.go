package toolcall_test

// corpus_ext_test.go: a deterministic generator of the "tools" shape the
// benchmarks, the property test and the fuzz seeds use: a few parallel calls
// with ~2 KB of compact JSON arguments each (nested objects and arrays,
// escapes, control characters, raw and \u-escaped Unicode), split into 1–6
// byte fragments that never end inside a UTF-8 sequence, interleaved at
// random.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"

	"github.com/airlock-go/airlock/toolcall"
)

// corpus is one generated response.
type corpus struct {
	want     []toolcall.Call       // the calls it must assemble to
	args     []string              // each call's arguments
	perIndex [][]toolcall.Fragment // each call's fragments, in order
	frags    []toolcall.Fragment   // all fragments, interleaved
}

const (
	corpusCalls    = 4
	corpusArgBytes = 2048
)

var (
	corpusNames = []string{"search_files", "edit_file", "run_command", "fetch_url"}
	corpusKeys  = []string{"path", "pattern", "limit", "recursive", "options", "env", "lines",
		"query", "headers", "timeout_ms", "replace", "with", "tags", "note", "owner", "range"}
	corpusTexts = []string{
		"plain words only",
		`quote " and backslash \ inside`,
		"tab\tnewline\ncarriage\r",
		"control \x01\x1f bytes",
		"café naïve über",
		"日本語のテキスト",
		"emoji 🚀🎉 and math ∑≠∞",
		"Ελληνικά και русский",
		"</script><b>&amp;</b>",
		`C:\path\to\file.txt`,
	}
)

// genCorpus builds the corpus for seed; the same seed gives the same corpus.
func genCorpus(seed uint64) corpus {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var c corpus
	for i := range corpusCalls {
		g := argWriter{rng: rng}
		args := g.document(corpusArgBytes)
		id := "call_" + strconv.FormatUint(rng.Uint64(), 36)
		c.args = append(c.args, args)
		c.want = append(c.want, toolcall.Call{Index: i, ID: id, Type: "function", Name: corpusNames[i], Arguments: args})
		seq := []toolcall.Fragment{{Index: i, ID: id, Type: "function", Name: corpusNames[i]}}
		for _, piece := range splitRunes(rng, args, 1, 6) {
			seq = append(seq, toolcall.Fragment{Index: i, Arguments: piece})
		}
		c.perIndex = append(c.perIndex, seq)
	}
	c.frags = interleave(rng, c.perIndex)
	return c
}

// interleave merges the sequences in a random order that keeps each
// sequence's own order.
func interleave(rng *rand.Rand, seqs [][]toolcall.Fragment) []toolcall.Fragment {
	next := make([]int, len(seqs))
	var live []int
	total := 0
	for i, s := range seqs {
		total += len(s)
		if len(s) > 0 {
			live = append(live, i)
		}
	}
	out := make([]toolcall.Fragment, 0, total)
	for len(live) > 0 {
		k := rng.IntN(len(live))
		i := live[k]
		out = append(out, seqs[i][next[i]])
		next[i]++
		if next[i] == len(seqs[i]) {
			live = append(live[:k], live[k+1:]...)
		}
	}
	return out
}

// splitRunes cuts s into pieces of lo..hi bytes, each extended to end on a
// UTF-8 boundary, as providers send them.
func splitRunes(rng *rand.Rand, s string, lo, hi int) []string {
	var out []string
	for i := 0; i < len(s); {
		j := min(i+lo+rng.IntN(hi-lo+1), len(s))
		for j < len(s) && !utf8.RuneStart(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// argWriter writes random compact JSON.
type argWriter struct {
	rng *rand.Rand
	b   []byte
}

// document writes one object of about size bytes.
func (w *argWriter) document(size int) string {
	w.b = append(w.b[:0], '{')
	for n := 0; len(w.b) < size-48; n++ {
		if n > 0 {
			w.b = append(w.b, ',')
		}
		w.key(n)
		w.value(0)
	}
	w.b = append(w.b, '}')
	return string(w.b)
}

func (w *argWriter) key(n int) {
	w.b = fmt.Appendf(w.b, `"%s%d":`, corpusKeys[w.rng.IntN(len(corpusKeys))], n)
}

func (w *argWriter) value(depth int) {
	switch r := w.rng.IntN(12); {
	case r < 2 && depth < 3:
		w.b = append(w.b, '{')
		for n := range 1 + w.rng.IntN(4) {
			if n > 0 {
				w.b = append(w.b, ',')
			}
			w.key(n)
			w.value(depth + 1)
		}
		w.b = append(w.b, '}')
	case r < 4 && depth < 3:
		w.b = append(w.b, '[')
		for n := range w.rng.IntN(5) {
			if n > 0 {
				w.b = append(w.b, ',')
			}
			w.value(depth + 1)
		}
		w.b = append(w.b, ']')
	case r < 8:
		w.text(corpusTexts[w.rng.IntN(len(corpusTexts))], w.rng.IntN(3) == 0)
	case r < 10:
		if w.rng.IntN(2) == 0 {
			w.b = strconv.AppendInt(w.b, w.rng.Int64N(2_000_000)-1_000_000, 10)
		} else {
			w.b = strconv.AppendFloat(w.b, w.rng.NormFloat64()*1e4, 'g', -1, 64)
		}
	case r < 11:
		w.b = strconv.AppendBool(w.b, w.rng.IntN(2) == 0)
	default:
		w.b = append(w.b, "null"...)
	}
}

// text writes s as a JSON string, escaping what JSON requires and, when
// asciiOnly is set, every non-ASCII rune as \u escapes (surrogate pairs
// above the BMP).
func (w *argWriter) text(s string, asciiOnly bool) {
	const hex = "0123456789abcdef"
	u := func(r rune) {
		w.b = append(w.b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	w.b = append(w.b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			w.b = append(w.b, '\\', byte(r))
		case r == '\n':
			w.b = append(w.b, '\\', 'n')
		case r == '\t':
			w.b = append(w.b, '\\', 't')
		case r < 0x20:
			u(r)
		case r >= 0x80 && asciiOnly && r > 0xffff:
			r -= 0x10000
			u(0xd800 + r>>10)
			u(0xdc00 + r&0x3ff)
		case r >= 0x80 && asciiOnly:
			u(r)
		default:
			w.b = utf8.AppendRune(w.b, r)
		}
	}
	w.b = append(w.b, '"')
}
