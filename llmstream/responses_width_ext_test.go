package llmstream_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
)

// TestResponsesIndexesAtMaxIndex: an output, content or summary index of
// toolcall.MaxIndex is read as any other; one past it, or one whose low 32
// bits are a small index, is a typed out-of-order error, not an item that
// aliases another.
func TestResponsesIndexesAtMaxIndex(t *testing.T) {
	top := strconv.Itoa(toolcall.MaxIndex)
	call := func(n string) string {
		return ev("response.output_item.added", `{"type":"response.output_item.added","output_index":`+n+`,"item":{"type":"function_call","call_id":"call_`+n+`","name":"f","arguments":""}}`) +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":`+n+`,"delta":"{\"n\":`+n+`}"}`)
	}
	text := func(n, key, part, delta string) string {
		typ := "response.output_text.delta"
		if key == "summary_index" {
			typ = "response.reasoning_summary_text.delta"
		}
		return ev(typ, `{"type":"`+typ+`","output_index":`+n+`,"`+key+`":`+part+`,"delta":"`+delta+`"}`)
	}
	t.Run("held", func(t *testing.T) {
		stream := call("0") + call(top) + text("1", "content_index", top, "a") + text("1", "content_index", "0", "b") + text("1", "content_index", top, "c") +
			text("2", "summary_index", top, "r") + text("2", "summary_index", "0", "s") + completed
		m, err := llmstream.ReadMessage(strings.NewReader(stream), responses)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.ToolCalls) != 2 || m.ToolCalls[1].ID != "call_"+top || m.ToolCalls[1].Function.Arguments != `{"n":`+top+`}` {
			t.Errorf("calls %+v", m.ToolCalls)
		}
		if m.Content != "abc" || m.Reasoning != "rs" {
			t.Errorf("content %q, reasoning %q", m.Content, m.Reasoning)
		}
	})
	for _, bad := range []string{strconv.Itoa(toolcall.MaxIndex + 1), "2147483648", "4294967296", "4294967297"} {
		for name, stream := range map[string]string{
			"output":  call("1") + call(bad) + completed,
			"content": call("0") + text("1", "content_index", bad, "a") + completed,
			"summary": call("0") + text("1", "summary_index", bad, "a") + completed,
		} {
			_, err := llmstream.ReadMessage(strings.NewReader(stream), responses)
			var ee *llmstream.EventError
			if !errors.Is(err, llmstream.ErrOutOfOrder) || !errors.As(err, &ee) {
				t.Errorf("%s index %s: %v, want ErrOutOfOrder", name, bad, err)
			}
		}
	}
}

// TestResponsesManyItemsRevisited streams calls and messages past the
// items' first chunk (1024) and second, their output indexes in order or
// not, and comes back to each after all are open: every item is found
// again, at the chunk edges too.
func TestResponsesManyItemsRevisited(t *testing.T) {
	for _, n := range []int{1023, 1025, 2049} {
		for _, reversed := range []bool{false, true} {
			index := func(k int) string {
				if reversed {
					return strconv.Itoa(n - 1 - k)
				}
				return strconv.Itoa(k)
			}
			var b strings.Builder
			for k := range n {
				i := index(k)
				if k%3 == 2 {
					b.WriteString(ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":`+i+`,"content_index":0,"delta":"<"}`))
					continue
				}
				b.WriteString(ev("response.output_item.added", `{"type":"response.output_item.added","output_index":`+i+`,"item":{"type":"function_call","call_id":"c`+i+`","name":"f","arguments":""}}`))
				b.WriteString(ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":`+i+`,"delta":"{\"k\":"}`))
			}
			for k := n - 1; k >= 0; k-- {
				i := index(k)
				if k%3 == 2 {
					b.WriteString(ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":`+i+`,"content_index":0,"delta":">"}`))
					continue
				}
				b.WriteString(ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":`+i+`,"delta":"`+strconv.Itoa(k)+`}"}`))
			}
			b.WriteString(completed)
			m, err := llmstream.ReadMessage(strings.NewReader(b.String()), responses, llmstream.WithToolCallOptions(toolcall.WithMaxCalls(-1)))
			if err != nil {
				t.Fatalf("%d items, reversed %v: %v", n, reversed, err)
			}
			calls := 0
			for k := range n {
				if k%3 == 2 {
					continue
				}
				calls++
			}
			if len(m.ToolCalls) != calls {
				t.Fatalf("%d items, reversed %v: %d calls, want %d", n, reversed, len(m.ToolCalls), calls)
			}
			for _, c := range m.ToolCalls {
				k, _ := strconv.Atoi(strings.TrimPrefix(c.ID, "c"))
				if reversed {
					k = n - 1 - k
				}
				if want := `{"k":` + strconv.Itoa(k) + `}`; c.Function.Arguments != want {
					t.Fatalf("%d items, reversed %v: call %s has %q, want %q", n, reversed, c.ID, c.Function.Arguments, want)
				}
			}
			if want := strings.Repeat("<", n/3) + strings.Repeat(">", n/3); m.Content != want {
				t.Fatalf("%d items, reversed %v: content %q, want %q", n, reversed, m.Content, want)
			}
		}
	}
}
