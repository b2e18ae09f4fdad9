package eventstream_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/airlock-go/airlock/eventstream"
)

// event writes one frame as Bedrock's ConverseStream sends its events.
func event(w *bytes.Buffer, typ, payload string) {
	f, err := eventstream.AppendFrame(nil, eventstream.Message{
		Headers: []eventstream.Header{
			{Name: ":event-type", Value: eventstream.String(typ)},
			{Name: ":content-type", Value: eventstream.String("application/json")},
			{Name: ":message-type", Value: eventstream.String("event")},
		},
		Payload: []byte(payload),
	})
	if err != nil {
		panic(err)
	}
	w.Write(f)
}

func ExampleReader() {
	var body bytes.Buffer // an HTTP response body, in real use
	event(&body, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"}}`)
	event(&body, "messageStop", `{"stopReason":"end_turn"}`)

	// readme:begin
	r := eventstream.NewReader(&body)
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		t, _ := m.Header(":event-type")
		fmt.Printf("%s %s\n", t, m.Payload)
	}
	// readme:end

	// Output:
	// contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"Hello"}}
	// messageStop {"stopReason":"end_turn"}
}

func ExampleParser() {
	var body bytes.Buffer
	event(&body, "messageStop", `{"stopReason":"end_turn"}`)
	wire := body.Bytes()

	p := eventstream.NewParser()
	print := func(m eventstream.Message) error {
		t, _ := m.Header(":event-type")
		fmt.Printf("%s %s\n", t, m.Payload)
		return nil
	}
	// The frame arrives in two pieces; the second completes it.
	if err := p.Feed(wire[:20], print); err != nil {
		fmt.Println(err)
	}
	if err := p.Feed(wire[20:], print); err != nil {
		fmt.Println(err)
	}
	fmt.Println(p.Close())
	// Output:
	// messageStop {"stopReason":"end_turn"}
	// <nil>
}

func ExampleReader_truncated() {
	var body bytes.Buffer
	event(&body, "messageStop", `{"stopReason":"end_turn"}`)
	cut := body.Bytes()[:30] // the connection dropped mid-frame

	_, err := eventstream.NewReader(bytes.NewReader(cut)).Next()
	fmt.Println(err)
	// Output:
	// eventstream: truncated frame: frame at byte 0: the input ended after 30 bytes of a 122-byte frame
}

func ExampleAppendFrame() {
	f, err := eventstream.AppendFrame(nil, eventstream.Message{
		Headers: []eventstream.Header{{Name: "content-type", Value: eventstream.String("application/json")}},
		Payload: []byte(`{"foo": "bar"}`),
	})
	fmt.Printf("%x %v\n", f[:12], err)
	// Output:
	// 0000003e00000020405df946 <nil>
}
