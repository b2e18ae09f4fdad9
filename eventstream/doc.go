// Package eventstream decodes AWS event streams: the binary framing
// (application/vnd.amazon.eventstream) that Amazon Bedrock's
// ConverseStream and other AWS streaming APIs answer in. It bounds every
// frame, checks both CRCs, and gives the same frames however the bytes are
// split.
//
//	r := eventstream.NewReader(resp.Body) // 16 MiB per frame
//	for {
//		m, err := r.Next() // io.EOF at a clean end
//		if err != nil {
//			break
//		}
//		t, _ := m.Header(":event-type")
//		fmt.Println(t, string(m.Payload)) // valid until the next Next
//	}
//
// It implements the encoding AWS documents as "event stream encoding" (for
// example https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html),
// as aws-sdk-go-v2's aws/protocol/eventstream and aws-c-event-stream read
// it. A frame is, with every integer big-endian:
//
//	total length (4) | headers length (4) | prelude CRC (4) |
//	headers | payload | message CRC (4)
//
// where both CRCs are CRC32 (IEEE, as gzip) — the prelude's over the 8 bytes
// before it, the message's over every byte before it — so a frame is at
// least 16 bytes. A header is a name length (1 byte), the name, a value type
// (1 byte) and the value: nothing for true (0) and false (1); 1, 2, 4 or 8
// bytes for byte (2), short (3), int (4) and long (5); a 2-byte length and
// that many bytes for byte array (6) and string (7); 8 bytes of Unix
// milliseconds for timestamp (8); 16 bytes for uuid (9). See [Type].
//
// Where it is stricter than aws-sdk-go-v2's decoder: a frame over
// [DefaultMaxFrameSize] ([WithMaxFrameSize]) is an error, [ErrFrameTooLarge],
// reported from its prelude, before its bytes are buffered (AWS's Go decoder
// has no bound); an impossible prelude (a total length under 16, a headers
// length past the payload) is [ErrBadLength] at once, where AWS's reads on
// with a wrapped-around length; an empty header name, and a name length
// that is the headers section's last byte (AWS's drops it), are
// [ErrBadHeader]; an input that ends inside a frame is [ErrTruncated], where
// AWS's returns a bare io.EOF — a clean end to its callers — when the cut
// falls just before a header, the payload or the message CRC. A
// repeated header name is kept, in order; [Message.Header] returns the last,
// as AWS's decoder keeps the last.
//
// [Reader] pulls frames from an io.Reader, [Parser] is pushed the bytes.
// Both give the same frames and errors however the bytes are split, in time
// linear in the input, without allocating per frame: a [Message] points into
// the parser's buffer, valid until the next frame ([Message.Clone] keeps
// one). [AppendFrame] writes frames, for servers and tests.
package eventstream
