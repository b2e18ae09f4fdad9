package llmstream

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/google/go-cmp/cmp"
)

// TestAnthropicUsageLastReport: the last report stands even when it is
// smaller (compaction: message_start counts the compaction step), a zero
// or absent count keeps the earlier one, and usage.iterations gives the
// billed sums.
func TestAnthropicUsageLastReport(t *testing.T) {
	start := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":60385,"output_tokens":2}}}`
	stop := `{"type":"message_stop"}`
	for _, tc := range []struct {
		name  string
		delta string
		want  Usage
	}{
		{"smaller wins", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":612,"output_tokens":41}}`,
			Usage{PromptTokens: 612, CompletionTokens: 41, TotalTokens: 653, PromptExcludesCache: true}},
		{"zero keeps", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":0,"output_tokens":41}}`,
			Usage{PromptTokens: 60385, CompletionTokens: 41, TotalTokens: 60426, PromptExcludesCache: true}},
		{"absent keeps", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":41}}`,
			Usage{PromptTokens: 60385, CompletionTokens: 41, TotalTokens: 60426, PromptExcludesCache: true}},
		{"iterations billed", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":612,"output_tokens":41,"iterations":[{"type":"compaction","input_tokens":60385,"cache_read_input_tokens":15,"output_tokens":1873},{"type":"message","input_tokens":612,"output_tokens":41}]}}`,
			Usage{PromptTokens: 612, CompletionTokens: 41, TotalTokens: 653, BilledPromptTokens: 61012, BilledCompletionTokens: 1914, PromptExcludesCache: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decodeEverySplit(t, []byte(anthropicStream(start, tc.delta, stop)), WithDialect(DialectAnthropic))
			if got.Error != "" || got.Usage == nil || *got.Usage != tc.want {
				t.Fatalf("usage %+v (err %q), want %+v", got.Usage, got.Error, tc.want)
			}
		})
	}
}

// TestAnthropicRepeatedStart: the same message_start twice before any
// block changes nothing; with another id, or after a block, it is a
// spliced stream.
func TestAnthropicRepeatedStart(t *testing.T) {
	start := func(id string) string {
		return `{"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","content":[],"usage":{"input_tokens":9,"output_tokens":1}}}`
	}
	block := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`,
		`{"type":"content_block_stop","index":0}`,
	}
	end := []string{`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, `{"type":"message_stop"}`}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	ok := decodeEverySplit(t, []byte(anthropicStream(cat([]string{start("msg_a"), start("msg_a")}, block, end)...)), WithDialect(DialectAnthropic))
	if ok.Error != "" || string(ok.Message) != `{"role":"assistant","content":"hi"}` {
		t.Fatalf("repeated start: %s, %q", ok.Message, ok.Error)
	}
	for name, events := range map[string][]string{
		"other id":    cat([]string{start("msg_a"), start("msg_b")}, block, end),
		"after block": cat([]string{start("msg_a")}, block, []string{start("msg_a")}, end),
	} {
		_, err := ReadMessage(strings.NewReader(anthropicStream(events...)), WithDialect(DialectAnthropic))
		if !errors.Is(err, ErrOutOfOrder) {
			t.Errorf("%s: %v, want ErrOutOfOrder", name, err)
		}
	}
}

// TestAnthropicEmptyTextBlockNoProgress: an empty text block carries
// nothing, so it does not count as progress for the idle timeout; one
// with text does.
func TestAnthropicEmptyTextBlockNoProgress(t *testing.T) {
	b := NewBridge(WithDialect(DialectAnthropic))
	feed := func(data string) bool {
		var head struct{ Type string }
		json.Unmarshal([]byte(data), &head)
		if err := b.Handle(sse.Event{Type: head.Type, Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
		return b.progressed
	}
	feed(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`)
	for _, ev := range []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_stop","index":0}`,
	} {
		if feed(ev) {
			t.Errorf("%s counted as progress", ev)
		}
	}
	feed(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	if !feed(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}`) {
		t.Error("a text delta did not count as progress")
	}
}

// TestAnthropicProgrammaticRoundTrip: a call made from code execution
// keeps its caller through Message JSON and goes back with it, the
// container goes back as the request's "container", and a user message
// may not join the answers to such calls.
func TestAnthropicProgrammaticRoundTrip(t *testing.T) {
	m, err := ReadMessage(strings.NewReader(string(readTestdata(t, "providers/anthropic_programmatic_resume.sse"))), WithDialect(DialectAnthropic))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{m.ToolCalls, m.Continuity}, []any{back.ToolCalls, back.Continuity}); diff != "" {
		t.Fatalf("round trip (-before +after):\n%s", diff)
	}
	wantCaller := `{"type":"code_execution_20250825","tool_id":"srvtoolu_ptc7"}`
	if got := string(toolCaller(&back.ToolCalls[0])); got != wantCaller {
		t.Fatalf("caller %s, want %s", got, wantCaller)
	}
	answer := Message{Role: "tool", ToolCallID: "toolu_ptc9", Content: `[{"total":12}]`}
	body, err := anthropicProtocol{}.encode(&Request{Messages: []Message{{Role: "user", Content: "sales?"}, back, answer}}, &config{})
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Container string
		Messages  []struct {
			Content []map[string]any
		}
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	if w.Container != "container_ptc3" {
		t.Errorf("container %q", w.Container)
	}
	var caller any
	for _, blk := range w.Messages[1].Content {
		if blk["type"] == "tool_use" {
			caller = blk["caller"]
		}
	}
	want := map[string]any{"type": "code_execution_20250825", "tool_id": "srvtoolu_ptc7"}
	if got, _ := json.Marshal(caller); !cmp.Equal(caller, any(want)) {
		t.Errorf("tool_use caller %s, want %s", got, wantCaller)
	}
	// A plain call's answer may be followed by user text in its turn; a
	// programmatic call's may not.
	plain := back
	plain.ToolCalls = []ToolCall{{ID: "toolu_ptc9", Function: FunctionCall{Name: "query_database", Arguments: "{}"}}}
	plain.Continuity = nil
	user := Message{Role: "user", Content: "also the east"}
	if _, err := (anthropicProtocol{}).encode(&Request{Messages: []Message{plain, answer, user}}, &config{}); err != nil {
		t.Errorf("plain call: %v", err)
	}
	if _, err := (anthropicProtocol{}).encode(&Request{Messages: []Message{back, answer, user}}, &config{}); err == nil {
		t.Error("user text joined the answers to a programmatic call")
	}
	if _, err := (anthropicProtocol{}).encode(&Request{Messages: []Message{back, answer, {Role: "assistant", Content: "ok"}, user}}, &config{}); err != nil {
		t.Errorf("user text in a later turn: %v", err)
	}
}
