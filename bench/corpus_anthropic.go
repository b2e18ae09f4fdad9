package bench

// corpus_anthropic.go: Anthropic Messages streams, with the event names and
// JSON shapes the API sends (message_start with the whole message and its
// usage, ping, content_block_start/delta/stop with the block's index,
// message_delta with the stop reason and cumulative usage, message_stop):
//
//	anthropic-text   one text block of 20,000 text_delta events of 1–8
//	                 words, pings now and then, end_turn
//	anthropic-tools  a thinking block (thinking_delta, then its
//	                 signature_delta), a short text block, then 4 tool_use
//	                 blocks of ~2 KB input each in 1–6 byte input_json_delta
//	                 fragments, tool_use
//
// The API streams one block at a time, so tool_use blocks follow each
// other; "parallel" means several calls in one message.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sizes of the Anthropic corpora.
const (
	AnthropicTextDeltas    = 20_000 // text_delta events in anthropic-text
	AnthropicToolCalls     = 4      // tool_use blocks in anthropic-tools
	AnthropicThinkingDelta = 60     // thinking_delta events in anthropic-tools
)

func anthropicCorpora() []*Corpus {
	return []*Corpus{genAnthropicText(), genAnthropicTools()}
}

const anthropicModel = "claude-sonnet-4-5-20250929"

// messageWriter writes Anthropic Messages stream events.
type messageWriter struct {
	sseWriter
}

func (w *messageWriter) start(id string, inputTokens, cacheRead int) {
	w.event("message_start", fmt.Appendf(nil,
		`{"type":"message_start","message":{"id":"%s","type":"message","role":"assistant","model":"%s","content":[],"stop_reason":null,"stop_sequence":null,`+
			`"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":1,"service_tier":"standard"}}}`,
		id, anthropicModel, inputTokens, cacheRead))
}

func (w *messageWriter) ping() { w.event("ping", []byte(`{"type": "ping"}`)) }

// blockStart writes a content_block_start whose content_block is the given
// JSON object.
func (w *messageWriter) blockStart(index int, block string) {
	w.event("content_block_start", fmt.Appendf(nil, `{"type":"content_block_start","index":%d,"content_block":%s}`, index, block))
}

// blockDelta writes a content_block_delta of type kind whose one member
// field holds s.
func (w *messageWriter) blockDelta(index int, kind, field, s string, escapeUnicode bool) {
	b := fmt.Appendf(nil, `{"type":"content_block_delta","index":%d,"delta":{"type":"%s","%s":`, index, kind, field)
	b = appendJSONString(b, s, escapeUnicode)
	w.event("content_block_delta", append(b, "}}"...))
}

func (w *messageWriter) blockStop(index int) {
	w.event("content_block_stop", fmt.Appendf(nil, `{"type":"content_block_stop","index":%d}`, index))
}

func (w *messageWriter) end(stopReason string, inputTokens, cacheRead, outputTokens int) {
	w.event("message_delta", fmt.Appendf(nil,
		`{"type":"message_delta","delta":{"stop_reason":"%s","stop_sequence":null},`+
			`"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}}`,
		stopReason, inputTokens, cacheRead, outputTokens))
	w.event("message_stop", []byte(`{"type":"message_stop"}`))
}

func genAnthropicText() *Corpus {
	rng := rand.New(rand.NewPCG(0xA7E1, 4))
	w := &messageWriter{}
	w.buf.Grow(3 << 20)
	var content strings.Builder
	w.start(randID(rng, "msg_01", 22), 1234, 0)
	w.blockStart(0, `{"type":"text","text":""}`)
	w.ping()
	for i := range AnthropicTextDeltas {
		s := genText(rng, 1, 8)
		content.WriteString(s)
		w.blockDelta(0, "text_delta", "text", s, rng.IntN(10) == 0) // a tenth with \uXXXX escapes
		if i%5000 == 4999 {
			w.ping()
		}
	}
	w.blockStop(0)
	w.end("end_turn", 1234, 0, AnthropicTextDeltas)
	return w.corpus("anthropic-text", "anthropic", "one text block of 20,000 text_delta events of 1–8 words, pings, end_turn",
		Message{Role: "assistant", Content: content.String(), FinishReason: "end_turn"})
}

var anthropicToolNames = []string{"read_file", "search_code", "run_tests", "edit_file"}

func genAnthropicTools() *Corpus {
	rng := rand.New(rand.NewPCG(0xA7E2, 5))
	w := &messageWriter{}
	want := Message{Role: "assistant", FinishReason: "tool_use"}
	w.start(randID(rng, "msg_01", 22), 4210, 2048)

	// Block 0: thinking, then the signature that the next request must
	// carry back with it.
	w.blockStart(0, `{"type":"thinking","thinking":"","signature":""}`)
	w.ping()
	var thinking strings.Builder
	for range AnthropicThinkingDelta {
		s := genText(rng, 2, 10)
		thinking.WriteString(s)
		w.blockDelta(0, "thinking_delta", "thinking", s, false)
	}
	want.Reasoning = thinking.String()
	want.Signature = randBase64(rng, 344)
	w.blockDelta(0, "signature_delta", "signature", want.Signature, false)
	w.blockStop(0)

	// Block 1: a little text before the calls.
	w.blockStart(1, `{"type":"text","text":""}`)
	var content strings.Builder
	for range 30 {
		s := genText(rng, 1, 8)
		content.WriteString(s)
		w.blockDelta(1, "text_delta", "text", s, false)
	}
	want.Content = content.String()
	w.blockStop(1)

	// Blocks 2..: the calls, each input streamed as JSON text in small
	// pieces after an empty first piece, as the API does.
	for i := range AnthropicToolCalls {
		index := 2 + i
		tc := ToolCall{ID: randID(rng, "toolu_01", 22), Name: anthropicToolNames[i%len(anthropicToolNames)], Arguments: genArgs(rng, ToolArgsTarget)}
		want.ToolCalls = append(want.ToolCalls, tc)
		w.blockStart(index, fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"%s","input":{}}`, tc.ID, tc.Name))
		w.blockDelta(index, "input_json_delta", "partial_json", "", false)
		for _, f := range splitFragments(rng, tc.Arguments, 1, 6) {
			w.blockDelta(index, "input_json_delta", "partial_json", f, false)
		}
		w.blockStop(index)
	}
	w.end("tool_use", 4210, 2048, 2911)
	return w.corpus("anthropic-tools", "anthropic", "thinking (60 deltas + signature_delta), 30 text deltas, 4 tool_use blocks (~2 KB input each) in 1–6 byte input_json_delta fragments", want)
}
