package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// scanWhole feeds text in one piece and reports whether it is complete JSON.
func scanWhole(text string) bool {
	var s scanner
	feed(&s, text)
	return s.complete()
}

// scanSplit feeds text as text[:i] and text[i:].
func scanSplit(text string, i int) bool {
	var s scanner
	feed(&s, text[:i])
	feed(&s, []byte(text[i:]))
	return s.complete()
}

// scanBytewise feeds text one byte at a time.
func scanBytewise(text string) bool {
	var s scanner
	for i := range len(text) {
		feed(&s, text[i:i+1])
	}
	return s.complete()
}

var scanTests = []struct {
	name  string
	text  string
	valid bool
}{
	{"empty", "", false},
	{"only whitespace", " \t\r\n", false},
	{"empty object", "{}", true},
	{"empty array", "[]", true},
	{"object with whitespace everywhere", " { \"a\" : 1 , \"b\" : [ 1 , 2 ] } \n", true},
	{"nested", `{"a":{"b":[{"c":null}]}}`, true},
	{"top-level string", `"hi"`, true},
	{"top-level number", `12`, true},
	{"top-level true", `true`, true},
	{"top-level false", `false`, true},
	{"top-level null", `null`, true},
	{"zero", `0`, true},
	{"negative zero", `-0`, true},
	{"fraction", `-12.50`, true},
	{"exponent", `1e10`, true},
	{"exponent upper with sign", `1.5E+3`, true},
	{"exponent minus", `0e-7`, true},
	{"leading zero", `01`, false},
	{"lone minus", `-`, false},
	{"minus then letter", `-a`, false},
	{"dot without digits", `1.`, false},
	{"dot then exponent", `1.e5`, false},
	{"leading dot", `.5`, false},
	{"exponent without digits", `1e`, false},
	{"exponent sign without digits", `1e+`, false},
	{"plus sign", `+1`, false},
	{"number then garbage", `12x`, false},
	{"hex number", `0x1F`, false},
	{"two values", `1 2`, false},
	{"two objects", `{}{}`, false},
	{"truncated literal", `tru`, false},
	{"wrong literal", `trUe`, false},
	{"literal with tail", `nullx`, false},
	{"capital literal", `True`, false},
	{"unclosed object", `{"a":1`, false},
	{"unclosed array", `[1,2`, false},
	{"unclosed string", `"abc`, false},
	{"trailing comma in object", `{"a":1,}`, false},
	{"trailing comma in array", `[1,]`, false},
	{"leading comma", `[,1]`, false},
	{"missing colon", `{"a" 1}`, false},
	{"missing value", `{"a":}`, false},
	{"unquoted key", `{a:1}`, false},
	{"number key", `{1:1}`, false},
	{"mismatched closer", `{"a":[1}`, false},
	{"extra closer", `[1]]`, false},
	{"closer alone", `]`, false},
	{"single quotes", `{'a':1}`, false},
	{"all simple escapes", `"\" \\ \/ \b \f \n \r \t"`, true},
	{"unicode escape", `"\u00e9\u20AC"`, true},
	{"surrogate pair", `"\ud83d\ude00"`, true},
	{"lone high surrogate", `"\ud83d"`, true},
	{"lone low surrogate", `"\ude00x"`, true},
	{"short unicode escape", `"\u12"`, false},
	{"bad hex", `"\u12g4"`, false},
	{"bad escape", `"\x"`, false},
	{"escaped newline letter", `"\N"`, false},
	{"raw newline in string", "\"a\nb\"", false},
	{"raw tab in string", "\"a\tb\"", false},
	{"raw NUL in string", "\"a\x00b\"", false},
	{"DEL in string", "\"a\x7fb\"", true},
	{"raw UTF-8", `"日本語 😀"`, true},
	{"invalid UTF-8 in string", "\"\xff\xfe\"", true},
	{"truncated UTF-8 in string", "\"\xe6\x97\"", true},
	{"non-ASCII outside string", "[1,\xc3\xa9]", false},
	{"byte-order mark", "\xef\xbb\xbf{}", false},
	{"form feed is not whitespace", "\f{}", false},
	{"vertical tab is not whitespace", "{}\v", false},
	{"comment", `{} // no`, false},
	{"NaN", `NaN`, false},
	{"Infinity", `-Infinity`, false},
}

func TestScanner(t *testing.T) {
	for _, tt := range scanTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := json.Valid([]byte(tt.text)); got != tt.valid {
				t.Fatalf("the table disagrees with encoding/json.Valid(%q) = %v", tt.text, got)
			}
			if got := scanWhole(tt.text); got != tt.valid {
				t.Errorf("whole: valid = %v, want %v", got, tt.valid)
			}
			if got := scanBytewise(tt.text); got != tt.valid {
				t.Errorf("byte by byte: valid = %v, want %v", got, tt.valid)
			}
			for i := range len(tt.text) + 1 {
				if got := scanSplit(tt.text, i); got != tt.valid {
					t.Errorf("split at %d: valid = %v, want %v", i, got, tt.valid)
				}
			}
		})
	}
}

func TestScannerDepth(t *testing.T) {
	tests := []struct {
		name  string
		depth int
		valid bool
	}{
		{"one below the limit", MaxNestingDepth - 1, true},
		{"at the limit", MaxNestingDepth, true},
		{"one above the limit", MaxNestingDepth + 1, false},
	}
	for _, tt := range tests {
		for _, open := range []string{"[", `{"k":`} {
			closer := map[string]string{"[": "]", `{"k":`: "}"}[open]
			text := strings.Repeat(open, tt.depth) + "1" + strings.Repeat(closer, tt.depth)
			t.Run(tt.name+"/"+open, func(t *testing.T) {
				if got := json.Valid([]byte(text)); got != tt.valid {
					t.Fatalf("the table disagrees with encoding/json.Valid: %v", got)
				}
				if got := scanWhole(text); got != tt.valid {
					t.Errorf("valid = %v, want %v", got, tt.valid)
				}
				if got := scanBytewise(text); got != tt.valid {
					t.Errorf("byte by byte: valid = %v, want %v", got, tt.valid)
				}
			})
		}
	}
}

func TestScannerDepthError(t *testing.T) {
	var s scanner
	feed(&s, strings.Repeat("[", MaxNestingDepth+1))
	if !s.failed() {
		t.Fatal("not failed past MaxNestingDepth")
	}
	if s.faultAt != MaxNestingDepth {
		t.Errorf("faultAt = %d, want %d", s.faultAt, MaxNestingDepth)
	}
	if got, want := s.reason(), "nesting deeper than 10000"; got != want {
		t.Errorf("reason = %q, want %q", got, want)
	}
}

// TestScannerDeepReuse checks that a reset scanner reuses its deep stack and
// still tells arrays from objects at every level.
func TestScannerDeepReuse(t *testing.T) {
	var s scanner
	var b strings.Builder
	for i := range 300 {
		if i%3 == 0 {
			b.WriteString(`{"k":`)
		} else {
			b.WriteString("[")
		}
	}
	open := b.String()
	var closeB strings.Builder
	for i := 299; i >= 0; i-- {
		if i%3 == 0 {
			closeB.WriteString("}")
		} else {
			closeB.WriteString("]")
		}
	}
	text := open + "0" + closeB.String()
	for round := range 2 {
		s.reset()
		feed(&s, text)
		if !s.complete() {
			t.Fatalf("round %d: not complete: %s", round, s.reason())
		}
	}
	s.reset()
	feed(&s, open+"0}") // the innermost level, 299, is an array
	if !s.failed() {
		t.Error("a } closing an array was accepted")
	}
}

func TestScannerReason(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		at     int
		reason string
	}{
		{"bad value", `{"a":x}`, 5, `invalid character 'x' looking for the beginning of a value`},
		{"control in string", "[\"a\x01\"]", 3, `invalid character '\x01' in a string`},
		{"after key", `{"a" 1}`, 5, `invalid character '1' after an object key`},
		{"after value", `[1 2]`, 3, `invalid character '2' after a value`},
		{"after top-level", `{} x`, 3, `invalid character 'x' after the top-level value`},
		{"non-ASCII", "[\xc3]", 1, `invalid character byte 0xc3 looking for the beginning of a value`},
		{"bad escape", `"\q"`, 2, `invalid character 'q' in a string escape`},
		{"after dot", `1.x`, 2, `invalid character 'x' after a decimal point`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scanner
			feed(&s, tt.text)
			if !s.failed() {
				t.Fatal("not failed")
			}
			if s.faultAt != tt.at {
				t.Errorf("faultAt = %d, want %d", s.faultAt, tt.at)
			}
			if got := s.reason(); got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
		})
	}
}

// FuzzScanner checks the scanner against encoding/json.Valid in both
// directions, whole and split at an arbitrary point.
func FuzzScanner(f *testing.F) {
	for _, tt := range scanTests {
		f.Add(tt.text, uint16(len(tt.text)/2))
	}
	f.Fuzz(func(t *testing.T, text string, cut uint16) {
		want := json.Valid([]byte(text))
		if got := scanWhole(text); got != want {
			t.Fatalf("scanner says %v, encoding/json.Valid says %v for %q", got, want, text)
		}
		i := int(cut) % (len(text) + 1)
		if got := scanSplit(text, i); got != want {
			t.Fatalf("split at %d: scanner says %v, encoding/json.Valid says %v for %q", i, got, want, text)
		}
	})
}

// BenchmarkScanner compares the scanner, fed whole, with encoding/json.Valid
// on the same texts: the cost validation adds to Add, and what Finalize
// would pay if it validated at the end.
func BenchmarkScanner(b *testing.B) {
	var texts [][]byte
	var size int64
	for _, tt := range scanTests {
		if tt.valid {
			texts = append(texts, []byte(tt.text))
			size += int64(len(tt.text))
		}
	}
	b.Run("scanner", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, t := range texts {
				var s scanner
				feed(&s, t)
				if !s.complete() {
					b.Fatal("invalid")
				}
			}
		}
	})
	b.Run("encoding-json-valid", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, t := range texts {
				if !json.Valid(t) {
					b.Fatal("invalid")
				}
			}
		}
	})
}
