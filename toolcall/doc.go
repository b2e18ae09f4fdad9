// Package toolcall assembles the tool calls of a streamed LLM response from
// the fragments the provider sends, and hands them over only when they are
// complete and their arguments are valid JSON. A call whose arguments are
// still arriving is an intention being formed, never a call that may run.
//
// It imports nothing but the standard library and can be used alone, under
// any HTTP client and JSON decoder: decode each element of a chunk's
// choices[].delta.tool_calls into a [Fragment], [Assembler.Add] it, and at the
// end of the stream call [Assembler.Finalize].
//
//	a := toolcall.NewAssembler()
//	for each tool-call delta d {
//		if err := a.Add(toolcall.Fragment{Index: d.Index, ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments}); err != nil {
//			return err // a limit was hit or the fragment is malformed
//		}
//	}
//	calls, err := a.Finalize() // ascending index; each call's Arguments is valid JSON
//
// # Merge rules
//
// Fragments merge by index, and the calls of one response may interleave in
// any order. For each call:
//
//   - the first non-empty ID, Name and Type win; later ones are ignored, and
//     names are never concatenated;
//   - Arguments are concatenated in arrival order and kept exactly as sent
//     (keys are not reordered, whitespace is kept);
//   - the first non-empty Extra (the provider's own members of the tool-call
//     object, such as Gemini's extra_content with its thought_signature) is
//     kept so that the next request can echo it;
//   - a call no fragment gave an id is "call_<index>"; one no fragment gave a
//     type is "function"; one whose arguments are empty, or only whitespace,
//     gets "{}".
//
// A fragment at an index whose call already has a different non-empty id is
// merged into that call (some servers change the id in the middle of a call)
// — unless the fragment also carries a name and the call's arguments already
// form complete JSON. Then it starts a new call at the next free index (one
// past the highest index in use), and later fragments with the provider's
// index go to the new call. Old Ollama versions number every parallel call 0;
// this rule keeps them apart. Likewise, a provider index that the assembler
// has already given to such a call starts a new call at the next free index.
//
// # Fragments without an index
//
// [Fragment.NoIndex] marks a fragment whose provider sent no usable index
// (Gemini's OpenAI-compatible endpoint sends every call whole without one,
// sometimes with "id": ""). By default:
//
//   - one that carries an ID or a Name starts a new call at the next free
//     index, unless its ID is the newest call's ID (a repeated header);
//   - one that carries neither continues the newest call (the one started
//     last), or starts call 0 when there is none.
//
// [WithStrictIndex] ignores such fragments instead, as NanoCodeAgent did.
// [Assembler.LastIndex] tells which index a fragment was merged into.
//
// # Limits
//
// Untrusted streams are bounded, and a refused fragment changes nothing:
//
//	limit                        default                    option                  error from Add
//	distinct calls               DefaultMaxCalls (32)       WithMaxCalls            ErrTooManyCalls
//	argument bytes per call      DefaultMaxArgumentBytes    WithMaxArgumentBytes    ErrArgumentsTooLarge
//	                             (1 MiB)
//	nesting depth of arguments   MaxNestingDepth (10000)    —                       ErrInvalidArguments (from Finalize)
//	fragment index               MaxIndex (2^30-1)          —                       ErrInvalidIndex
//
// Exactly the limit is allowed. The fragment that would pass a limit is
// refused whole, with a [*LimitError] that prints the size and the maximum; a
// call already held keeps accepting fragments after the call limit is hit.
//
// # Validation
//
// Finalize accepts a call's arguments when they are exactly one JSON value as
// RFC 8259 defines it, with optional whitespace around it. Any value is
// accepted, not only an object, as NanoCodeAgent did; a tool that needs an
// object checks that itself. The check is the one encoding/json's Valid
// makes, byte for byte, including its two readings of the RFC: bytes inside
// strings are not checked for UTF-8 validity (decoders such as encoding/json
// turn invalid bytes into U+FFFD), and \u escapes of unpaired surrogates are
// accepted. A byte-order mark is rejected. Nesting deeper than
// [MaxNestingDepth] is rejected, as encoding/json does.
//
// The check runs incrementally as fragments arrive — each byte is looked at
// once, without allocation — so Finalize itself costs O(number of calls).
// The first invalid call in index order fails Finalize with an
// [*ArgumentsError] that names the call's index, where and why the JSON
// broke, and the last [TailBytes] bytes of the arguments.
//
// # Previews
//
// [Assembler.Preview] shows a call still forming: its id and name so far,
// its raw arguments so far, and a best-effort completion of them into JSON a
// user interface can parse (`{"city":"Par` becomes `{"city":"Par"}`). A
// [Preview] is not a [Call] and cannot become one; nothing may execute it.
//
// # Errors
//
// Every error wraps a sentinel for [errors.Is] in a struct for [errors.As]:
// [ErrTooManyCalls] and [ErrArgumentsTooLarge] in [*LimitError],
// [ErrInvalidIndex] and [ErrInvalidExtra] in [*FragmentError], and
// [ErrInvalidArguments] in [*ArgumentsError].
package toolcall
