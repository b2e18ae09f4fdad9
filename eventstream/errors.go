package eventstream

import (
	"errors"
	"fmt"
)

// The categories of a bad stream. Every error that a bad frame causes is a
// [*FrameError] or a [*FrameSizeError] that unwraps to one of these, so
// errors.Is tells them apart and errors.As gives the frame's offset.
var (
	// ErrFrameTooLarge: a frame's total length is over the limit set by
	// [WithMaxFrameSize]. The error is a [*FrameSizeError].
	ErrFrameTooLarge = errors.New("eventstream: frame too large")
	// ErrHeadersTooLarge: a frame's headers section is longer than
	// [MaxHeadersSize]. The error is a [*FrameError], reported from the
	// prelude, before the headers are buffered.
	ErrHeadersTooLarge = errors.New("eventstream: headers section too large")
	// ErrBadLength: the prelude's lengths cannot describe a frame (a total
	// length under 16 bytes, or a headers length past the payload's start).
	ErrBadLength = errors.New("eventstream: impossible frame lengths")
	// ErrBadPreludeCRC: the prelude's CRC32 does not match its 8 bytes.
	ErrBadPreludeCRC = errors.New("eventstream: prelude CRC mismatch")
	// ErrBadMessageCRC: the frame's final CRC32 does not match the bytes
	// before it.
	ErrBadMessageCRC = errors.New("eventstream: message CRC mismatch")
	// ErrBadHeader: the headers section does not parse: an empty name, an
	// unknown value type, or a name or value running past the section.
	ErrBadHeader = errors.New("eventstream: bad header")
	// ErrTruncated: the input ended inside a frame.
	ErrTruncated = errors.New("eventstream: truncated frame")
)

// ErrInvalidOption reports an option value that cannot be used, such as a
// [WithMaxFrameSize] under 16 bytes. Constructors do not fail; the first
// [Reader.Next] or [Parser.Feed] returns an [*OptionError] that unwraps to
// ErrInvalidOption, and so does every later call.
var ErrInvalidOption = errors.New("eventstream: invalid option")

// ErrNoSource is returned by [Reader.Next] of a Reader that was not made by
// [NewReader] (a zero Reader, or one given a nil io.Reader).
var ErrNoSource = errors.New("eventstream: Reader has no source; make it with NewReader")

// ErrClosed is returned by [Parser.Feed] after [Parser.Close].
var ErrClosed = errors.New("eventstream: parser closed")

// ErrBadReadCount is returned by [Reader.Next] when the underlying io.Reader
// reports reading a negative count or more bytes than asked for.
var ErrBadReadCount = errors.New("eventstream: underlying reader returned an impossible count")

// FrameError is the error for a frame that breaks the encoding. It unwraps
// to its Err, one of [ErrBadLength], [ErrHeadersTooLarge],
// [ErrBadPreludeCRC], [ErrBadMessageCRC], [ErrBadHeader] or [ErrTruncated].
type FrameError struct {
	// Offset is the position in the stream, in bytes, of the frame's first
	// byte.
	Offset int64
	// Err is the category.
	Err error
	// Detail says what was found, with the numbers: lengths, CRCs, the
	// header's position. It never holds header or payload bytes.
	Detail string
}

// Error names the category, the offset and the detail.
func (e *FrameError) Error() string {
	return fmt.Sprintf("%v: frame at byte %d: %s", e.Err, e.Offset, e.Detail)
}

// Unwrap returns Err.
func (e *FrameError) Unwrap() error { return e.Err }

// FrameSizeError is the error for a frame whose total length is over the
// limit. It unwraps to [ErrFrameTooLarge]. It is reported as soon as the
// prelude is read, before any of the frame's other bytes.
type FrameSizeError struct {
	// Offset is the position in the stream, in bytes, of the frame's first
	// byte.
	Offset int64
	// Size is the frame's total length, in bytes, as its prelude states.
	Size int64
	// Max is the configured limit, in bytes.
	Max int
}

// Error prints the size and the limit.
func (e *FrameSizeError) Error() string {
	return fmt.Sprintf("eventstream: frame too large: frame at byte %d is %d bytes, limit %d", e.Offset, e.Size, e.Max)
}

// Unwrap returns [ErrFrameTooLarge].
func (e *FrameSizeError) Unwrap() error { return ErrFrameTooLarge }

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
	return "eventstream: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }
