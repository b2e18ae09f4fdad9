package bench

// corpus_chat.go: OpenAI Chat Completions streams (`chat.completion.chunk`
// events, as OpenAI sends them with stream_options.include_usage):
//
//	chat      a role chunk, 20,000 content deltas of 1–8 words, a finish
//	          chunk, a usage chunk (choices: []) and data: [DONE]
//	tools     some text, then 4 parallel tool calls of ~2 KB arguments in
//	          1–6 byte fragments, interleaved across indexes at random
//	crlf      chat with CRLF line ends
//	bigevent  120 events of exactly 64 KiB of JSON each (each data line is
//	          longer than bufio.Scanner's default limit)

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sizes of the chat corpora.
const (
	ChatContentChunks = 20_000 // content deltas in chat and crlf
	ChatToolCalls     = 4      // parallel calls in tools
	ToolArgsTarget    = 2_048  // about this many bytes of arguments per call
	BigEvents         = 120    // events in bigevent
	BigEventPayload   = 65_536 // bytes of JSON in each of them
)

func chatCorpora() []*Corpus {
	chat := genChat()
	return []*Corpus{chat, genChatTools(), toCRLF(chat), genBigEvent()}
}

const (
	chatModel   = "gpt-4o-2024-08-06"
	chatFP      = "fp_07871e2ad8"
	chatCreated = 1753460123
)

// chunkWriter writes chat.completion.chunk events that carry every member
// a real one does (id, object, created, model, service_tier,
// system_fingerprint, choices with logprobs and finish_reason, usage).
type chunkWriter struct {
	sseWriter
	id  string
	tmp []byte
}

func (w *chunkWriter) head() []byte {
	b := w.tmp[:0]
	b = append(b, `{"id":"`...)
	b = append(b, w.id...)
	b = append(b, `","object":"chat.completion.chunk","created":`...)
	b = fmt.Appendf(b, "%d", chatCreated)
	b = append(b, `,"model":"`+chatModel+`","service_tier":"default","system_fingerprint":"`+chatFP+`","choices":[`...)
	return b
}

func (w *chunkWriter) emit(payload []byte) {
	w.event("", payload)
	w.tmp = payload[:0]
}

// delta writes one choice whose delta object has the given members.
func (w *chunkWriter) delta(members []byte, finish string) {
	b := w.head()
	b = append(b, `{"index":0,"delta":{`...)
	b = append(b, members...)
	b = append(b, `},"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, finish...)
		b = append(b, '"')
	}
	b = append(b, `}],"usage":null}`...)
	w.emit(b)
}

func (w *chunkWriter) role() {
	w.delta([]byte(`"role":"assistant","content":"","refusal":null`), "")
}

func (w *chunkWriter) content(s string, escapeUnicode bool) {
	w.delta(appendJSONString([]byte(`"content":`), s, escapeUnicode), "")
}

func (w *chunkWriter) usage(prompt, completion int) {
	b := w.head()
	b = fmt.Appendf(b, `],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,`+
		`"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
		prompt, completion, prompt+completion)
	w.emit(b)
}

func (w *chunkWriter) done() { w.emit([]byte("[DONE]")) }

func genChat() *Corpus {
	rng := rand.New(rand.NewPCG(0xC4A7, 1))
	w := &chunkWriter{id: randID(rng, "chatcmpl-", 29)}
	w.buf.Grow(6 << 20)
	var content strings.Builder
	w.role()
	for range ChatContentChunks {
		s := genText(rng, 1, 8)
		content.WriteString(s)
		w.content(s, rng.IntN(10) == 0) // a tenth with \uXXXX escapes
	}
	w.delta(nil, "stop")
	w.usage(1234, ChatContentChunks)
	w.done()
	return w.corpus("chat", "chat", "20,000 text deltas of 1–8 words (markdown, escapes, raw and \\u-escaped UTF-8), usage, [DONE]",
		Message{Role: "assistant", Content: content.String(), FinishReason: "stop"})
}

// toCRLF is c with CRLF line ends (payloads hold no raw newline, so only
// the framing changes).
func toCRLF(c *Corpus) *Corpus {
	return &Corpus{
		Name:         "crlf",
		Dialect:      c.Dialect,
		About:        "chat with CRLF line ends",
		Data:         bytes.ReplaceAll(c.Data, []byte("\n"), []byte("\r\n")),
		Events:       c.Events,
		PayloadBytes: c.PayloadBytes,
		Want:         c.Want,
	}
}

var chatToolNames = []string{"search_documents", "create_calendar_event", "update_customer_record", "run_sql_query"}

func genChatTools() *Corpus {
	rng := rand.New(rand.NewPCG(0x7001, 2))
	w := &chunkWriter{id: randID(rng, "chatcmpl-", 29)}
	var content strings.Builder
	want := Message{Role: "assistant", FinishReason: "tool_calls"}

	type progress struct {
		frags   []string
		next    int
		started bool
	}
	calls := make([]*progress, ChatToolCalls)
	for i := range calls {
		tc := ToolCall{ID: randID(rng, "call_", 24), Name: chatToolNames[i%len(chatToolNames)], Arguments: genArgs(rng, ToolArgsTarget)}
		want.ToolCalls = append(want.ToolCalls, tc)
		calls[i] = &progress{frags: splitFragments(rng, tc.Arguments, 1, 6)}
	}

	w.role()
	for range 40 {
		s := genText(rng, 1, 8)
		content.WriteString(s)
		w.content(s, false)
	}
	for left := len(calls); left > 0; {
		if rng.IntN(100) == 0 { // a stray text delta between fragments now and then
			s := genText(rng, 1, 4)
			content.WriteString(s)
			w.content(s, false)
			continue
		}
		k, idx := rng.IntN(left), 0
		for i, p := range calls {
			if p.next < len(p.frags) || !p.started {
				if k == 0 {
					idx = i
					break
				}
				k--
			}
		}
		p, tc := calls[idx], want.ToolCalls[idx]
		d := fmt.Appendf(nil, `"tool_calls":[{"index":%d`, idx)
		if !p.started {
			p.started = true
			d = append(d, `,"id":`...)
			d = appendJSONString(d, tc.ID, false)
			d = append(d, `,"type":"function","function":{"name":`...)
			d = appendJSONString(d, tc.Name, false)
			d = append(d, `,"arguments":""}}]`...)
		} else {
			d = append(d, `,"function":{"arguments":`...)
			d = appendJSONString(d, p.frags[p.next], false)
			d = append(d, `}}]`...)
			p.next++
			if p.next == len(p.frags) {
				left--
			}
		}
		w.delta(d, "")
	}
	w.delta(nil, "tool_calls")
	w.usage(812, 2300)
	w.done()
	want.Content = content.String()
	return w.corpus("tools", "chat", "40 text deltas, then 4 parallel calls (~2 KB arguments each) in 1–6 byte fragments interleaved at random", want)
}

func genBigEvent() *Corpus {
	rng := rand.New(rand.NewPCG(0xB16, 3))
	w := &chunkWriter{id: randID(rng, "chatcmpl-", 29)}
	w.buf.Grow(BigEvents*(BigEventPayload+8) + 4096)
	var content strings.Builder
	const suffix = `},"logprobs":null,"finish_reason":null}],"usage":null}`
	for ev := range BigEvents {
		pre := w.head()
		pre = append(pre, `{"index":0,"delta":{`...)
		if ev == 0 {
			pre = append(pre, `"role":"assistant",`...)
		}
		pre = append(pre, `"content":`...)
		budget := BigEventPayload - len(pre) - len(suffix)
		escapeUnicode := ev%4 == 0
		var s strings.Builder
		encoded := 2 // the quotes
		for {
			t := genText(rng, 1, 8)
			n := len(appendJSONString(nil, t, escapeUnicode)) - 2
			if encoded+n > budget-8 {
				break
			}
			s.WriteString(t)
			encoded += n
		}
		for encoded < budget { // ASCII padding to the exact size
			s.WriteByte('.')
			encoded++
		}
		b := append(appendJSONString(pre, s.String(), escapeUnicode), suffix...)
		if len(b) != BigEventPayload {
			panic(fmt.Sprintf("bigevent: payload of %d bytes, want %d", len(b), BigEventPayload))
		}
		content.WriteString(s.String())
		w.emit(b)
	}
	w.delta(nil, "stop")
	w.done()
	return w.corpus("bigevent", "chat", "120 events of exactly 64 KiB of JSON each, finish, [DONE]",
		Message{Role: "assistant", Content: content.String(), FinishReason: "stop"})
}
