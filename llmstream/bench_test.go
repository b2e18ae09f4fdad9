package llmstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// chunkJSON is one OpenAI-shaped chunk with the metadata real streams carry
// on every event, so the decoder skips what it would skip in production.
func chunkJSON(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-B9xQ2bench","object":"chat.completion.chunk","created":1764500000,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_38647f5e19","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null,"obfuscation":"Yd3Rk"}`
}

var words = []string{"the", "stream", "parser", "é", "quoted \"word\"", "back\\slash", "日本語", "😀", "tab\t", "line\n", "JSON", "delta", "token", "model", "\u00a0nbsp"}

// chatCorpus is n text events with 1–8 words each, a finish chunk, a usage
// chunk and [DONE], and the text they spell.
func chatCorpus(n int) ([]byte, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	var text strings.Builder
	b.WriteString("data: " + chunkJSON(`{"role":"assistant","content":"","refusal":null}`, "") + "\n\n")
	for range n {
		var piece strings.Builder
		for w := rng.IntN(8); w >= 0; w-- {
			piece.WriteString(" " + words[rng.IntN(len(words))])
		}
		q, _ := json.Marshal(piece.String())
		text.WriteString(piece.String())
		b.WriteString("data: " + chunkJSON(`{"content":`+string(q)+`}`, "") + "\n\n")
	}
	b.WriteString("data: " + chunkJSON(`{}`, "stop") + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-B9xQ2bench","object":"chat.completion.chunk","created":1764500000,"model":"gpt-4.1-mini-2025-04-14","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":30000,"total_tokens":31200}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String()), text.String()
}

// toolsCorpus is 4 parallel calls with ~2 KB arguments each, split into
// 1–6 byte fragments and interleaved across indexes at random.
func toolsCorpus() ([]byte, []string) {
	rng := rand.New(rand.NewPCG(3, 4))
	args := make([]string, 4)
	frags := make([][]string, 4)
	for i := range args {
		var a strings.Builder
		a.WriteString(`{"path":"src/module_` + fmt.Sprint(i) + `.go","edits":[`)
		for j := 0; a.Len() < 2000; j++ {
			if j > 0 {
				a.WriteString(",")
			}
			fmt.Fprintf(&a, `{"line":%d,"old":"fmt.Println(\"é %d\")","new":"log.Printf(\"%%d\\t日本\", %d)","ok":true,"w":[1.5,-2e3,null]}`, j, j, j)
		}
		a.WriteString("]}")
		args[i] = a.String()
		for s := args[i]; s != ""; {
			n := min(1+rng.IntN(6), len(s))
			for n < len(s) && s[n]&0xC0 == 0x80 {
				n++
			}
			frags[i] = append(frags[i], s[:n])
			s = s[n:]
		}
	}
	var b strings.Builder
	b.WriteString("data: " + chunkJSON(`{"role":"assistant","content":null}`, "") + "\n\n")
	next := make([]int, 4)
	for left := true; left; {
		left = false
		i := rng.IntN(4)
		for k := range 4 {
			j := (i + k) % 4
			if next[j] < len(frags[j]) {
				i, left = j, true
				break
			}
		}
		if !left {
			break
		}
		f, _ := json.Marshal(frags[i][next[i]])
		head := ""
		if next[i] == 0 {
			head = fmt.Sprintf(`"id":"call_%d","type":"function","function":{"name":"edit_file","arguments":%s}`, i, f)
		} else {
			head = fmt.Sprintf(`"function":{"arguments":%s}`, f)
		}
		next[i]++
		b.WriteString("data: " + chunkJSON(fmt.Sprintf(`{"tool_calls":[{"index":%d,%s}]}`, i, head), "") + "\n\n")
	}
	b.WriteString("data: " + chunkJSON(`{}`, "tool_calls") + "\n\ndata: [DONE]\n\n")
	return []byte(b.String()), args
}

func TestBenchCorporaDecode(t *testing.T) {
	chat, text := chatCorpus(500)
	m, err := ReadMessage(bytes.NewReader(chat))
	if err != nil || m.Content != text || m.Usage == nil || m.Usage.TotalTokens != 31200 {
		t.Fatalf("chat corpus: err=%v, content ok=%v, usage=%+v", err, m.Content == text, m.Usage)
	}
	tools, args := toolsCorpus()
	m, err = ReadMessage(bytes.NewReader(tools))
	if err != nil || len(m.ToolCalls) != 4 {
		t.Fatalf("tools corpus: err=%v, %d calls", err, len(m.ToolCalls))
	}
	for i, c := range m.ToolCalls {
		if c.Function.Arguments != args[i] || c.ID != fmt.Sprintf("call_%d", i) {
			t.Errorf("call %d: id %q, arguments differ: %v", i, c.ID, c.Function.Arguments != args[i])
		}
	}
}

func benchmarkReadMessage(b *testing.B, data []byte, opts ...BridgeOption) {
	events := bytes.Count(data, []byte("data:"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	r := bytes.NewReader(data)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r.Reset(data)
		if _, err := ReadMessage(r, opts...); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*events), "allocs/event")
}

// BenchmarkReadMessage is the whole pipeline in memory: SSE, chunk
// decoding, assembly, the final message.
func BenchmarkReadMessage(b *testing.B) {
	chat, _ := chatCorpus(20000)
	tools, _ := toolsCorpus()
	crlf := bytes.ReplaceAll(chat, []byte("\n"), []byte("\r\n"))
	b.Run("corpus=chat", func(b *testing.B) { benchmarkReadMessage(b, chat) })
	b.Run("corpus=crlf", func(b *testing.B) { benchmarkReadMessage(b, crlf) })
	b.Run("corpus=tools", func(b *testing.B) { benchmarkReadMessage(b, tools) })
	responses, _ := responsesCorpus(20000)
	responsesTools, _ := responsesToolsCorpus()
	b.Run("corpus=responses", func(b *testing.B) { benchmarkReadMessage(b, responses, WithDialect(DialectResponses)) })
	b.Run("corpus=responses-tools", func(b *testing.B) { benchmarkReadMessage(b, responsesTools, WithDialect(DialectResponses)) })
	gemText, _ := geminiTextCorpus(20000)
	gemArgs, _ := geminiStreamedArgsCorpus(20000)
	b.Run("corpus=gemini", func(b *testing.B) { benchmarkReadMessage(b, gemText, WithDialect(DialectGemini)) })
	b.Run("corpus=gemini_args", func(b *testing.B) { benchmarkReadMessage(b, gemArgs, WithDialect(DialectGemini)) })
}

// BenchmarkDecodeChunk is the chunk decoder alone on one typical event.
func BenchmarkDecodeChunk(b *testing.B) {
	ev := []byte(chunkJSON(`{"content":" the stream parser \"quoted\" é"}`, ""))
	br := NewBridge()
	c := br.decoder().(*chatDecoder)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		br.content = br.content[:0]
		if _, err := c.decodeChunk(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// The Responses corpora below depend on nothing but the standard library
// and words, so the peer-benchmark module can copy them as they are.

// responsesEvent is one Responses SSE event: the event name, then the data
// with the type and the sequence number first, as OpenAI writes them.
func responsesEvent(b *strings.Builder, seq *int, typ, rest string) {
	fmt.Fprintf(b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, *seq, rest)
	*seq++
}

// responsesEnvelope is the response object of the lifecycle events.
func responsesEnvelope(status, output, usage string) string {
	return `"response":{"id":"resp_bench0123456789abcdef","object":"response","created_at":1764500000,"status":"` + status +
		`","background":false,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-5-mini-2025-08-07","output":` +
		output + `,"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":"medium","summary":null},"store":false,"temperature":1.0,` +
		`"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":` + usage + `,"user":null,"metadata":{}}`
}

const responsesBenchUsage = `{"input_tokens":1200,"input_tokens_details":{"cached_tokens":1024},"output_tokens":30000,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":31200}`

// responsesCorpus is a Responses stream of one message item with n text
// deltas of 1–8 words, and the text they spell. As OpenAI does, the full
// text comes again in output_text.done, content_part.done,
// output_item.done and response.completed.
func responsesCorpus(n int) ([]byte, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b, text strings.Builder
	seq := 0
	const item = `"item_id":"msg_bench0123456789abcdef","output_index":0,"content_index":0`
	responsesEvent(&b, &seq, "response.created", responsesEnvelope("in_progress", "[]", "null"))
	responsesEvent(&b, &seq, "response.in_progress", responsesEnvelope("in_progress", "[]", "null"))
	responsesEvent(&b, &seq, "response.output_item.added", `"output_index":0,"item":{"id":"msg_bench0123456789abcdef","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	responsesEvent(&b, &seq, "response.content_part.added", item+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`)
	for range n {
		var piece strings.Builder
		for w := rng.IntN(8); w >= 0; w-- {
			piece.WriteString(" " + words[rng.IntN(len(words))])
		}
		q, _ := json.Marshal(piece.String())
		text.WriteString(piece.String())
		responsesEvent(&b, &seq, "response.output_text.delta", item+`,"delta":`+string(q)+`,"logprobs":[],"obfuscation":"Yd3Rk"`)
	}
	full, _ := json.Marshal(text.String())
	part := `{"type":"output_text","annotations":[],"logprobs":[],"text":` + string(full) + `}`
	msg := `{"id":"msg_bench0123456789abcdef","type":"message","status":"completed","content":[` + part + `],"role":"assistant"}`
	responsesEvent(&b, &seq, "response.output_text.done", item+`,"text":`+string(full)+`,"logprobs":[]`)
	responsesEvent(&b, &seq, "response.content_part.done", item+`,"part":`+part)
	responsesEvent(&b, &seq, "response.output_item.done", `"output_index":0,"item":`+msg)
	responsesEvent(&b, &seq, "response.completed", responsesEnvelope("completed", "["+msg+"]", responsesBenchUsage))
	return []byte(b.String()), text.String()
}

// responsesToolsCorpus is 4 parallel function calls with ~2 KB arguments
// each, split into 1–6 byte argument deltas interleaved across the calls
// at random, each call closed by function_call_arguments.done and
// output_item.done, then response.completed with all four; and the
// arguments.
func responsesToolsCorpus() ([]byte, []string) {
	rng := rand.New(rand.NewPCG(3, 4))
	args := make([]string, 4)
	frags := make([][]string, 4)
	for i := range args {
		var a strings.Builder
		a.WriteString(`{"path":"src/module_` + fmt.Sprint(i) + `.go","edits":[`)
		for j := 0; a.Len() < 2000; j++ {
			if j > 0 {
				a.WriteString(",")
			}
			fmt.Fprintf(&a, `{"line":%d,"old":"fmt.Println(\"é %d\")","new":"log.Printf(\"%%d\\t日本\", %d)","ok":true,"w":[1.5,-2e3,null]}`, j, j, j)
		}
		a.WriteString("]}")
		args[i] = a.String()
		for s := args[i]; s != ""; {
			n := min(1+rng.IntN(6), len(s))
			for n < len(s) && s[n]&0xC0 == 0x80 {
				n++
			}
			frags[i] = append(frags[i], s[:n])
			s = s[n:]
		}
	}
	callItem := func(i int, status, arguments string) string {
		q, _ := json.Marshal(arguments)
		return fmt.Sprintf(`{"id":"fc_bench%d","type":"function_call","status":%q,"arguments":%s,"call_id":"call_%d","name":"edit_file"}`, i, status, q, i)
	}
	var b strings.Builder
	seq := 0
	responsesEvent(&b, &seq, "response.created", responsesEnvelope("in_progress", "[]", "null"))
	responsesEvent(&b, &seq, "response.in_progress", responsesEnvelope("in_progress", "[]", "null"))
	next := make([]int, 4)
	for {
		live := 0
		for j := range 4 {
			if next[j] < len(frags[j]) {
				live++
			}
		}
		if live == 0 {
			break
		}
		i, k := 0, rng.IntN(live)
		for j := range 4 {
			if next[j] < len(frags[j]) {
				if k == 0 {
					i = j
					break
				}
				k--
			}
		}
		if next[i] == 0 {
			responsesEvent(&b, &seq, "response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":%s`, i, callItem(i, "in_progress", "")))
		}
		f, _ := json.Marshal(frags[i][next[i]])
		responsesEvent(&b, &seq, "response.function_call_arguments.delta", fmt.Sprintf(`"item_id":"fc_bench%d","output_index":%d,"delta":%s,"obfuscation":"aB3"`, i, i, f))
		next[i]++
		if next[i] == len(frags[i]) {
			q, _ := json.Marshal(args[i])
			responsesEvent(&b, &seq, "response.function_call_arguments.done", fmt.Sprintf(`"item_id":"fc_bench%d","output_index":%d,"arguments":%s`, i, i, q))
			responsesEvent(&b, &seq, "response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, i, callItem(i, "completed", args[i])))
		}
	}
	output := make([]string, 4)
	for i := range output {
		output[i] = callItem(i, "completed", args[i])
	}
	responsesEvent(&b, &seq, "response.completed", responsesEnvelope("completed", "["+strings.Join(output, ",")+"]", responsesBenchUsage))
	return []byte(b.String()), args
}

func TestResponsesBenchCorporaDecode(t *testing.T) {
	data, text := responsesCorpus(500)
	m, err := ReadMessage(bytes.NewReader(data), WithDialect(DialectResponses))
	if err != nil || m.Content != text || m.Usage == nil || m.Usage.TotalTokens != 31200 || m.Usage.CachedTokens != 1024 {
		t.Fatalf("text corpus: err=%v, content ok=%v, usage=%+v", err, m.Content == text, m.Usage)
	}
	data, args := responsesToolsCorpus()
	m, err = ReadMessage(bytes.NewReader(data), WithDialect(DialectResponses))
	if err != nil || len(m.ToolCalls) != 4 {
		t.Fatalf("tools corpus: err=%v, %d calls", err, len(m.ToolCalls))
	}
	for i, c := range m.ToolCalls {
		if c.Function.Arguments != args[i] || c.ID != fmt.Sprintf("call_%d", i) {
			t.Errorf("call %d: id %q, arguments differ: %v", i, c.ID, c.Function.Arguments != args[i])
		}
	}
}
