package llmstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

// nestedArgs is an arguments object nested n deep.
func nestedArgs(n int) string {
	return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat(`}`, n-1)
}

// argsStream is a stream of one call with args in dialect d; whole
// carries them as a JSON object where the dialect can (Anthropic's
// input, Gemini's args), else as streamed text.
func argsStream(t testing.TB, d Dialect, args string, whole bool) string {
	switch d {
	case DialectAnthropic:
		input, partial := `{}`, args
		if whole {
			input, partial = args, ""
		}
		return anthropicStream(
			`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":`+input+`}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"`+strings.ReplaceAll(partial, `"`, `\"`)+`"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`)
	case DialectResponses:
		return fmt.Sprintf("data: %s\n\ndata: %s\n\ndata: %s\n\n",
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`,
			`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"`+strings.ReplaceAll(args, `"`, `\"`)+`"}`,
			`{"type":"response.completed","response":{"status":"completed","output":[]}}`)
	case DialectBedrock:
		return string(bedrockFrames(t, []byte(`event messageStart {"role":"assistant"}
event contentBlockStart {"contentBlockIndex":0,"start":{"toolUse":{"name":"f","toolUseId":"tooluse_1"}}}
event contentBlockDelta {"contentBlockIndex":0,"delta":{"toolUse":{"input":`+strconv.Quote(args)+`}}}
event contentBlockStop {"contentBlockIndex":0}
event messageStop {"stopReason":"tool_use"}
event metadata {"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}`)))
	case DialectGemini:
		return `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":` + args + `}}]},"finishReason":"STOP"}]}` + "\n\n"
	}
	return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"` +
		strings.ReplaceAll(args, `"`, `\"`) + `"}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
}

// TestArgumentsDepthEveryDialect: arguments nested at the toolcall limit
// and one below are a call in every dialect; one above is a
// ToolCallsError (ErrInvalidArguments) that AnswerInvalidCalls can
// answer, never an EventError that ends the stream (Gemini's was).
func TestArgumentsDepthEveryDialect(t *testing.T) {
	for d := DialectChat; d < dialectEnd; d++ {
		for _, whole := range []bool{false, true} {
			if whole && d != DialectAnthropic && d != DialectGemini {
				continue
			}
			for _, n := range []int{toolcall.MaxNestingDepth - 1, toolcall.MaxNestingDepth, toolcall.MaxNestingDepth + 1} {
				m, err := ReadMessage(strings.NewReader(argsStream(t, d, nestedArgs(n), whole)), WithDialect(d))
				if n <= toolcall.MaxNestingDepth {
					if err != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != nestedArgs(n) {
						t.Errorf("%v whole=%v depth %d: %d calls, %v", d, whole, n, len(m.ToolCalls), err)
					}
					continue
				}
				var ce *ToolCallsError
				if !errors.As(err, &ce) || !errors.Is(err, toolcall.ErrInvalidArguments) || len(ce.Calls) != 1 {
					t.Errorf("%v whole=%v depth %d: %v, want a ToolCallsError with ErrInvalidArguments", d, whole, n, err)
				}
			}
		}
	}
}
