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
// sections 9.2.5 and 9.2.6, all of them: UTF-8 with U+FFFD for each maximal
// ill-formed subpart and one leading BOM dropped; CRLF, LF and lone CR line
// ends, also split across reads; comments; the first ':' splitting field
// and value, one space after it removed; "data" lines joined with LF;
// "event" defaulting to "message"; "id" ignored when it holds NUL and
// persisting across events; "retry" only as ASCII digits; other fields
// ignored ([WithUnknownField] reports them); an event not ended by a blank
// line at the end of the stream discarded. This stream
//
//	: keep-alive
//	event: add
//	data: 73857293
//	id: 7
//
//	data: first
//	data:second
//
// gives {Type "add", Data "73857293", ID "7"} and {Type "message", Data
// "first\nsecond", ID "7"}.
//
// Beyond the standard, for LLM streams: the done sentinel "[DONE]" ends the
// stream ([WithDoneSentinel]); an event may hold at most
// [DefaultMaxEventSize] bytes ([WithMaxEventSize], else [ErrEventTooLarge]);
// there is no reconnection ([Reader.LastEventID] and [Reader.Retry] give what
// a caller needs to reconnect).
//
// [Reader] pulls events from an io.Reader, [Parser] is pushed the bytes.
// Both give the same events however the bytes are split, in time linear in
// the input, without allocating per event: an event's Data points into the
// parser's buffer, valid until the next event ([Event.Clone] keeps one). On
// amd64 with AVX2 the line-end search and the UTF-8 check are vector code;
// elsewhere, or with -tags purego, plain Go with the same results.
package sse
