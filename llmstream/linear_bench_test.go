package llmstream

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/toolcall"
)

// linearStreams are, per dialect, streams whose cost grew faster than
// their size before: many blocks or items, and one event of many members.
// BenchmarkLinear runs each at n and 10n; ns/op of /10n over /n is the
// ratio to watch (≤ ~12 is linear), as the median of five runs of three
// seconds on an idle machine:
// go test -run '^$' -bench Linear -benchtime 3s -count 5. At the default
// benchtime a 10n run makes two or three iterations, which pay for the
// heap's growth from the OS (page faults) and for where collections fall,
// and one shape's ratio moved from 11 to 20 between runs. n is 16000: at a
// few thousand elements the n run fits a core's L2 cache and stays under
// the runtime's 4 MiB minimum heap, so it skips the cache misses and
// collections 10n pays; at 40000 the ratios grow, not shrink (a 10n run
// of responses/callindex allocates 470 MB).
// B/op and allocs/op grow about 10× (at most 11×).
var linearStreams = map[string]func(n int) string{
	"anthropic/blocks": func(n int) string {
		var b strings.Builder
		b.WriteString(anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`))
		for i := range n {
			fmt.Fprintf(&b, "data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":%[1]d}\n\n", i)
		}
		b.WriteString("data: {\"type\":\"message_stop\"}\n\n")
		return b.String()
	},
	"anthropic/members": func(n int) string {
		var m strings.Builder
		for i := range n {
			fmt.Fprintf(&m, `"k%d":"v",`, i)
		}
		return anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"other"}}`,
			`{"type":"content_block_delta","index":0,"delta":{`+m.String()+`"type":"x"}}`,
			`{"type":"content_block_stop","index":0}`, `{"type":"message_stop"}`)
	},
	// A raw block started with n string members, one delta extending all.
	"anthropic/startmembers": func(n int) string {
		var start, delta strings.Builder
		for i := range n {
			fmt.Fprintf(&start, `,"k%d":"v"`, i)
			fmt.Fprintf(&delta, `,"k%d":"w"`, i)
		}
		return anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"other"`+start.String()+`}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"x"`+delta.String()+`}}`,
			`{"type":"content_block_stop","index":0}`, `{"type":"message_stop"}`)
	},
	"responses/items": func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "data: {\"type\":\"response.output_item.added\",\"output_index\":%d,\"item\":{\"type\":\"message\",\"content\":[]}}\n\n", i)
		}
		b.WriteString("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n")
		return b.String()
	},
	// Calls in falling output_index order: each new call looks up whether
	// an earlier call already holds its index.
	"responses/callindex": func(n int) string {
		var b strings.Builder
		for i := n - 1; i >= 0; i-- {
			item := fmt.Sprintf(`"output_index":%d,"item":{"type":"function_call","call_id":"c%[1]d","name":"f","arguments":"{}"}`, i)
			fmt.Fprintf(&b, "data: {\"type\":\"response.output_item.added\",%s}\n\ndata: {\"type\":\"response.output_item.done\",%[1]s}\n\n", item)
		}
		b.WriteString("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n")
		return b.String()
	},
	"chat/members": func(n int) string {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]," + strings.Repeat(`"k":1,`, n) + "\"z\":1}\n\ndata: [DONE]\n\n"
	},
	// Blocks found by index: each delta and stop looks its block up.
	"bedrock/blocks": func(n int) string {
		var body []byte
		frame := func(event, payload string) {
			var err error
			body, err = eventstream.AppendFrame(body, eventstream.Message{Headers: []eventstream.Header{
				{Name: ":message-type", Value: eventstream.String("event")},
				{Name: ":event-type", Value: eventstream.String(event)},
			}, Payload: []byte(payload)})
			if err != nil {
				panic(err)
			}
		}
		frame("messageStart", `{"role":"assistant"}`)
		for i := range n {
			frame("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":%d,"delta":{"text":"x"}}`, i))
			frame("contentBlockStop", fmt.Sprintf(`{"contentBlockIndex":%d}`, i))
		}
		frame("messageStop", `{"stopReason":"end_turn"}`)
		return string(body)
	},
	"gemini/parts": func(n int) string {
		parts := strings.Repeat(`{"text":"x"},`, n)
		return `data: {"candidates":[{"content":{"role":"model","parts":[` + parts + `{"text":"y"}]},"finishReason":"STOP"}]}` + "\n\n"
	},
	"gemini/partialargs": func(n int) string {
		var b strings.Builder
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}` + "\n\n")
		for i := range n {
			fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.k%d\",\"stringValue\":\"v\"}],\"willContinue\":true}}]}}]}\n\n", i)
		}
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}` + "\n\n")
		return b.String()
	},
}

func BenchmarkLinear(b *testing.B) {
	for name, stream := range linearStreams {
		d, _ := ParseDialect(strings.Split(name, "/")[0])
		for _, size := range []struct {
			label string
			n     int
		}{{"n", 16000}, {"10n", 160000}} {
			b.Run(name+"/"+size.label, func(b *testing.B) {
				data := stream(size.n) // here, so that a -bench filter skips making it
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					// No call or argument limit: responses/callindex holds n calls,
					// gemini/partialargs one call of n members.
					if _, err := ReadMessage(strings.NewReader(data), WithDialect(d), WithToolCallOptions(toolcall.WithMaxCalls(-1), toolcall.WithMaxArgumentBytes(-1))); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
