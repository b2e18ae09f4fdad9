package llmstream

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/airlock-go/airlock/toolcall"
)

// TestRespItemSize guards the memory cut: an output item is 48 bytes where
// int has 64 bits (its text behind a pointer, its indexes int32).
func TestRespItemSize(t *testing.T) {
	if got := unsafe.Sizeof(respItem{}); strconv.IntSize == 64 && got > 48 {
		t.Errorf("respItem is %d bytes, want at most 48", got)
	}
}

// TestResponsesReusedMaxIndexCall: a second call at output_index MaxIndex
// (a server that reuses an index, as old Ollama does), or a call with no
// output_index after an item at MaxIndex, would need a call index past
// MaxIndex, which the assembler refuses; the stream fails with the
// stream's typed ErrOutOfOrder, not toolcall's ErrInvalidIndex. One below,
// at MaxIndex-1, the second call gets MaxIndex.
func TestResponsesReusedMaxIndexCall(t *testing.T) {
	call := func(at int, id string) string {
		idx := `"output_index":` + strconv.Itoa(at) + `,`
		if at < 0 {
			idx = ""
		}
		added := `{"type":"response.output_item.added",` + idx + `"item":{"type":"function_call","call_id":"` + id + `","name":"f","arguments":""}}`
		done := `{"type":"response.output_item.done",` + idx + `"item":{"type":"function_call","call_id":"` + id + `","name":"f","arguments":"{}"}}`
		return "event: response.output_item.added\ndata: " + added + "\n\nevent: response.output_item.done\ndata: " + done + "\n\n"
	}
	completed := "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
	for _, tt := range []struct {
		name   string
		stream string
		ok     bool
	}{
		{"reused below", call(toolcall.MaxIndex-1, "a") + call(toolcall.MaxIndex-1, "b"), true},
		{"reused at", call(toolcall.MaxIndex, "a") + call(toolcall.MaxIndex, "b"), false},
		{"unindexed after", call(toolcall.MaxIndex, "a") + call(-1, "b"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := ReadMessage(strings.NewReader(tt.stream+completed), WithDialect(DialectResponses))
			if tt.ok {
				if err != nil || len(msg.ToolCalls) != 2 || msg.ToolCalls[1].ID != "b" {
					t.Fatalf("ReadMessage: %+v, %v", msg.ToolCalls, err)
				}
				return
			}
			var ee *EventError
			if !errors.Is(err, ErrOutOfOrder) || !errors.As(err, &ee) || errors.Is(err, toolcall.ErrInvalidIndex) {
				t.Fatalf("err = %v (%T), want an EventError matching ErrOutOfOrder", err, err)
			}
			if kind := errorKind(err); kind == "untyped" || kind == "" {
				t.Fatalf("error %v is %q", err, kind)
			}
		})
	}
}
