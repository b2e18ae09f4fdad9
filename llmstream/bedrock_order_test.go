package llmstream

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestBedrockOrder: what a ConverseStream body may and may not do, each in
// one script: content may come before messageStart and blocks may begin
// with any start or delta, but a block begins once, ends once, a call
// needs its start, a second messageStart or content after messageStop is
// out of order, and a server tool is never a call.
func TestBedrockOrder(t *testing.T) {
	const end = "event messageStop {\"stopReason\":\"end_turn\"}\nevent metadata {\"usage\":{}}\n"
	for _, tc := range []struct {
		name, script string
		outOfOrder   bool
		content      string
		calls        int
	}{
		{"text before messageStart", "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\n" + end, false, "a", 0},
		{"messageStart after content", "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\nevent messageStart {}\n" + end, false, "a", 0},
		{"two messageStarts", "event messageStart {}\nevent messageStart {}\n" + end, true, "", 0},
		{"block started twice", "event messageStart {}\nevent contentBlockStart {\"contentBlockIndex\":0,\"start\":{}}\nevent contentBlockStart {\"contentBlockIndex\":0,\"start\":{}}\n" + end, true, "", 0},
		{"delta after stop", "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\nevent contentBlockStop {\"contentBlockIndex\":0}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"b\"}}\n" + end, true, "", 0},
		{"stop of a block never begun", "event contentBlockStop {\"contentBlockIndex\":4}\n" + end, true, "", 0},
		{"tool delta without its start", "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{}\"}}}\n" + end, true, "", 0},
		{"tool delta into a text block", "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{}\"}}}\n" + end, true, "", 0},
		{"text into a server tool block", "event contentBlockStart {\"contentBlockIndex\":0,\"start\":{\"toolUse\":{\"toolUseId\":\"s\",\"name\":\"nova_code_interpreter\",\"type\":\"server_tool_use\"}}}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\n" + end, true, "", 0},
		{"server tool is no call", "event contentBlockStart {\"contentBlockIndex\":0,\"start\":{\"toolUse\":{\"toolUseId\":\"s\",\"name\":\"nova_code_interpreter\",\"type\":\"server_tool_use\"}}}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{\\\"a\\\":1}\"}}}\nevent contentBlockStop {\"contentBlockIndex\":0}\n" + end, false, "", 0},
		{"tool_use type is a call", "event contentBlockStart {\"contentBlockIndex\":0,\"start\":{\"toolUse\":{\"toolUseId\":\"t\",\"name\":\"f\",\"type\":\"tool_use\"}}}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{}\"}}}\n" + end, false, "", 1},
		{"citation opens, text joins", "event contentBlockDelta {\"contentBlockIndex\":2,\"delta\":{\"citation\":{}}}\nevent contentBlockDelta {\"contentBlockIndex\":2,\"delta\":{\"text\":\"c\"}}\n" + end, false, "c", 0},
		{"toolResult start then its deltas", "event contentBlockStart {\"contentBlockIndex\":1,\"start\":{\"toolResult\":{\"toolUseId\":\"s\"}}}\nevent contentBlockDelta {\"contentBlockIndex\":1,\"delta\":{\"toolResult\":[{\"text\":\"7\"}]}}\nevent contentBlockStop {\"contentBlockIndex\":1}\n" + end, false, "", 0},
		{"content after messageStop", "event messageStop {}\nevent contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"}}\n", true, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bedrockFrames(t, []byte(tc.script))
			m, err := ReadMessage(bytes.NewReader(data), WithDialect(DialectBedrock))
			if got := errors.Is(err, ErrOutOfOrder); got != tc.outOfOrder {
				t.Fatalf("err = %v; want out of order: %v", err, tc.outOfOrder)
			}
			if tc.outOfOrder {
				return
			}
			if err != nil || m.Content != tc.content || len(m.ToolCalls) != tc.calls {
				t.Fatalf("%q, %d calls, %v; want %q, %d calls", m.Content, len(m.ToolCalls), err, tc.content, tc.calls)
			}
			for _, c := range m.ToolCalls {
				if strings.Contains(c.Function.Name, "interpreter") {
					t.Errorf("server tool %q came out as a call", c.Function.Name)
				}
			}
		})
	}
}
