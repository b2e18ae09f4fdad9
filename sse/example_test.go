package sse_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/airlock-go/airlock/sse"
)

func ExampleReader() {
	body := strings.NewReader(": keep-alive\n\n" +
		"data: {\"content\":\"Hel\"}\n\n" +
		"event: note\nid: 7\ndata: line one\ndata: line two\n\n" +
		"data: [DONE]\n\n")
	// readme:begin
	r := sse.NewReader(body) // done sentinel "[DONE]", 256 KiB per event
	for {
		ev, err := r.Next()
		if err == io.EOF { // the end: "[DONE]" (r.Done() is true) or the body's end
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s id=%q %q\n", ev.Type, ev.ID, ev.Data) // ev.Data lives until the next Next; ev.Clone() keeps it
	}
	fmt.Println("done sentinel seen:", r.Done(), "last ID:", r.LastEventID())
	// readme:end

	// Output:
	// message id="" "{\"content\":\"Hel\"}"
	// note id="7" "line one\nline two"
	// done sentinel seen: true last ID: 7
}

func ExampleParser() {
	p := sse.NewParser()
	emit := func(ev sse.Event) error {
		fmt.Printf("%s: %s\n", ev.Type, ev.Data)
		return nil
	}
	// Bytes as they might arrive from a socket: lines split anywhere,
	// CRLF split across chunks.
	for _, chunk := range []string{"data: hel", "lo\r", "\n\r\nevent: up", "date\ndata: 42\n", "\n"} {
		if err := p.Feed([]byte(chunk), emit); err != nil {
			fmt.Println("error:", err)
			return
		}
	}
	if err := p.Close(); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// message: hello
	// update: 42
}

func ExampleWithUnknownField() {
	// llama.cpp reports a failure mid-stream as an "error:" field, which
	// the standard says to ignore.
	body := strings.NewReader("data: {\"content\":\"Hi\"}\n\n" +
		"error: {\"code\":500,\"message\":\"context full\"}\n\n" +
		"data: [DONE]\n\n")
	errProvider := errors.New("provider error")
	r := sse.NewReader(body, sse.WithUnknownField(func(name string, value []byte) error {
		if name == "error" {
			return fmt.Errorf("%w: %s", errProvider, value)
		}
		return nil
	}))
	for {
		ev, err := r.Next()
		if err != nil {
			fmt.Println(errors.Is(err, errProvider), err)
			break
		}
		fmt.Printf("%s\n", ev.Data)
	}
	// Output:
	// {"content":"Hi"}
	// true provider error: {"code":500,"message":"context full"}
}

func ExampleWithMaxEventSize() {
	r := sse.NewReader(strings.NewReader("data: short\n\ndata: "+strings.Repeat("x", 100)+"\n\n"),
		sse.WithMaxEventSize(64))
	for {
		ev, err := r.Next()
		var tooLarge *sse.EventSizeError
		if errors.As(err, &tooLarge) {
			fmt.Println("limit", tooLarge.Max, "passed:", errors.Is(err, sse.ErrEventTooLarge))
			break
		}
		if err != nil {
			break
		}
		fmt.Printf("%s\n", ev.Data)
	}
	// Output:
	// short
	// limit 64 passed: true
}

// A caller that handles every event of a long stream and keeps none can
// take each one by pointer, without a copy per event.
func ExampleReader_NextRef() {
	body := strings.NewReader("data: {\"n\":1}\n\nevent: usage\ndata: {\"tokens\":9}\n\ndata: [DONE]\n\n")
	r := sse.NewReader(body)
	total := 0
	for {
		ev, err := r.NextRef()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		// ev and ev.Data are valid until the next call to NextRef.
		total += len(ev.Data)
		fmt.Printf("%s %s\n", ev.Type, ev.Data)
	}
	fmt.Println("bytes of data:", total, "done:", r.Done())
	// Output:
	// message {"n":1}
	// usage {"tokens":9}
	// bytes of data: 19 done: true
}

func ExampleEvent_Clone() {
	r := sse.NewReader(strings.NewReader("data: first\n\ndata: second\n\n"))
	var kept []sse.Event
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		// ev.Data is only valid until the next call: clone to keep it.
		kept = append(kept, ev.Clone())
	}
	for _, ev := range kept {
		fmt.Printf("%s\n", ev.Data)
	}
	// Output:
	// first
	// second
}
