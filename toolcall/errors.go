package toolcall

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// Sentinel errors. Test for them with [errors.Is]; the error returned is a
// struct ([*LimitError], [*FragmentError], [*ArgumentsError]) carrying the
// facts, which [errors.As] retrieves.
var (
	// ErrTooManyCalls: a fragment would have started a call past the
	// [WithMaxCalls] limit. Returned by [Assembler.Add] in a [*LimitError].
	ErrTooManyCalls = errors.New("toolcall: too many calls")

	// ErrArgumentsTooLarge: a fragment would have taken a call's arguments
	// past the [WithMaxArgumentBytes] limit. Returned by [Assembler.Add] in
	// a [*LimitError].
	ErrArgumentsTooLarge = errors.New("toolcall: arguments too large")

	// ErrInvalidArguments: a call's arguments are not one complete JSON
	// value. Returned by [Assembler.Finalize] in an [*ArgumentsError].
	ErrInvalidArguments = errors.New("toolcall: invalid arguments")

	// ErrInvalidIndex: a fragment without NoIndex carried an Index outside
	// [0, MaxIndex].
	// Returned by [Assembler.Add] in a [*FragmentError].
	ErrInvalidIndex = errors.New("toolcall: invalid index")

	// ErrInvalidExtra: a fragment's Extra is not empty and not a JSON
	// object. Returned by [Assembler.Add] in a [*FragmentError].
	ErrInvalidExtra = errors.New("toolcall: invalid extra")
)

// LimitError reports a fragment refused by [Assembler.Add] because applying
// it would pass a limit. Nothing of the fragment was applied. Err is
// [ErrTooManyCalls] or [ErrArgumentsTooLarge], and Unwrap returns it.
type LimitError struct {
	// Index is the index of the call the fragment was headed for: the call
	// it would have started (ErrTooManyCalls) or the call it would have
	// grown (ErrArgumentsTooLarge); -1 for a [Members] text.
	Index int
	// Size is what the fragment would have made it: the number of calls,
	// or the call's argument bytes.
	Size int
	// Max is the configured limit Size passed.
	Max int
	// Err is the sentinel naming the limit.
	Err error
}

// Error says which limit, the size the fragment would have reached, and the
// maximum.
func (e *LimitError) Error() string {
	if e.Err == ErrTooManyCalls {
		return "toolcall: too many calls: call at index " + strconv.Itoa(e.Index) +
			" would be call number " + strconv.Itoa(e.Size) + ", over the maximum of " + strconv.Itoa(e.Max)
	}
	who := "call " + strconv.Itoa(e.Index)
	if e.Index < 0 {
		who = "the text" // a Members' text, not a call's
	}
	return "toolcall: arguments too large: " + who + " would hold " +
		strconv.Itoa(e.Size) + " bytes, over the maximum of " + strconv.Itoa(e.Max) + " bytes"
}

// Unwrap returns Err, so that [errors.Is] finds the sentinel.
func (e *LimitError) Unwrap() error { return e.Err }

// FragmentError reports a fragment refused by [Assembler.Add] because it is
// malformed. Nothing of the fragment was applied. Err is [ErrInvalidIndex] or
// [ErrInvalidExtra], and Unwrap returns it. The message never quotes the
// fragment's content.
type FragmentError struct {
	// Index is the fragment's Index field, or -1 for a NoIndex fragment.
	Index int
	// Reason says what is wrong, e.g. "extra is not a JSON object".
	Reason string
	// Err is the sentinel naming the problem.
	Err error
}

// Error names the sentinel, the fragment's index and the reason.
func (e *FragmentError) Error() string {
	return e.Err.Error() + ": fragment for index " + strconv.Itoa(e.Index) + ": " + e.Reason
}

// Unwrap returns Err, so that [errors.Is] finds the sentinel.
func (e *FragmentError) Unwrap() error { return e.Err }

// TailBytes is the most bytes of a call's arguments an [ArgumentsError]
// quotes in Tail.
const TailBytes = 64

// ArgumentsError reports the first call, in ascending index order, whose
// arguments are not one complete JSON value; [Assembler.Finalize] returns it.
// Err is [ErrInvalidArguments], and Unwrap returns it.
type ArgumentsError struct {
	// Index is the call's index, as [Call.Index] would have been; -1 for
	// a [Members] text.
	Index int
	// ID is the call's id, as [Call.ID] would have been ("call_<Index>"
	// when the provider sent none), so a caller can answer the call.
	ID string
	// Name is the function's name, as [Call.Name] would have been.
	Name string
	// Offset is where in the arguments the problem is: the offending byte,
	// or the length of the arguments when they stop inside a value.
	Offset int
	// Reason says what is wrong, e.g. "unexpected end of JSON input".
	Reason string
	// Tail is the end of the arguments: at most TailBytes bytes, starting
	// on a UTF-8 character boundary, so the broken call can be recognized.
	Tail string
	// Err is ErrInvalidArguments.
	Err error
}

// Error names the call (index, id and function), the reason, the offset
// and the quoted tail.
func (e *ArgumentsError) Error() string {
	who := "call " + strconv.Itoa(e.Index)
	if e.Index < 0 {
		who = "the text" // a Members' text, not a call's
	}
	if e.ID != "" {
		who += " (" + e.ID + ")"
	}
	if e.Name != "" {
		who += " to " + strconv.Quote(e.Name)
	}
	return e.Err.Error() + ": " + who + ": " + e.Reason +
		" at byte " + strconv.Itoa(e.Offset) + "; tail " + strconv.Quote(e.Tail)
}

// CallsError is what [Assembler.Finalize] returns when some calls'
// arguments are not one complete JSON value. It lists every call, so that a
// caller can answer each one (an agent loop telling the model what was
// wrong) — never run it. errors.As finds the first invalid call's
// [*ArgumentsError], and errors.Is finds [ErrInvalidArguments].
type CallsError struct {
	// Calls is every call in ascending index order, as Finalize would have
	// returned them, except that the arguments of the invalid calls are
	// the text as received. None of them may be executed.
	Calls []Call
	// Invalid holds the error of each invalid call, in ascending index
	// order; it is never empty.
	Invalid []*ArgumentsError
}

// Error prints the first invalid call's error and how many more there are.
func (e *CallsError) Error() string {
	msg := e.Invalid[0].Error()
	if n := len(e.Invalid) - 1; n > 0 {
		msg += " (and " + strconv.Itoa(n) + " more invalid call"
		if n > 1 {
			msg += "s"
		}
		msg += ")"
	}
	return msg
}

// Unwrap returns every invalid call's [*ArgumentsError].
func (e *CallsError) Unwrap() []error {
	out := make([]error, len(e.Invalid))
	for i, a := range e.Invalid {
		out[i] = a
	}
	return out
}

// Unwrap returns Err, so that [errors.Is] finds the sentinel.
func (e *ArgumentsError) Unwrap() error { return e.Err }

// tail returns the last TailBytes bytes of b or fewer, so that the result
// does not start inside a UTF-8 sequence. The cut moves forward past at most
// utf8.UTFMax-1 continuation bytes: a longer run is not UTF-8 anyway, and the
// tail is then cut where the bytes allow.
func tail(b []byte) string {
	if len(b) <= TailBytes {
		return string(b)
	}
	i := len(b) - TailBytes
	for k := 0; k < utf8.UTFMax-1 && i < len(b) && !utf8.RuneStart(b[i]); k++ {
		i++
	}
	return string(b[i:])
}
