package toolcall_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// checkRefusal checks what Add returned against a table row: nil when want
// is nil; otherwise an error that matches want with errors.Is, is an E for
// errors.As, and prints text. It reports whether Add refused the fragment.
func checkRefusal[E error](t *testing.T, err, want error, text string) bool {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("Add = %v, want %v", err, want)
	}
	if err == nil {
		return false
	}
	var e E
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not a %T", err, e)
	}
	if got := err.Error(); got != text {
		t.Errorf("message = %q, want %q", got, text)
	}
	return true
}

func TestMaxArgumentBytes(t *testing.T) {
	tests := []struct {
		name    string
		opts    []toolcall.Option
		first   int // bytes accepted before the fragment under test
		size    int // bytes of the fragment under test
		wantErr error
		errText string
	}{
		{"seed: a 23-byte fragment over a 16-byte limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 0, 23, toolcall.ErrArgumentsTooLarge,
			"toolcall: arguments too large: call 0 would hold 23 bytes, over the maximum of 16 bytes"},
		{"one fragment one below the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 0, 15, nil, ""},
		{"one fragment at the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 0, 16, nil, ""},
		{"one fragment one above the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 0, 17, toolcall.ErrArgumentsTooLarge,
			"toolcall: arguments too large: call 0 would hold 17 bytes, over the maximum of 16 bytes"},
		{"accumulated one below the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 10, 5, nil, ""},
		{"accumulated at the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 10, 6, nil, ""},
		{"accumulated one above the limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(16)}, 10, 7, toolcall.ErrArgumentsTooLarge,
			"toolcall: arguments too large: call 0 would hold 17 bytes, over the maximum of 16 bytes"},
		{"default: one below 1 MiB", nil, 1 << 19, 1<<19 - 1, nil, ""},
		{"default: at 1 MiB", nil, 1 << 19, 1 << 19, nil, ""},
		{"default: one above 1 MiB", nil, 1 << 19, 1<<19 + 1, toolcall.ErrArgumentsTooLarge,
			"toolcall: arguments too large: call 0 would hold 1048577 bytes, over the maximum of 1048576 bytes"},
		{"zero means the default", []toolcall.Option{toolcall.WithMaxArgumentBytes(0)}, 1 << 19, 1<<19 + 1, toolcall.ErrArgumentsTooLarge,
			"toolcall: arguments too large: call 0 would hold 1048577 bytes, over the maximum of 1048576 bytes"},
		{"negative means no limit", []toolcall.Option{toolcall.WithMaxArgumentBytes(-1)}, 1 << 20, 1 << 20, nil, ""},
		{"the last option wins", []toolcall.Option{toolcall.WithMaxArgumentBytes(4), toolcall.WithMaxArgumentBytes(16)}, 0, 16, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler(tt.opts...)
			// Whitespace keeps the arguments valid whatever the sizes.
			addAll(t, a, []toolcall.Fragment{{Index: 0, ID: "x", Name: "f", Arguments: strings.Repeat(" ", tt.first)}})
			err := a.Add(toolcall.Fragment{Index: 0, ID: "late", Arguments: "1" + strings.Repeat(" ", tt.size-1)})
			if !checkRefusal[*toolcall.LimitError](t, err, tt.wantErr, tt.errText) {
				return
			}
			// Nothing of the refused fragment was applied: its id is not
			// taken, its bytes are not there, and the call still accepts
			// fragments.
			addAll(t, a, []toolcall.Fragment{{Index: 0, Arguments: "[]"}})
			want := []toolcall.Call{{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: strings.Repeat(" ", tt.first) + "[]"}}
			if diff := cmp.Diff(want, mustFinalize(t, a)); diff != "" {
				t.Errorf("calls after the refusal (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMaxArgumentBytesScannerUntouched checks that a refused fragment leaves
// the JSON state as it was: the refused bytes would have completed the
// arguments.
func TestMaxArgumentBytesScannerUntouched(t *testing.T) {
	a := toolcall.NewAssembler(toolcall.WithMaxArgumentBytes(8))
	addAll(t, a, []toolcall.Fragment{{Index: 0, Name: "f", Arguments: `{"a":`}})
	if err := a.Add(toolcall.Fragment{Index: 0, Arguments: `1}    `}); !errors.Is(err, toolcall.ErrArgumentsTooLarge) {
		t.Fatalf("Add = %v, want ErrArgumentsTooLarge", err)
	}
	if p, _ := a.Preview(0); p.Complete || string(p.Partial) != `{"a":` {
		t.Errorf("after the refusal: Complete = %v, Partial = %q", p.Complete, p.Partial)
	}
	_, err := a.Finalize()
	var ae *toolcall.ArgumentsError
	if !errors.As(err, &ae) || ae.Offset != 5 {
		t.Errorf("Finalize = %v, want an ArgumentsError at byte 5", err)
	}
}

func TestMaxCalls(t *testing.T) {
	tests := []struct {
		name    string
		opts    []toolcall.Option
		calls   int // calls started before the one under test
		wantErr error
		errText string
	}{
		{"one below the limit", []toolcall.Option{toolcall.WithMaxCalls(3)}, 1, nil, ""},
		{"at the limit", []toolcall.Option{toolcall.WithMaxCalls(3)}, 2, nil, ""},
		{"one above the limit", []toolcall.Option{toolcall.WithMaxCalls(3)}, 3, toolcall.ErrTooManyCalls,
			"toolcall: too many calls: call at index 3 would be call number 4, over the maximum of 3"},
		{"default: one below 32", nil, 30, nil, ""},
		{"default: at 32", nil, 31, nil, ""},
		{"default: one above 32", nil, 32, toolcall.ErrTooManyCalls,
			"toolcall: too many calls: call at index 32 would be call number 33, over the maximum of 32"},
		{"zero means the default", []toolcall.Option{toolcall.WithMaxCalls(0)}, 32, toolcall.ErrTooManyCalls,
			"toolcall: too many calls: call at index 32 would be call number 33, over the maximum of 32"},
		{"negative means no limit", []toolcall.Option{toolcall.WithMaxCalls(-1)}, 100, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler(tt.opts...)
			for i := range tt.calls {
				addAll(t, a, []toolcall.Fragment{{Index: i, Name: "f", Arguments: "{"}})
			}
			err := a.Add(toolcall.Fragment{Index: tt.calls, Name: "g", Arguments: "{}"})
			if !checkRefusal[*toolcall.LimitError](t, err, tt.wantErr, tt.errText) {
				return
			}
			// The calls already held keep accepting fragments.
			for i := range tt.calls {
				addAll(t, a, []toolcall.Fragment{{Index: i, Arguments: "}"}})
			}
			if got := mustFinalize(t, a); len(got) != tt.calls {
				t.Errorf("%d calls after the refusal, want %d", len(got), tt.calls)
			}
		})
	}
}

// TestMaxCallsPlaced checks the call limit on the calls the assembler
// places itself.
func TestMaxCallsPlaced(t *testing.T) {
	tests := []struct {
		name string
		frag toolcall.Fragment
	}{
		{"a NoIndex call", toolcall.Fragment{NoIndex: true, Name: "g"}},
		{"a new call at a reused index", toolcall.Fragment{Index: 0, ID: "other", Name: "g"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler(toolcall.WithMaxCalls(1))
			addAll(t, a, []toolcall.Fragment{{Index: 0, ID: "x", Name: "f", Arguments: "{}"}})
			err := a.Add(tt.frag)
			var le *toolcall.LimitError
			if !errors.As(err, &le) || le.Err != toolcall.ErrTooManyCalls || le.Index != 1 || le.Size != 2 || le.Max != 1 {
				t.Fatalf("Add = %#v, want a LimitError{Index: 1, Size: 2, Max: 1, Err: ErrTooManyCalls}", err)
			}
		})
	}
}

func TestFragmentErrors(t *testing.T) {
	tests := []struct {
		name    string
		frag    toolcall.Fragment
		wantErr error
		errText string
	}{
		{"negative index", toolcall.Fragment{Index: -1, Name: "f"}, toolcall.ErrInvalidIndex,
			"toolcall: invalid index: fragment for index -1: index -1 is outside [0, 1073741823]"},
		{"index one above MaxIndex", toolcall.Fragment{Index: toolcall.MaxIndex + 1}, toolcall.ErrInvalidIndex,
			"toolcall: invalid index: fragment for index 1073741824: index 1073741824 is outside [0, 1073741823]"},
		{"index at MaxIndex", toolcall.Fragment{Index: toolcall.MaxIndex}, nil, ""},
		{"index one below MaxIndex", toolcall.Fragment{Index: toolcall.MaxIndex - 1}, nil, ""},
		{"negative index ignored with NoIndex", toolcall.Fragment{Index: -1, NoIndex: true}, nil, ""},
		{"extra: an object", toolcall.Fragment{Extra: json.RawMessage(` {"a":[1]} `)}, nil, ""},
		{"extra: an empty object", toolcall.Fragment{Extra: json.RawMessage(`{}`)}, nil, ""},
		{"extra: an array", toolcall.Fragment{Extra: json.RawMessage(`[{"a":1}]`)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index 0: extra is not a JSON object"},
		{"extra: null", toolcall.Fragment{Extra: json.RawMessage(`null`)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index 0: extra is not a JSON object"},
		{"extra: a string", toolcall.Fragment{Index: 2, Extra: json.RawMessage(`"secret"`)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index 2: extra is not a JSON object"},
		{"extra: unclosed", toolcall.Fragment{NoIndex: true, Extra: json.RawMessage(`{"a":1`)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index -1: extra is not a JSON object"},
		{"extra: whitespace only", toolcall.Fragment{Extra: json.RawMessage(` `)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index 0: extra is not a JSON object"},
		{"extra: nested one below MaxNestingDepth", toolcall.Fragment{Extra: nestedObject(toolcall.MaxNestingDepth - 1)}, nil, ""},
		{"extra: nested at MaxNestingDepth", toolcall.Fragment{Extra: nestedObject(toolcall.MaxNestingDepth)}, nil, ""},
		{"extra: nested one above MaxNestingDepth", toolcall.Fragment{Extra: nestedObject(toolcall.MaxNestingDepth + 1)}, toolcall.ErrInvalidExtra,
			"toolcall: invalid extra: fragment for index 0: extra is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler()
			err := a.Add(tt.frag)
			if !checkRefusal[*toolcall.FragmentError](t, err, tt.wantErr, tt.errText) {
				return
			}
			if calls, _ := a.Finalize(); calls != nil {
				t.Errorf("a refused fragment started a call: %+v", calls)
			}
		})
	}
}

// nestedObject returns a JSON object nested depth (≥ 1) levels deep: an
// object holding arrays around a 0.
func nestedObject(depth int) json.RawMessage {
	return json.RawMessage(`{"a":` + strings.Repeat("[", depth-1) + "0" + strings.Repeat("]", depth-1) + `}`)
}

func TestArgumentsError(t *testing.T) {
	long := strings.Repeat("x", 100)
	// 63 ASCII bytes then "é" (2 bytes): the last 64 bytes start inside é.
	cut := `"` + strings.Repeat("a", 40) + "é" + strings.Repeat("b", 63)
	tests := []struct {
		name  string
		frags []toolcall.Fragment
		want  *toolcall.ArgumentsError
		text  string
	}{
		{
			name: "seed: unclosed arguments name the index and the tail",
			frags: []toolcall.Fragment{
				{Index: 0, ID: "a", Name: "f", Arguments: `{}`},
				{Index: 1, ID: "b", Name: "g", Arguments: `{"path":"/tmp`},
			},
			want: &toolcall.ArgumentsError{Index: 1, ID: "b", Name: "g", Offset: 13, Reason: "unexpected end of JSON input", Tail: `{"path":"/tmp`, Err: toolcall.ErrInvalidArguments},
			text: `toolcall: invalid arguments: call 1 (b) to "g": unexpected end of JSON input at byte 13; tail "{\"path\":\"/tmp"`,
		},
		{
			name:  "an invalid byte names its offset",
			frags: []toolcall.Fragment{{Index: 0, Arguments: `{"a":tru`}, {Index: 0, Arguments: `x}`}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 8, Reason: "invalid character 'x' in a literal", Tail: `{"a":trux}`, Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): invalid character 'x' in a literal at byte 8; tail "{\"a\":trux}"`,
		},
		{
			name: "the first invalid call in index order is reported",
			frags: []toolcall.Fragment{
				{Index: 2, Arguments: `[`},
				{Index: 1, Arguments: `]`},
				{Index: 0, Arguments: `0`},
			},
			want: &toolcall.ArgumentsError{Index: 1, ID: "call_1", Offset: 0, Reason: "invalid character ']' looking for the beginning of a value", Tail: `]`, Err: toolcall.ErrInvalidArguments},
			text: `toolcall: invalid arguments: call 1 (call_1): invalid character ']' looking for the beginning of a value at byte 0; tail "]" (and 1 more invalid call)`,
		},
		{
			name:  "the tail is the last 64 bytes",
			frags: []toolcall.Fragment{{Index: 0, Arguments: `["` + long}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 102, Reason: "unexpected end of JSON input", Tail: long[36:], Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): unexpected end of JSON input at byte 102; tail "` + long[36:] + `"`,
		},
		{
			name:  "the tail starts on a UTF-8 boundary",
			frags: []toolcall.Fragment{{Index: 0, Arguments: cut}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 106, Reason: "unexpected end of JSON input", Tail: strings.Repeat("b", 63), Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): unexpected end of JSON input at byte 106; tail "` + strings.Repeat("b", 63) + `"`,
		},
		{
			name:  "the tail one below TailBytes is whole",
			frags: []toolcall.Fragment{{Index: 0, Arguments: `"` + long[:toolcall.TailBytes-2]}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 63, Reason: "unexpected end of JSON input", Tail: `"` + long[:62], Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): unexpected end of JSON input at byte 63; tail "\"` + long[:62] + `"`,
		},
		{
			name:  "the tail at TailBytes is whole",
			frags: []toolcall.Fragment{{Index: 0, Arguments: `"` + long[:toolcall.TailBytes-1]}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 64, Reason: "unexpected end of JSON input", Tail: `"` + long[:63], Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): unexpected end of JSON input at byte 64; tail "\"` + long[:63] + `"`,
		},
		{
			name:  "the tail one above TailBytes loses the first byte",
			frags: []toolcall.Fragment{{Index: 0, Arguments: `"` + long[:toolcall.TailBytes]}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: 65, Reason: "unexpected end of JSON input", Tail: long[:64], Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): unexpected end of JSON input at byte 65; tail "` + long[:64] + `"`,
		},
		{
			name:  "too deep",
			frags: []toolcall.Fragment{{Index: 0, Arguments: strings.Repeat("[", toolcall.MaxNestingDepth+1)}},
			want:  &toolcall.ArgumentsError{Index: 0, ID: "call_0", Offset: toolcall.MaxNestingDepth, Reason: "nesting deeper than 10000", Tail: strings.Repeat("[", 64), Err: toolcall.ErrInvalidArguments},
			text:  `toolcall: invalid arguments: call 0 (call_0): nesting deeper than 10000 at byte 10000; tail "` + strings.Repeat("[", 64) + `"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler()
			addAll(t, a, tt.frags)
			calls, err := a.Finalize()
			if calls != nil {
				t.Errorf("calls = %+v, want nil", calls)
			}
			if !errors.Is(err, toolcall.ErrInvalidArguments) {
				t.Fatalf("Finalize = %v, want ErrInvalidArguments", err)
			}
			var ae *toolcall.ArgumentsError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *ArgumentsError", err)
			}
			if diff := cmp.Diff(*tt.want, *ae, cmp.Comparer(func(x, y error) bool { return x == y })); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := err.Error(); got != tt.text {
				t.Errorf("message = %q, want %q", got, tt.text)
			}
			// The same answer again.
			if _, again := a.Finalize(); again == nil || again.Error() != err.Error() {
				t.Errorf("second Finalize = %v, want the same error", again)
			}
		})
	}
}

func TestOptionString(t *testing.T) {
	tests := []struct {
		opt  toolcall.Option
		want string
	}{
		{toolcall.WithMaxCalls(8), "toolcall.WithMaxCalls(8)"},
		{toolcall.WithMaxCalls(-1), "toolcall.WithMaxCalls(-1)"},
		{toolcall.WithMaxArgumentBytes(1024), "toolcall.WithMaxArgumentBytes(1024)"},
		{toolcall.WithStrictIndex(), "toolcall.WithStrictIndex()"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.opt.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
	if toolcall.WithMaxCalls(8) != toolcall.WithMaxCalls(8) || toolcall.WithMaxCalls(8) == toolcall.WithMaxCalls(9) {
		t.Error("options do not compare by value")
	}
}

func TestNilOption(t *testing.T) {
	a := toolcall.NewAssembler(nil, toolcall.WithMaxCalls(1), nil)
	addAll(t, a, []toolcall.Fragment{{Index: 0}})
	if err := a.Add(toolcall.Fragment{Index: 1}); !errors.Is(err, toolcall.ErrTooManyCalls) {
		t.Errorf("Add = %v, want ErrTooManyCalls", err)
	}
}
