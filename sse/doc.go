// Package sse parses Server-Sent Events: the text/event-stream format that
// LLM APIs stream their answers in. It implements the interpretation rules
// of the WHATWG HTML Living Standard, §9.2.5–9.2.6
// (https://html.spec.whatwg.org/multipage/server-sent-events.html), all of
// them; bounds every event ([DefaultMaxEventSize], else [ErrEventTooLarge]);
// ends the stream at "[DONE]" ([WithDoneSentinel]); and gives the same
// events however the bytes are split, in time linear in the input.
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
// [Reader] pulls events from an io.Reader, [Parser] is pushed the bytes. An
// event's Data points into the parser's buffer, valid until the next event
// ([Event.Clone] keeps one). There is no reconnection: [Reader.LastEventID]
// and [Reader.Retry] give what a caller needs to reconnect.
//
// [Writer] is the server's side: it writes events (and keep-alive
// comments) to an http.ResponseWriter, each flushed at once, in a form
// the Reader reads back exactly; [SetHeaders] sets the headers that keep
// proxies from buffering the stream.
package sse
