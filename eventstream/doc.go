// Package eventstream decodes AWS event streams: the binary framing
// (application/vnd.amazon.eventstream) that Amazon Bedrock's
// ConverseStream and other AWS streaming APIs answer in, as AWS documents
// it under "event stream encoding". It bounds every frame
// ([DefaultMaxFrameSize], else [ErrFrameTooLarge], from the prelude, before
// the bytes are buffered), checks both CRCs, and gives the same frames and
// errors however the bytes are split, in time linear in the input.
//
//	r := eventstream.NewReader(resp.Body) // 16 MiB per frame
//	for {
//		m, err := r.Next() // io.EOF at a clean end; ErrTruncated inside a frame
//		if err != nil {
//			break
//		}
//		t, _ := m.Header(":event-type")
//		fmt.Println(t, string(m.Payload)) // valid until the next Next
//	}
//
// [Reader] pulls frames from an io.Reader, [Parser] is pushed the bytes. A
// [Message] points into the parser's buffer, valid until the next frame
// ([Message.Clone] keeps one). [AppendFrame] writes frames, for servers and
// tests. Where it is stricter than aws-sdk-go-v2's decoder is in README.md.
package eventstream
