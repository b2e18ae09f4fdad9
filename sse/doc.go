// Package sse parses Server-Sent Events: the text/event-stream format that
// LLM APIs stream their answers in. It follows the WHATWG standard in full,
// bounds every event, and gives the same events however the bytes are split.
//
//	r := sse.NewReader(resp.Body) // "[DONE]" ends the stream; 256 KiB per event
//	for {
//		ev, err := r.Next() // io.EOF at the end
//		if err != nil {
//			break
//		}
//		fmt.Println(ev.Type, string(ev.Data)) // Data is valid until the next Next
//	}
//
// It implements the interpretation rules of the WHATWG HTML Living Standard,
// §9.2 "Server-sent events" (https://html.spec.whatwg.org/multipage/server-sent-events.html),
// sections 9.2.5 "Parsing an event stream" and 9.2.6 "Interpreting an event
// stream", all of them:
//
//   - The stream is UTF-8. Ill-formed bytes become U+FFFD, one per maximal
//     subpart (as the Encoding Standard's decoder does: "\xE2\x82A" is
//     "\uFFFDA", not two replacements). One BOM at the very start is dropped.
//   - Lines end with CRLF, LF or a lone CR. A CR that ends one read and an LF
//     that starts the next are one line end.
//   - A line starting with ':' is a comment. Otherwise the field name runs to
//     the first ':' (or is the whole line, with an empty value) and one space
//     after the colon is removed from the value. Names match exactly.
//   - "data" appends its value and an LF to the data buffer; "event" sets the
//     type; "id" sets the last event ID unless the value contains NUL (an
//     empty value resets it, and it persists across events); "retry" sets the
//     reconnection time when the value is one or more ASCII digits, as soon as
//     its line is read. Other fields are ignored (see [WithUnknownField]).
//   - A blank line dispatches: the final LF of the data is removed; with no
//     data field nothing is dispatched; the type defaults to "message" and is
//     reset after every blank line.
//   - An event not ended by a blank line when the stream ends is discarded.
//
// For example, this stream (with LF line ends)
//
//	: keep-alive
//	event: add
//	data: 73857293
//	id: 7
//
//	data: first
//	data:second
//
// gives two events: {Type "add", Data "73857293", ID "7"} and
// {Type "message", Data "first\nsecond", ID "7"}.
//
// Beyond the standard, for LLM streams:
//
//   - The done sentinel: an event whose data is exactly "[DONE]" ends the
//     stream and is not delivered ([WithDoneSentinel] changes or disables it).
//   - A size limit: the line being read plus the pending event's data may hold
//     at most [DefaultMaxEventSize] bytes ([WithMaxEventSize]); past it the
//     stream fails with [ErrEventTooLarge]. A browser would buffer without
//     bound; a client of an untrusted server should not.
//   - Unknown fields can be reported ([WithUnknownField]); llama.cpp sends
//     mid-stream failures as "error:" lines.
//   - There is no reconnection: [Reader.LastEventID] and [Reader.Retry] give
//     what a reconnecting client needs, and the caller decides.
//
// Two ways in: [Reader] pulls events from an io.Reader; [Parser] is pushed
// the bytes by a caller that owns them. Both give the same events for the
// same bytes, however the bytes are split into reads or chunks, and both
// take time linear in the input however it is fragmented. In steady state
// neither allocates per event: an event's Data points into the parser's
// buffer and is valid only until the parser moves on (see [Event.Clone]).
//
// On amd64 CPUs with AVX2 the search for line ends and the UTF-8 check run
// as vector code, 64 bytes at a time (short inputs and the last few bytes
// of each read in plain Go); on other CPUs, or when built with the purego
// tag (go build -tags purego), all of it is plain Go. The results are the
// same: the tests and fuzz targets compare the two.
package sse
