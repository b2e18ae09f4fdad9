package sse

import (
	"errors"
	"fmt"
)

// ErrEventTooLarge reports that a pending event passed the limit set by
// [WithMaxEventSize]. The error returned is an [*EventSizeError] that unwraps
// to ErrEventTooLarge, so both errors.Is and errors.As work. The stream is
// over: every later call returns the same error.
var ErrEventTooLarge = errors.New("sse: event too large")

// ErrInvalidOption reports an option value that cannot be used, such as a
// negative [WithMaxEventSize]. Constructors do not fail; the first
// [Reader.Next] or [Parser.Feed] returns an [*OptionError] that unwraps to
// ErrInvalidOption, and so does every later call.
var ErrInvalidOption = errors.New("sse: invalid option")

// ErrNoSource is returned by [Reader.Next] of a Reader that was not made
// by [NewReader] (a zero Reader, or one given a nil io.Reader): there is
// nothing to read events from.
var ErrNoSource = errors.New("sse: Reader has no source; make it with NewReader")

// ErrClosed is returned by [Parser.Feed] after [Parser.Close].
var ErrClosed = errors.New("sse: parser closed")

// ErrBadReadCount is returned by [Reader.Next] when the underlying
// io.Reader reports reading a negative count or more bytes than asked for.
var ErrBadReadCount = errors.New("sse: underlying reader returned an impossible count")

// EventSizeError is the error for a pending event that passed the limit. It
// unwraps to [ErrEventTooLarge].
type EventSizeError struct {
	// Size is how many bytes the pending line and the pending event's data
	// held when the limit was found to be passed; it is at least Max+1, and
	// may be more because bytes are checked as they arrive.
	Size int
	// Max is the configured limit, in bytes.
	Max int
}

// Error prints both numbers.
func (e *EventSizeError) Error() string {
	return fmt.Sprintf("sse: event too large: %d bytes pending, limit %d", e.Size, e.Max)
}

// Unwrap returns [ErrEventTooLarge].
func (e *EventSizeError) Unwrap() error { return ErrEventTooLarge }

// OptionError is the error for an option value that cannot be used. It
// unwraps to [ErrInvalidOption].
type OptionError struct {
	// Option is the offending option as its String method prints it.
	Option string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the option and the reason.
func (e *OptionError) Error() string {
	return "sse: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }
