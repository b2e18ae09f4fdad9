// Package toolcall assembles the tool calls of a streamed LLM response from
// the fragments the provider sends, and hands them over only when they are
// complete and their arguments are valid JSON. A call whose arguments are
// still arriving is an intention being formed, never a call that may run.
//
//	a := toolcall.NewAssembler()
//	for each tool-call delta d of the stream {
//		if err := a.Add(toolcall.Fragment{Index: d.Index, ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments}); err != nil {
//			return err // a limit was hit or the fragment is malformed
//		}
//		// to show the call forming (display only; never run it):
//		if p, ok := a.Preview(a.LastIndex()); ok {
//			draw(p.Name, p.Closed()) // p.Partial is the raw text so far; Closed, best-effort JSON of it
//		}
//	}
//	// only once the stream has ended properly:
//	calls, err := a.Finalize() // ascending index; each call's Arguments is valid JSON
//
// It imports nothing but the standard library and can be used alone, under
// any HTTP client and JSON decoder. [Assembler] documents how fragments
// merge (by index; the first id and name win; index-less fragments placed by
// rule), [Assembler.Finalize] how arguments are validated, [Preview] how to
// show a call still forming.
//
// # Finalize only after a proper end
//
// Finalize judges the calls it has. On a stream that was cut off, the calls
// that happen to be complete so far look valid and a call that never
// started is simply missing, so a caller that drives the assembler itself
// must first know that the stream ended properly — in OpenAI chat
// completions the data "[DONE]" or a finish_reason; in Anthropic Messages
// message_stop; in the Responses API response.completed or
// response.incomplete; in Gemini a candidate's finishReason — and treat any
// other end as a failure. (llmstream does this for every dialect.)
//
// # Limits
//
// Untrusted streams are bounded, exactly the limit is allowed, and the
// fragment that would pass a limit is refused whole (a [*LimitError] prints
// the size and the maximum):
//
//	limit                        default                          option                  error
//	distinct calls               DefaultMaxCalls (32)             WithMaxCalls            ErrTooManyCalls (Add)
//	argument bytes per call      DefaultMaxArgumentBytes (1 MiB)  WithMaxArgumentBytes    ErrArgumentsTooLarge (Add)
//	nesting depth of arguments   MaxNestingDepth (10000)          —                       ErrInvalidArguments (Finalize)
//	fragment index               MaxIndex (2^30-1)                —                       ErrInvalidIndex (Add)
//
// Every error wraps a sentinel for [errors.Is] in a struct for [errors.As]:
// [*LimitError], [*FragmentError], and for Finalize [*CallsError] listing
// every call with an [*ArgumentsError] for each invalid one.
package toolcall
