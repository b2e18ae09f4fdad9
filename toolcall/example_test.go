package toolcall_test

import (
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/toolcall"
)

// Two calls stream in interleaved, as OpenAI sends parallel tool calls; the
// assembler hands them over complete, in index order.
func ExampleAssembler() {
	stream := []toolcall.Fragment{
		{Index: 0, ID: "call_weather", Type: "function", Name: "get_weather", Arguments: ""},
		{Index: 1, ID: "call_time", Type: "function", Name: "get_time", Arguments: `{"tz":`},
		{Index: 0, Arguments: `{"city":"Par`},
		{Index: 1, Arguments: `"Europe/Paris"}`},
		{Index: 0, Arguments: `is"}`},
	}
	// readme:begin
	a := toolcall.NewAssembler() // 32 calls, 1 MiB of arguments per call
	for _, f := range stream {
		if err := a.Add(f); err != nil { // a limit was hit or the fragment is malformed; nothing changed
			fmt.Println("refused:", err)
			return
		}
	}
	// Only once the stream has ended properly ([DONE] or a finish_reason,
	// message_stop, ...): a stream cut short can look complete.
	calls, err := a.Finalize() // in index order; errors.Is(err, toolcall.ErrInvalidArguments)
	if err != nil {
		fmt.Println("invalid:", err)
		return
	}
	for _, c := range calls {
		fmt.Println(c.Index, c.ID, c.Name, c.Arguments)
	}
	// readme:end

	// Output:
	// 0 call_weather get_weather {"city":"Paris"}
	// 1 call_time get_time {"tz":"Europe/Paris"}
}

// A stream that ends in the middle of a call's arguments fails Finalize;
// the error names the call and shows the end of what arrived.
func ExampleArgumentsError() {
	a := toolcall.NewAssembler()
	_ = a.Add(toolcall.Fragment{Index: 0, ID: "call_1", Name: "write_file", Arguments: `{"path":"notes.txt","text":"Dear`})
	_, err := a.Finalize()

	var ae *toolcall.ArgumentsError
	if errors.Is(err, toolcall.ErrInvalidArguments) && errors.As(err, &ae) {
		fmt.Println("call", ae.Index, "is broken:", ae.Reason)
		fmt.Printf("it ends with %q\n", ae.Tail)
	}
	// Output:
	// call 0 is broken: unexpected end of JSON input
	// it ends with "{\"path\":\"notes.txt\",\"text\":\"Dear"
}

// A user interface can show a call while it forms. The preview's closed
// text parses as JSON; the preview itself can never be executed.
func ExampleAssembler_Preview() {
	a := toolcall.NewAssembler()
	_ = a.Add(toolcall.Fragment{Index: 0, ID: "call_1", Name: "search", Arguments: `{"query":"go json","filters":{"lang":["en","fr`})
	p, ok := a.Preview(a.LastIndex())
	fmt.Println(ok, p.Name, p.Complete)
	fmt.Println(p.Closed())
	// Output:
	// true search false
	// {"query":"go json","filters":{"lang":["en","fr"]}}
}

// Gemini's OpenAI-compatible endpoint sends each call whole, without an
// index and with an empty id; the assembler numbers them.
func ExampleFragment_noIndex() {
	a := toolcall.NewAssembler()
	for _, f := range []toolcall.Fragment{
		{NoIndex: true, ID: "", Name: "lookup", Arguments: `{"q":"a"}`},
		{NoIndex: true, ID: "", Name: "lookup", Arguments: `{"q":"b"}`},
	} {
		_ = a.Add(f)
		fmt.Println("placed at", a.LastIndex())
	}
	calls, _ := a.Finalize()
	for _, c := range calls {
		fmt.Println(c.Index, c.ID, c.Arguments)
	}
	// Output:
	// placed at 0
	// placed at 1
	// 0 call_0 {"q":"a"}
	// 1 call_1 {"q":"b"}
}

// Limits refuse the fragment that would pass them, and say by how much.
func ExampleWithMaxArgumentBytes() {
	a := toolcall.NewAssembler(toolcall.WithMaxArgumentBytes(16))
	err := a.Add(toolcall.Fragment{Index: 0, Name: "f", Arguments: `{"text":"hello, world"}`})
	fmt.Println(errors.Is(err, toolcall.ErrArgumentsTooLarge))
	fmt.Println(err)
	// Output:
	// true
	// toolcall: arguments too large: call 0 would hold 23 bytes, over the maximum of 16 bytes
}
