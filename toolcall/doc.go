// Package toolcall assembles the tool calls of a streamed LLM response from
// the fragments the provider sends, and hands them over only when they are
// complete and their arguments are valid JSON. A call whose arguments are
// still arriving is an intention being formed, never a call that may run.
// It imports nothing but the standard library, so it works under any HTTP
// client and JSON decoder.
//
//	a := toolcall.NewAssembler() // 32 calls, 1 MiB of arguments per call
//	for each tool-call delta d of the stream {
//		if err := a.Add(toolcall.Fragment{Index: d.Index, ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments}); err != nil {
//			return err // a limit was hit or the fragment is malformed; nothing of it applied
//		}
//	}
//	calls, err := a.Finalize() // only once the stream has ended properly
//
// [Assembler] says how fragments merge, [Assembler.Finalize] how arguments
// are validated and what a proper end is, [Preview] how to show a call still
// forming. [Members] reports each value of any streamed JSON text (a
// call's arguments, a structured answer) the moment it completes, with its
// path ("$.steps[2].title"), in time linear in the text. Every error wraps a sentinel for [errors.Is] in a struct for
// [errors.As]: [*LimitError], [*FragmentError], [*CallsError].
package toolcall
