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
