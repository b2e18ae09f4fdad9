package toolcall

import "encoding/json"

// Fragment is one piece of a tool call as a streaming provider sends it: in
// OpenAI's chat completions stream, one element of choices[].delta.tool_calls.
// Empty strings mean "not sent". A Fragment is only read by [Assembler.Add];
// the assembler keeps no reference to Extra's bytes.
type Fragment struct {
	// Index is the provider's index of the call this fragment belongs to.
	// Unless NoIndex is set it must be in [0, MaxIndex]; otherwise Add
	// refuses the fragment with [ErrInvalidIndex].
	Index int
	// NoIndex marks a fragment whose provider sent no usable integer index
	// (Gemini's OpenAI-compatible endpoint sends none); Index is then
	// ignored and the assembler places the fragment itself (see the package
	// documentation).
	NoIndex bool
	// ID is the call's id ("call_abc..."); the first non-empty one wins.
	ID string
	// Type is the call's type, "function" in practice; the first non-empty
	// one wins.
	Type string
	// Name is the function's name; the first non-empty one wins, and names
	// are never concatenated.
	Name string
	// Arguments is the next piece of the function's arguments, JSON text.
	// When a provider sent the arguments as a JSON object rather than a
	// string, pass that object's text here; it is text like any other.
	Arguments string
	// Extra holds the provider's own members of the tool-call object, those
	// other than index, id, type and function, as one JSON object, e.g.
	// Gemini's {"extra_content":{"google":{"thought_signature":"..."}}}.
	// Empty means none. It must be a JSON object; anything else is refused
	// with [ErrInvalidExtra]. The first non-empty Extra of a call is kept
	// (copied) and later ones are checked but dropped.
	Extra json.RawMessage
}

// Call is one complete tool call, as [Assembler.Finalize] returns it. Only a
// Call from a successful Finalize has validated arguments; the caller owns
// all of it.
type Call struct {
	// Index is the call's index: the provider's index, or the index the
	// assembler gave it (NoIndex fragments, a new call at a reused index).
	Index int
	// ID is the first non-empty id the call's fragments carried, or
	// "call_<Index>" when none did.
	ID string
	// Type is the first non-empty type the call's fragments carried, or
	// "function" when none did.
	Type string
	// Name is the first non-empty name the call's fragments carried; it may
	// be empty if no fragment carried one.
	Name string
	// Arguments is one complete JSON value (RFC 8259; any value, not only an
	// object), exactly as the provider sent it: keys keep their order and
	// whitespace is kept. It is "{}" when no arguments arrived, or only
	// whitespace did.
	Arguments string
	// Extra is the first non-empty Fragment.Extra of the call, a JSON
	// object, so that the next request can echo it; nil when there was none.
	Extra json.RawMessage
}
