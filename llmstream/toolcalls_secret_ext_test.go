package llmstream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
)

// unclosedCall is a stream of dialect d whose one tool call's arguments,
// args, end inside a value; the stream itself ends properly.
func unclosedCall(d llmstream.Dialect, args string) string {
	q, _ := json.Marshal(args)
	switch d {
	case llmstream.DialectAnthropic:
		return ev("message_start", `{"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[]}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(q)+`}}`) +
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`) +
			ev("message_stop", `{"type":"message_stop"}`)
	case llmstream.DialectResponses:
		return callStart(0, "call_1", "f") +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":`+string(q)+`}`) +
			completed
	}
	return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":%s}}]}}]}\n\n", q) +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
}

// TestArgumentsErrorNoCredential: arguments that never close and hold the
// request's key show no part of it in any field of the *ArgumentsError a
// caller gets, nor in its text: the key whole, the key cut by the Tail
// window at every offset, the key JSON-escaped. (Gemini sends arguments as
// a JSON object, which cannot be unclosed.)
func TestArgumentsErrorNoCredential(t *testing.T) {
	escaped := `\u0073k-LEAK-7f3a9c2e5b1d`
	forms := map[string]string{"as is": leakSecret, "JSON-escaped": escaped}
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses} {
		for name, form := range forms {
			for pad := 0; pad <= toolcall.TailBytes; pad++ {
				// The window holds the last TailBytes bytes: with pad bytes
				// after the key, it starts pad bytes before the key's end.
				args := `{"note":"` + strings.Repeat("x", 80) + " " + form + strings.Repeat("y", pad)
				_, err := llmstream.ReadMessage(strings.NewReader(unclosedCall(d, args)),
					llmstream.WithDialect(d), llmstream.WithSecrets(leakSecret))
				var ae *toolcall.ArgumentsError
				var tce *llmstream.ToolCallsError
				if !errors.As(err, &ae) || !errors.As(err, &tce) {
					t.Fatalf("%v %s pad %d: err = %v; want a *ToolCallsError", d, name, pad, err)
				}
				texts := []string{ae.Tail, ae.ID, ae.Name, ae.Reason, ae.Error(), err.Error()}
				for _, e := range tce.Errs {
					if e != nil {
						texts = append(texts, e.Error())
					}
				}
				for _, text := range texts {
					if shown := shownPart(text); shown != "" {
						t.Fatalf("%v %s pad %d: %q shows %q of the key", d, name, pad, text, shown)
					}
				}
				if !strings.HasSuffix(ae.Tail, strings.Repeat("y", pad)) {
					t.Errorf("%v %s pad %d: Tail %q lost what follows the key", d, name, pad, ae.Tail)
				}
			}
		}
	}
}

// shownPart returns the longest piece of leakSecret of 4 bytes or more
// that text shows, as is or with its first letter JSON-escaped: the window
// cuts the key anywhere, so any piece counts.
func shownPart(text string) string {
	text = strings.ReplaceAll(text, `\u0073`, "s")
	text = strings.ReplaceAll(text, `\\u0073`, "s")
	for n := len(leakSecret); n >= 4; n-- {
		for i := 0; i+n <= len(leakSecret); i++ {
			if strings.Contains(text, leakSecret[i:i+n]) {
				return leakSecret[i : i+n]
			}
		}
	}
	return ""
}
