package toolcall_test

import (
	"errors"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// TestCallsErrorListsEveryCall: a failed Finalize names each invalid call
// with its id and name and lists every call, so a caller can answer them
// all; the valid ones keep their validated text, the invalid ones the text
// as received.
func TestCallsErrorListsEveryCall(t *testing.T) {
	a := toolcall.NewAssembler()
	for _, f := range []toolcall.Fragment{
		{Index: 0, ID: "c0", Name: "read", Arguments: `{"path":"a"}`},
		{Index: 1, Name: "write", Arguments: `{"path":`},
		{Index: 2, ID: "c2", Name: "grep", Arguments: `[1,]`},
		{Index: 3, ID: "c3", Name: "list"},
	} {
		if err := a.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	calls, err := a.Finalize()
	if calls != nil {
		t.Fatalf("calls = %v, want none", calls)
	}
	var ce *toolcall.CallsError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *CallsError", err)
	}
	wantCalls := []toolcall.Call{
		{Index: 0, ID: "c0", Type: "function", Name: "read", Arguments: `{"path":"a"}`},
		{Index: 1, ID: "call_1", Type: "function", Name: "write", Arguments: `{"path":`},
		{Index: 2, ID: "c2", Type: "function", Name: "grep", Arguments: `[1,]`},
		{Index: 3, ID: "c3", Type: "function", Name: "list", Arguments: `{}`},
	}
	if diff := cmp.Diff(wantCalls, ce.Calls); diff != "" {
		t.Errorf("Calls (-want +got):\n%s", diff)
	}
	if len(ce.Invalid) != 2 || ce.Invalid[0].ID != "call_1" || ce.Invalid[0].Name != "write" || ce.Invalid[1].ID != "c2" || ce.Invalid[1].Index != 2 {
		t.Errorf("Invalid = %+v, want calls 1 (call_1, write) and 2 (c2)", ce.Invalid)
	}
	var ae *toolcall.ArgumentsError
	if !errors.As(err, &ae) || ae != ce.Invalid[0] || !errors.Is(err, toolcall.ErrInvalidArguments) {
		t.Errorf("errors.As finds %v, want the first invalid call", ae)
	}
	const wantText = `toolcall: invalid arguments: call 1 (call_1) to "write": unexpected end of JSON input at byte 8; tail "{\"path\":" (and 1 more invalid call)`
	if err.Error() != wantText {
		t.Errorf("Error() = %q, want %q", err, wantText)
	}
}

// TestZeroAssembler: the zero Assembler works with the default limits.
func TestZeroAssembler(t *testing.T) {
	var a toolcall.Assembler
	if got := a.LastIndex(); got != -1 {
		t.Errorf("LastIndex of a zero Assembler = %d, want -1", got)
	}
	if _, ok := a.Preview(0); ok {
		t.Error("Preview of a zero Assembler found a call")
	}
	if calls, err := a.Finalize(); calls != nil || err != nil {
		t.Errorf("Finalize of a zero Assembler = %v, %v", calls, err)
	}
	for i := range toolcall.DefaultMaxCalls {
		if err := a.Add(toolcall.Fragment{Index: i, Name: "f"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := a.LastIndex(); got != toolcall.DefaultMaxCalls-1 {
		t.Errorf("LastIndex = %d", got)
	}
	err := a.Add(toolcall.Fragment{Index: toolcall.DefaultMaxCalls, Name: "f"})
	var le *toolcall.LimitError
	if !errors.As(err, &le) || le.Max != toolcall.DefaultMaxCalls {
		t.Errorf("call past the default limit: %v", err)
	}
	var b toolcall.Assembler
	big := make([]byte, toolcall.DefaultMaxArgumentBytes+1)
	if err := b.Add(toolcall.Fragment{Index: 0, Arguments: string(big)}); !errors.Is(err, toolcall.ErrArgumentsTooLarge) {
		t.Errorf("arguments past the default limit: %v", err)
	}
	if err := b.Add(toolcall.Fragment{Index: 0, Arguments: string(big[1:])}); err != nil {
		t.Errorf("arguments at the default limit: %v", err)
	}
}
