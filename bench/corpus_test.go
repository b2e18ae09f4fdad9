package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
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
	"responses": deriveResponses,
	"gemini":    deriveGemini,
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

// deriveGemini reads candidate 0's parts in order and checks that every
// chunk is one unnamed event with the usage the API sends on each, and
// that only the last carries a finishReason.
func deriveGemini(t *testing.T, evs []rawEvent) Message {
	m := Message{Role: "assistant"}
	calls := 0
	for i, ev := range evs {
		if ev.name != "" {
			t.Fatalf("event %d is named %q", i, ev.name)
		}
		e := decodeObject(t, ev.data)
		if _, ok := e["usageMetadata"].(map[string]any); !ok {
			t.Fatalf("event %d has no usageMetadata", i)
		}
		cands := e["candidates"].([]any)
		if len(cands) != 1 {
			t.Fatalf("event %d: %d candidates", i, len(cands))
		}
		c := cands[0].(map[string]any)
		content := c["content"].(map[string]any)
		if content["role"] != "model" {
			t.Fatalf("event %d: role %v", i, content["role"])
		}
		for _, p := range content["parts"].([]any) {
			p := p.(map[string]any)
			if sig, ok := p["thoughtSignature"].(string); ok {
				m.Signature += sig
			}
			if fc, ok := p["functionCall"].(map[string]any); ok {
				args, err := json.Marshal(fc["args"])
				if err != nil {
					t.Fatal(err)
				}
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: fmt.Sprintf("call_%d", calls), Name: fc["name"].(string), Arguments: string(args)})
				calls++
				continue
			}
			if p["thought"] == true {
				m.Reasoning += p["text"].(string)
			} else {
				m.Content += p["text"].(string)
			}
		}
		finish, _ := c["finishReason"].(string)
		if (finish != "") != (i == len(evs)-1) {
			t.Fatalf("event %d of %d: finishReason %q", i, len(evs), finish)
		}
		m.FinishReason = finish
	}
	// encoding/json's Marshal escapes HTML; the args on the wire do not.
	for i, tc := range m.ToolCalls {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(tc.Arguments)); err != nil {
			t.Fatal(err)
		}
		m.ToolCalls[i].Arguments = unescapeHTML(b.String())
	}
	return m
}

// unescapeHTML undoes encoding/json's escaping of <, > and & (which JSON
// text never needs); \u0026 and the rest cannot occur otherwise here.
func unescapeHTML(s string) string {
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(s)
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

// deriveResponses follows the items by output_index and checks, on the
// way, what a Responses stream promises: event names that repeat the JSON
// type, sequence numbers in order, items added in order and nothing for an
// item after its output_item.done, deltas of the item's kind with their
// obfuscation, every *.done repeating exactly what the deltas spelled, and
// a response.completed, last, whose output is the items as they were done
// and whose usage adds up.
func deriveResponses(t *testing.T, evs []rawEvent) Message {
	type item struct {
		kind, id string
		role     string
		text     strings.Builder    // a message's output text
		summary  []*strings.Builder // a reasoning item's parts
		args     strings.Builder    // a function call's arguments
		call     ToolCall
		final    map[string]any // the item of output_item.done
	}
	var items []*item
	var m Message
	str := func(i int, v any, what string) string {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("event %d: %s is %T, not a string", i, what, v)
		}
		return s
	}
	for i, ev := range evs {
		e := decodeObject(t, ev.data)
		if e["type"] != ev.name {
			t.Fatalf("event %d: event name %q, JSON type %v", i, ev.name, e["type"])
		}
		if e["sequence_number"] != float64(i) {
			t.Fatalf("event %d: sequence_number %v", i, e["sequence_number"])
		}
		if (i == 0) != (ev.name == "response.created") || (i == len(evs)-1) != (ev.name == "response.completed") {
			t.Fatalf("event %d of %d is %s", i, len(evs), ev.name)
		}
		var it *item
		if f, ok := e["output_index"].(float64); ok {
			n := int(f)
			switch {
			case ev.name == "response.output_item.added":
				if n != len(items) {
					t.Fatalf("event %d adds item %d after %d", i, n, len(items))
				}
				added := e["item"].(map[string]any)
				it = &item{kind: str(i, added["type"], "item type"), id: str(i, added["id"], "item id")}
				switch it.kind {
				case "message":
					it.role = str(i, added["role"], "role")
				case "function_call":
					it.call = ToolCall{ID: str(i, added["call_id"], "call_id"), Name: str(i, added["name"], "name")}
				}
				items = append(items, it)
			case n < 0 || n >= len(items):
				t.Fatalf("event %d: output_index %d, %d items added", i, n, len(items))
			default:
				it = items[n]
			}
			if it.final != nil {
				t.Fatalf("event %d: %s for item %d after its output_item.done", i, ev.name, n)
			}
			if id, ok := e["item_id"]; ok && id != it.id {
				t.Fatalf("event %d: item_id %v for item %s", i, id, it.id)
			}
		}
		kind := func(k string) {
			if it == nil || it.kind != k {
				t.Fatalf("event %d: %s not for a %s item", i, ev.name, k)
			}
		}
		delta := func() string {
			if o, _ := e["obfuscation"].(string); o == "" {
				t.Fatalf("event %d: a delta without obfuscation", i)
			}
			return str(i, e["delta"], "delta")
		}
		same := func(what string, got any, want string) {
			if got != want {
				t.Fatalf("event %d: %s %s is not what the deltas spelled", i, ev.name, what)
			}
		}
		part := func() *strings.Builder {
			kind("reasoning")
			n := int(e["summary_index"].(float64))
			for len(it.summary) <= n {
				it.summary = append(it.summary, &strings.Builder{})
			}
			return it.summary[n]
		}
		switch ev.name {
		case "response.created", "response.in_progress", "response.output_item.added",
			"response.content_part.added", "response.reasoning_summary_part.added":
		case "response.output_text.delta":
			kind("message")
			it.text.WriteString(delta())
		case "response.output_text.done":
			kind("message")
			same("text", e["text"], it.text.String())
		case "response.content_part.done":
			kind("message")
			same("part text", e["part"].(map[string]any)["text"], it.text.String())
		case "response.reasoning_summary_text.delta":
			part().WriteString(delta())
		case "response.reasoning_summary_text.done":
			p := part()
			same("text", e["text"], p.String())
		case "response.reasoning_summary_part.done":
			p := part()
			same("part text", e["part"].(map[string]any)["text"], p.String())
		case "response.function_call_arguments.delta":
			kind("function_call")
			it.args.WriteString(delta())
		case "response.function_call_arguments.done":
			kind("function_call")
			same("arguments", e["arguments"], it.args.String())
		case "response.output_item.done":
			done := e["item"].(map[string]any)
			if done["id"] != it.id || done["type"] != it.kind || (it.kind != "reasoning" && done["status"] != "completed") {
				t.Fatalf("event %d: item %v (%v, %v) done as %s", i, done["id"], done["type"], done["status"], it.id)
			}
			switch it.kind {
			case "message":
				content := done["content"].([]any)
				if len(content) != 1 {
					t.Fatalf("event %d: a message of %d parts", i, len(content))
				}
				same("text", content[0].(map[string]any)["text"], it.text.String())
			case "reasoning":
				summary := done["summary"].([]any)
				if len(summary) != len(it.summary) {
					t.Fatalf("event %d: %d summary parts, %d streamed", i, len(summary), len(it.summary))
				}
				for j, p := range summary {
					same("summary", p.(map[string]any)["text"], it.summary[j].String())
				}
				m.Signature += str(i, done["encrypted_content"], "encrypted_content")
			case "function_call":
				same("arguments", done["arguments"], it.args.String())
				if done["call_id"] != it.call.ID || done["name"] != it.call.Name {
					t.Fatalf("event %d: call %v %v done as %s %s", i, done["call_id"], done["name"], it.call.ID, it.call.Name)
				}
			}
			it.final = done
		case "response.completed":
			r := e["response"].(map[string]any)
			m.FinishReason = str(i, r["status"], "status")
			var output []any
			for _, it := range items {
				if it.final == nil {
					t.Fatalf("item %s never done", it.id)
				}
				output = append(output, any(it.final))
			}
			if !reflect.DeepEqual(r["output"], output) {
				t.Fatal("response.completed's output is not the items as they were done")
			}
			u := r["usage"].(map[string]any)
			if u["total_tokens"] != u["input_tokens"].(float64)+u["output_tokens"].(float64) {
				t.Fatalf("usage does not add up: %v", u)
			}
		default:
			t.Fatalf("event %d: type %q", i, ev.name)
		}
	}
	var reasoning []string
	for _, it := range items {
		switch it.kind {
		case "message":
			m.Role = it.role
			m.Content += it.text.String()
		case "reasoning":
			for j := range it.summary {
				reasoning = append(reasoning, it.summary[j].String())
			}
		case "function_call":
			it.call.Arguments = it.args.String()
			m.ToolCalls = append(m.ToolCalls, it.call)
		}
	}
	m.Reasoning = strings.Join(reasoning, "\n\n")
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
		{"responses-text", "event: response.output_text.delta\n", 20_000},
		{"responses-tools", "event: response.function_call_arguments.delta\n", ResponsesToolCalls * 100},
		{"responses-tools", "event: response.reasoning_summary_text.delta\n", ResponsesSummaryParts * ResponsesSummaryDeltas},
		{"responses-tools", `"encrypted_content":"gAAAAAB`, 1},
		{"gemini-text", "data: {\"candidates\": ", GeminiTextChunks},
		{"gemini-tools", `"thought": true`, GeminiThoughtChunks},
		{"gemini-tools", `{"functionCall": {"name": `, GeminiToolCalls},
		{"gemini-tools", `"thoughtSignature": "`, 1},
	} {
		if n := count(CorpusNamed(tc.corpus), tc.needle); n < tc.min {
			t.Errorf("%s: %d of %s, want at least %d", tc.corpus, n, tc.needle, tc.min)
		}
	}
	if n := len(CorpusNamed("anthropic-tools").Want.ToolCalls); n != AnthropicToolCalls {
		t.Errorf("anthropic-tools: %d calls", n)
	}
	if n := len(CorpusNamed("responses-tools").Want.ToolCalls); n != ResponsesToolCalls {
		t.Errorf("responses-tools: %d calls", n)
	}
	if n := len(CorpusNamed("gemini-tools").Want.ToolCalls); n != GeminiToolCalls {
		t.Errorf("gemini-tools: %d calls", n)
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

	// The Responses calls' fragments too, and their interleaving: the
	// deltas of some call come between two deltas of another.
	interleaved, last := false, map[float64]int{}
	for i, ev := range splitEvents(t, CorpusNamed("responses-tools")) {
		if ev.name != "response.function_call_arguments.delta" {
			continue
		}
		var v struct {
			OutputIndex float64 `json:"output_index"`
			Delta       string  `json:"delta"`
		}
		if err := json.Unmarshal(ev.data, &v); err != nil {
			t.Fatal(err)
		}
		if v.Delta == "" || len(v.Delta) > 6+3 {
			t.Fatalf("responses-tools: a fragment of %d bytes", len(v.Delta))
		}
		if j, ok := last[v.OutputIndex]; ok && j != i-1 {
			for k, l := range last {
				if k != v.OutputIndex && l > j {
					interleaved = true
				}
			}
		}
		last[v.OutputIndex] = i
	}
	if !interleaved {
		t.Error("responses-tools: the calls' deltas do not interleave")
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
