package sse

import "bytes"

// Event is one dispatched server-sent event.
//
// An Event handed out by [Reader.Next] or [Reader.NextRef] or passed to a
// [Parser.Feed] callback borrows its Data from the parser; [Event.Clone]
// makes a copy the caller owns.
type Event struct {
	// Type is the event type: the value of the last "event" field of the
	// event, or "message" when the event had none (or an empty one).
	Type string

	// Data is the event's data: the values of its "data" fields joined by
	// "\n", without a final "\n". It may be empty (a lone "data" field) but an
	// event without any data field is never dispatched.
	//
	// Data aliases the parser's buffer. From [Reader.Next] or
	// [Reader.NextRef] it is valid until the next call to either, after
	// which its bytes may hold other data, even another Reader's (large
	// read buffers are pooled); in a [Parser.Feed] callback it is valid
	// only during that call. Copy it, or use [Event.Clone], to keep it.
	Data []byte

	// ID is the last event ID in effect when the event was dispatched: the
	// value of the most recent "id" field of the stream (not necessarily of
	// this event), or "" when there was none or it was reset.
	ID string
}

// Clone returns a copy of e whose Data the caller owns and that stays valid
// after the parser moves on. An empty Data stays empty.
func (e Event) Clone() Event {
	e.Data = bytes.Clone(e.Data)
	return e
}
