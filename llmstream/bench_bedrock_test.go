package llmstream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkBedrockDecode reads a ConverseStream answer of n text deltas
// and a tool call, at n and 10n: the time per byte stays flat (linear).
func BenchmarkBedrockDecode(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var script strings.Builder
		script.WriteString("event messageStart {\"role\":\"assistant\"}\n")
		for i := range n {
			fmt.Fprintf(&script, "event contentBlockDelta {\"contentBlockIndex\":0,\"delta\":{\"text\":\"word %d, naïve \"},\"p\":\"abcdefgh\"}\n", i)
		}
		script.WriteString("event contentBlockStop {\"contentBlockIndex\":0}\n")
		script.WriteString("event contentBlockStart {\"contentBlockIndex\":1,\"start\":{\"toolUse\":{\"name\":\"f\",\"toolUseId\":\"t1\"}}}\n")
		script.WriteString("event contentBlockDelta {\"contentBlockIndex\":1,\"delta\":{\"toolUse\":{\"input\":\"{\\\"a\\\":1}\"}}}\n")
		script.WriteString("event contentBlockStop {\"contentBlockIndex\":1}\nevent messageStop {\"stopReason\":\"tool_use\"}\n")
		script.WriteString("event metadata {\"usage\":{\"inputTokens\":1,\"outputTokens\":2,\"totalTokens\":3}}\n")
		data := bedrockFrames(b, []byte(script.String()))
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				m, err := ReadMessage(bytes.NewReader(data), WithDialect(DialectBedrock))
				if err != nil || len(m.ToolCalls) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}
