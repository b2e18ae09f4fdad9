package agentloop

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseArguments(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    string
		wantErr error
	}{
		{"object", `{"path":"a.go"}`, `{"path":"a.go"}`, nil},
		{"empty object", `{}`, `{}`, nil},
		{"empty text means no arguments", ``, `{}`, nil},
		{"blank text means no arguments", " \n\t", `{}`, nil},
		{"surrounding space trimmed", ` {"a":1} `, `{"a":1}`, nil},
		{"array refused", `[1,2]`, ``, ErrInvalidArguments},
		{"string refused", `"x"`, ``, ErrInvalidArguments},
		{"null refused", `null`, ``, ErrInvalidArguments},
		{"unterminated object refused", `{"a":`, ``, ErrInvalidArguments},
		{"two objects refused", `{}{}`, ``, ErrInvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArguments(tc.args)
			if !errors.Is(err, tc.wantErr) || string(got) != tc.want {
				t.Errorf("parseArguments(%q) = %q, %v; want %q, %v", tc.args, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// FuzzParseArguments: arguments are accepted exactly when they are blank
// or one JSON object, and what the tool gets is that object.
func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`{}`, ``, `{"a":[1,{"b":null}]}`, `[]`, `{"a":"\u00e9"}`, `{`, ` {} `, "{\"a\":\"\xff\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got, err := parseArguments(args)
		if err != nil {
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("wrong error %v", err)
			}
			if isObject([]byte(args)) {
				t.Fatalf("refused the object %q", args)
			}
			return
		}
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("accepted %q as %q, which is not an object: %v", args, got, err)
		}
	})
}

func TestHead(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short kept", "abc", 3, "abc"},
		{"long cut", "abcd", 3, "abc..."},
		{"cut on a rune boundary", "a\u00e9b", 2, "a..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := head(tc.s, tc.n); got != tc.want {
				t.Errorf("head(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
		})
	}
}
