package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// rawEvent is one event of a corpus, split out by the test itself.
type rawEvent struct {
	name string // the event field, "" when none
	data []byte
}

// splitEvents splits a corpus at its blank lines without any peer's code:
// the corpora use one line end throughout and no comments or multi-line
// data.
func splitEvents(t *testing.T, c *Corpus) []rawEvent {
	t.Helper()
	nl := "\n"
	if bytes.Contains(c.Data, []byte("\r\n")) {
		nl = "\r\n"
	}
	body, ok := bytes.CutSuffix(c.Data, []byte(nl+nl))
	if !ok {
		t.Fatalf("%s: does not end with a blank line", c.Name)
	}
	var evs []rawEvent
	for _, block := range bytes.Split(body, []byte(nl+nl)) {
		var ev rawEvent
		for _, line := range bytes.Split(block, []byte(nl)) {
			switch {
			case bytes.HasPrefix(line, []byte("event: ")):
				ev.name = string(line[len("event: "):])
			case bytes.HasPrefix(line, []byte("data: ")):
				if ev.data != nil {
					t.Fatalf("%s: an event with two data lines", c.Name)
				}
				ev.data = line[len("data: "):]
			default:
				t.Fatalf("%s: unexpected line %.80q", c.Name, line)
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

// derive rebuilds each dialect's expected message from the events alone,
// with encoding/json into generic values: an independent reading of what
// the generator meant. A dialect added to Dialects needs one here.
var derive = map[string]func(t *testing.T, evs []rawEvent) Message{
	"chat":      deriveChat,
	"anthropic": deriveAnthropic,
}

func decodeObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not a JSON object: %v: %.200s", err, data)
	}
	return v
}

func deriveChat(t *testing.T, evs []rawEvent) Message {
	var m Message
	var content strings.Builder
	var calls []ToolCall
	if last := evs[len(evs)-1]; string(last.data) != "[DONE]" {
		t.Fatalf("the last event is %.40q, not [DONE]", last.data)
	}
	for _, ev := range evs[:len(evs)-1] {
		chunk := decodeObject(t, ev.data)
		if chunk["object"] != "chat.completion.chunk" {
			t.Fatalf("object %v", chunk["object"])
		}
		choices, _ := chunk["choices"].([]any)
		for _, ch := range choices {
			ch := ch.(map[string]any)
			delta, _ := ch["delta"].(map[string]any)
			if r, ok := delta["role"].(string); ok {
				m.Role = r
			}
			if s, ok := delta["content"].(string); ok {
				content.WriteString(s)
			}
			tcs, _ := delta["tool_calls"].([]any)
			for _, tc := range tcs {
				tc := tc.(map[string]any)
				i := int(tc["index"].(float64))
				for len(calls) <= i {
					calls = append(calls, ToolCall{})
				}
				if id, ok := tc["id"].(string); ok {
					calls[i].ID = id
				}
				fn := tc["function"].(map[string]any)
				if name, ok := fn["name"].(string); ok {
					calls[i].Name = name
				}
				calls[i].Arguments += fn["arguments"].(string)
			}
			if f, ok := ch["finish_reason"].(string); ok {
				m.FinishReason = f
			}
		}
	}
	m.Content, m.ToolCalls = content.String(), calls
	return m
}

func deriveAnthropic(t *testing.T, evs []rawEvent) Message {
	var m Message
	type block struct {
		kind             string
		text, sig, input strings.Builder
		call             ToolCall
		open             bool
	}
	var blocks []*block
	stopped := false
	for i, ev := range evs {
		e := decodeObject(t, ev.data)
		if e["type"] != ev.name {
			t.Fatalf("event %d: event name %q, JSON type %v", i, ev.name, e["type"])
		}
		if stopped {
			t.Fatalf("event %d after message_stop", i)
		}
		index := -1
		if f, ok := e["index"].(float64); ok {
			index = int(f)
		}
		switch ev.name {
		case "message_start":
			if i != 0 {
				t.Fatalf("message_start at event %d", i)
			}
			m.Role = e["message"].(map[string]any)["role"].(string)
		case "content_block_start":
			if index != len(blocks) {
				t.Fatalf("event %d starts block %d after %d blocks", i, index, len(blocks))
			}
			cb := e["content_block"].(map[string]any)
			b := &block{kind: cb["type"].(string), open: true}
			if b.kind == "tool_use" {
				b.call.ID, b.call.Name = cb["id"].(string), cb["name"].(string)
			}
			blocks = append(blocks, b)
		case "content_block_delta":
			if index < 0 || index >= len(blocks) || !blocks[index].open {
				t.Fatalf("event %d: a delta for block %d, not open", i, index)
			}
			b, d := blocks[index], e["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b.text.WriteString(d["text"].(string))
			case "thinking_delta":
				b.text.WriteString(d["thinking"].(string))
			case "signature_delta":
				b.sig.WriteString(d["signature"].(string))
			case "input_json_delta":
				b.input.WriteString(d["partial_json"].(string))
			default:
				t.Fatalf("event %d: delta type %v", i, d["type"])
			}
		case "content_block_stop":
			if index < 0 || index >= len(blocks) || !blocks[index].open {
				t.Fatalf("event %d: stop for block %d, not open", i, index)
			}
			blocks[index].open = false
		case "message_delta":
			m.FinishReason = e["delta"].(map[string]any)["stop_reason"].(string)
		case "message_stop":
			stopped = true
		case "ping":
		default:
			t.Fatalf("event %d: type %q", i, ev.name)
		}
	}
	if !stopped {
		t.Fatal("no message_stop")
	}
	for _, b := range blocks {
		switch b.kind {
		case "text":
			m.Content += b.text.String()
		case "thinking":
			m.Reasoning += b.text.String()
			m.Signature += b.sig.String()
		case "tool_use":
			b.call.Arguments = b.input.String()
			m.ToolCalls = append(m.ToolCalls, b.call)
		}
	}
	return m
}

// TestCorpora: every corpus is what it says — events that split and count
// as declared, every payload valid JSON (but chat's [DONE]), the expected
// message derivable from the events alone, valid tool-call arguments, the
// sizes the benchmarks promise, and the same bytes every time.
func TestCorpora(t *testing.T) {
	names := map[string]bool{}
	for _, d := range Dialects {
		for _, c := range d.Corpora() {
			t.Run(c.Name, func(t *testing.T) {
				if names[c.Name] {
					t.Fatalf("two corpora named %s", c.Name)
				}
				names[c.Name] = true
				if c.Dialect != d.Name {
					t.Fatalf("corpus of dialect %q listed under %q", c.Dialect, d.Name)
				}
				if len(c.Data) > 8<<20 {
					t.Errorf("%d bytes, over 8 MiB", len(c.Data))
				}
				evs := splitEvents(t, c)
				if len(evs) != c.Events {
					t.Fatalf("%d events, Events says %d", len(evs), c.Events)
				}
				payload := 0
				for i, ev := range evs {
					payload += len(ev.data)
					if !utf8.Valid(ev.data) {
						t.Fatalf("event %d is not valid UTF-8", i)
					}
					if string(ev.data) != "[DONE]" && !json.Valid(ev.data) {
						t.Fatalf("event %d is not valid JSON: %.200s", i, ev.data)
					}
				}
				if payload != c.PayloadBytes {
					t.Fatalf("%d bytes of data, PayloadBytes says %d", payload, c.PayloadBytes)
				}
				fn := derive[c.Dialect]
				if fn == nil {
					t.Fatalf("no derive function for dialect %s", c.Dialect)
				}
				if err := CheckMessage(c, fn(t, evs)); err != nil {
					t.Fatalf("the events do not spell the expected message: %v", err)
				}
				for i, tc := range c.Want.ToolCalls {
					if !json.Valid([]byte(tc.Arguments)) || !strings.HasPrefix(tc.Arguments, "{") {
						t.Fatalf("tool call %d: arguments not a JSON object", i)
					}
				}
				t.Logf("%8d bytes, %6d events, %8d bytes of data; content %d bytes, reasoning %d, %d tool calls",
					len(c.Data), c.Events, c.PayloadBytes, len(c.Want.Content), len(c.Want.Reasoning), len(c.Want.ToolCalls))
			})
		}
	}

	// The sizes the benchmark names promise.
	count := func(c *Corpus, needle string) int { return bytes.Count(c.Data, []byte(needle)) }
	for _, tc := range []struct {
		corpus, needle string
		min            int
	}{
		{"chat", `"content":"`, ChatContentChunks},
		{"tools", `"tool_calls":[{"index":`, ChatToolCalls * 100},
		{"bigevent", "data: ", BigEvents},
		{"anthropic-text", `"type":"text_delta"`, 20_000},
		{"anthropic-tools", `"type":"input_json_delta"`, AnthropicToolCalls * 100},
		{"anthropic-tools", `"type":"signature_delta"`, 1},
		{"anthropic-tools", `"type":"thinking_delta"`, AnthropicThinkingDelta},
	} {
		if n := count(CorpusNamed(tc.corpus), tc.needle); n < tc.min {
			t.Errorf("%s: %d of %s, want at least %d", tc.corpus, n, tc.needle, tc.min)
		}
	}
	if n := len(CorpusNamed("anthropic-tools").Want.ToolCalls); n != AnthropicToolCalls {
		t.Errorf("anthropic-tools: %d calls", n)
	}

	// Fragments of 1–6 bytes, stretched to a rune boundary (at most 3 more).
	for _, name := range []string{"tools", "anthropic-tools"} {
		c := CorpusNamed(name)
		for _, ev := range splitEvents(t, c) {
			var v struct {
				Delta struct {
					PartialJSON *string `json:"partial_json"`
				} `json:"delta"`
				Choices []struct {
					Delta struct {
						ToolCalls []struct {
							Function struct {
								Arguments *string `json:"arguments"`
							} `json:"function"`
						} `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if json.Unmarshal(ev.data, &v) != nil {
				continue
			}
			var frags []*string
			frags = append(frags, v.Delta.PartialJSON)
			for _, ch := range v.Choices {
				for _, tc := range ch.Delta.ToolCalls {
					frags = append(frags, tc.Function.Arguments)
				}
			}
			for _, f := range frags {
				if f != nil && *f != "" && len(*f) > 6+3 {
					t.Fatalf("%s: a fragment of %d bytes", name, len(*f))
				}
			}
		}
	}

	// Deterministic: generated again, the same bytes.
	for _, d := range Dialects {
		again := d.generate()
		for i, c := range d.Corpora() {
			if !bytes.Equal(again[i].Data, c.Data) || fmt.Sprint(again[i].Want) != fmt.Sprint(c.Want) {
				t.Errorf("%s: generated twice, different", c.Name)
			}
		}
	}
}
