package llmstream

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestResponsesMaxItems checks the bound on a stream's output items, which
// keeps an item's int32s from overflowing, at, below and above it, for
// each way an item opens: added, named by a delta first, or listed only
// in the terminal response. The bound is lowered, as 2^30 items would
// take tens of GB.
func TestResponsesMaxItems(t *testing.T) {
	defer func(m int) { maxItems = m }(maxItems)
	maxItems = 3
	ways := map[string]func(n int) string{
		"added": func(n int) string {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "data: {\"type\":\"response.output_item.added\",\"output_index\":%d,\"item\":{\"type\":\"message\",\"content\":[]}}\n\n", i)
			}
			return b.String() + "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
		},
		"delta": func(n int) string {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "data: {\"type\":\"response.output_text.delta\",\"output_index\":%d,\"content_index\":0,\"delta\":\"t%[1]d\"}\n\n", i)
			}
			return b.String() + "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
		},
		"terminal": func(n int) string {
			items := make([]string, n)
			for i := range items {
				items[i] = fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"f","arguments":"{}"}`, i)
			}
			return "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[" + strings.Join(items, ",") + "]}}\n\n"
		},
	}
	for name, stream := range ways {
		for _, n := range []int{maxItems - 1, maxItems, maxItems + 1} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				msg, err := ReadMessage(strings.NewReader(stream(n)), WithDialect(DialectResponses))
				if n <= maxItems {
					if err != nil {
						t.Fatal(err)
					}
					if name == "terminal" && len(msg.ToolCalls) != n {
						t.Fatalf("%d calls, want %d", len(msg.ToolCalls), n)
					}
					return
				}
				var ee *EventError
				if !errors.Is(err, ErrOutOfOrder) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "more than 3 output items") {
					t.Fatalf("err = %v, want an EventError matching ErrOutOfOrder", err)
				}
			})
		}
	}
}
