package bench

// corpus_responses.go: OpenAI Responses API streams, with the event
// sequence and JSON shapes the API sends: "event: <type>" and data whose
// "type" and "sequence_number" come first; response.created and
// response.in_progress; every output item opened by output_item.added and
// closed by output_item.done, its parts by *_part.added and *_part.done;
// deltas with a random "obfuscation"; the full text again in every *.done;
// response.completed with every item and the usage. No [DONE].
//
//	responses-text   one message item, one output_text part of 20,000
//	                 output_text.delta events of 1–8 words
//	responses-tools  a reasoning item (two summary parts streamed as
//	                 reasoning_summary_text deltas, closed with its
//	                 encrypted_content), a short message item, then 4
//	                 function_call items of ~2 KB arguments each in 1–6
//	                 byte function_call_arguments.delta fragments,
//	                 interleaved across output_index at random
//
// The shapes follow llmstream's recorded fixtures
// (llmstream/testdata/providers/responses_*.sse) and its test server's
// Responses wire.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sizes of the Responses corpora.
const (
	ResponsesTextDeltas    = 20_000 // output_text.delta events in responses-text
	ResponsesToolCalls     = 4      // function_call items in responses-tools
	ResponsesSummaryParts  = 2      // reasoning summary parts in responses-tools
	ResponsesSummaryDeltas = 30     // reasoning_summary_text.delta events per part
)

func responsesCorpora() []*Corpus {
	return []*Corpus{genResponsesText(), genResponsesTools()}
}

const (
	responsesModel   = "gpt-5-mini-2025-08-07"
	responsesCreated = 1764500000
)

// responsesWriter writes Responses stream events, numbering them.
type responsesWriter struct {
	sseWriter
	rng *rand.Rand
	id  string // the response's id
	seq int
	tmp []byte
}

// ev writes one event of type typ whose data is {"type":typ,
// "sequence_number":N,<rest>}; rest is members without braces.
func (w *responsesWriter) ev(typ string, rest []byte) {
	b := append(w.tmp[:0], `{"type":"`...)
	b = append(b, typ...)
	b = fmt.Appendf(b, `","sequence_number":%d,`, w.seq)
	b = append(b, rest...)
	b = append(b, '}')
	w.event(typ, b)
	w.tmp = b
	w.seq++
}

// obfuscation is the random padding OpenAI adds to deltas so that their
// length does not give the text away.
func (w *responsesWriter) obfuscation() string {
	return randID(w.rng, "", 2+w.rng.IntN(14))
}

// lifecycle writes response.created, response.in_progress or a terminal
// event: the whole response object with its status, output (a JSON array)
// and usage (a JSON object or null).
func (w *responsesWriter) lifecycle(typ, status, output, usage string) {
	w.ev(typ, fmt.Appendf(nil,
		`"response":{"id":"%s","object":"response","created_at":%d,"status":"%s","background":false,"error":null,"incomplete_details":null,`+
			`"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"model":"%s","output":%s,"parallel_tool_calls":true,`+
			`"previous_response_id":null,"prompt_cache_key":null,"reasoning":{"effort":"medium","summary":"auto"},"safety_identifier":null,`+
			`"service_tier":"auto","store":false,"temperature":1.0,"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto",`+
			`"tools":[],"top_logprobs":0,"top_p":1.0,"truncation":"disabled","usage":%s,"user":null,"metadata":{}}`,
		w.id, responsesCreated, status, responsesModel, output, usage))
}

func responsesUsage(input, cached, output, reasoning int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}`,
		input, cached, output, reasoning, input+output)
}

// itemID is an output item's id: prefix, "_" and 48 hex digits.
func (w *responsesWriter) itemID(prefix string) string {
	b := []byte(prefix + "_")
	for range 48 {
		b = append(b, hexDigits[w.rng.IntN(16)])
	}
	return string(b)
}

// textPart is an output_text content part holding text.
func textPart(text string) string {
	return `{"type":"output_text","annotations":[],"logprobs":[],"text":` + string(appendJSONString(nil, text, false)) + `}`
}

// messageItem is a message output item with one output_text part.
func messageItem(id, status, text string) string {
	content := "[]"
	if status == "completed" {
		content = "[" + textPart(text) + "]"
	}
	return fmt.Sprintf(`{"id":"%s","type":"message","status":"%s","content":%s,"role":"assistant"}`, id, status, content)
}

// message writes a whole message item at index streaming pieces as
// output_text.delta events, the full text in every *.done event, and
// returns the completed item. escape(i) says whether delta i has its
// non-ASCII runes \u-escaped.
func (w *responsesWriter) message(index int, pieces []string, escape func(i int) bool) string {
	id := w.itemID("msg")
	at := fmt.Sprintf(`"item_id":"%s","output_index":%d,"content_index":0`, id, index)
	w.ev("response.output_item.added", fmt.Appendf(nil, `"output_index":%d,"item":%s`, index, messageItem(id, "in_progress", "")))
	w.ev("response.content_part.added", []byte(at+`,"part":`+textPart("")))
	var text strings.Builder
	for i, p := range pieces {
		text.WriteString(p)
		b := append([]byte(at), `,"delta":`...)
		b = appendJSONString(b, p, escape(i))
		b = append(b, `,"logprobs":[],"obfuscation":"`...)
		b = append(b, w.obfuscation()...)
		w.ev("response.output_text.delta", append(b, '"'))
	}
	full := appendJSONString(nil, text.String(), false)
	w.ev("response.output_text.done", []byte(at+`,"text":`+string(full)+`,"logprobs":[]`))
	w.ev("response.content_part.done", []byte(at+`,"part":`+textPart(text.String())))
	done := messageItem(id, "completed", text.String())
	w.ev("response.output_item.done", fmt.Appendf(nil, `"output_index":%d,"item":%s`, index, done))
	return done
}

func genResponsesText() *Corpus {
	rng := rand.New(rand.NewPCG(0x2E5, 6))
	w := &responsesWriter{rng: rng}
	w.buf.Grow(8 << 20)
	w.id = w.itemID("resp")
	w.lifecycle("response.created", "in_progress", "[]", "null")
	w.lifecycle("response.in_progress", "in_progress", "[]", "null")
	pieces := make([]string, ResponsesTextDeltas)
	var content strings.Builder
	for i := range pieces {
		pieces[i] = genText(rng, 1, 8)
		content.WriteString(pieces[i])
	}
	escaped := make([]bool, len(pieces))
	for i := range escaped {
		escaped[i] = rng.IntN(10) == 0 // a tenth with \uXXXX escapes
	}
	item := w.message(0, pieces, func(i int) bool { return escaped[i] })
	w.lifecycle("response.completed", "completed", "["+item+"]", responsesUsage(1234, 1024, ResponsesTextDeltas, 0))
	return w.corpus("responses-text", "responses", "one message item of 20,000 output_text.delta events of 1–8 words (obfuscated), the text again in 4 *.done events, completed with usage",
		Message{Role: "assistant", Content: content.String(), FinishReason: "completed"})
}

var responsesToolNames = []string{"search_documents", "read_file", "create_calendar_event", "run_sql_query"}

// functionCallItem is a function_call output item.
func functionCallItem(id, status, callID, name, arguments string) string {
	return fmt.Sprintf(`{"id":"%s","type":"function_call","status":"%s","arguments":%s,"call_id":"%s","name":"%s"}`,
		id, status, appendJSONString(nil, arguments, false), callID, name)
}

func genResponsesTools() *Corpus {
	rng := rand.New(rand.NewPCG(0x2E5, 7))
	w := &responsesWriter{rng: rng}
	want := Message{Role: "assistant", FinishReason: "completed"}
	w.id = w.itemID("resp")
	w.lifecycle("response.created", "in_progress", "[]", "null")
	w.lifecycle("response.in_progress", "in_progress", "[]", "null")
	var output []string

	// Item 0: reasoning, its summary in parts, closed with the
	// encrypted_content the next request must carry back.
	rsID := w.itemID("rs")
	w.ev("response.output_item.added", fmt.Appendf(nil, `"output_index":0,"item":{"id":"%s","type":"reasoning","summary":[]}`, rsID))
	var summaries []string
	for s := range ResponsesSummaryParts {
		at := fmt.Sprintf(`"item_id":"%s","output_index":0,"summary_index":%d`, rsID, s)
		w.ev("response.reasoning_summary_part.added", []byte(at+`,"part":{"type":"summary_text","text":""}`))
		var text strings.Builder
		for range ResponsesSummaryDeltas {
			p := genText(rng, 2, 10)
			text.WriteString(p)
			b := append([]byte(at), `,"delta":`...)
			b = appendJSONString(b, p, false)
			w.ev("response.reasoning_summary_text.delta", fmt.Appendf(b, `,"obfuscation":"%s"`, w.obfuscation()))
		}
		full := string(appendJSONString(nil, text.String(), false))
		w.ev("response.reasoning_summary_text.done", []byte(at+`,"text":`+full))
		w.ev("response.reasoning_summary_part.done", []byte(at+`,"part":{"type":"summary_text","text":`+full+`}`))
		summaries = append(summaries, `{"type":"summary_text","text":`+full+`}`)
		if s > 0 {
			want.Reasoning += "\n\n" // airlock's and the peers' separator between parts
		}
		want.Reasoning += text.String()
	}
	want.Signature = "gAAAAAB" + randBase64(rng, 1440)
	rs := fmt.Sprintf(`{"id":"%s","type":"reasoning","summary":[%s],"encrypted_content":"%s"}`, rsID, strings.Join(summaries, ","), want.Signature)
	w.ev("response.output_item.done", []byte(`"output_index":0,"item":`+rs))
	output = append(output, rs)

	// Item 1: a little text before the calls.
	pieces := make([]string, 30)
	for i := range pieces {
		pieces[i] = genText(rng, 1, 8)
		want.Content += pieces[i]
	}
	output = append(output, w.message(1, pieces, func(int) bool { return false }))

	// Items 2..: the calls. Each is added after the one before it; the
	// argument deltas of the calls added so far interleave at random;
	// each call closes with function_call_arguments.done and
	// output_item.done once its last fragment is out.
	type progress struct {
		id    string
		frags []string
		next  int
	}
	calls := make([]*progress, ResponsesToolCalls)
	for i := range calls {
		tc := ToolCall{ID: randID(rng, "call_", 24), Name: responsesToolNames[i%len(responsesToolNames)], Arguments: genArgs(rng, ToolArgsTarget)}
		want.ToolCalls = append(want.ToolCalls, tc)
		calls[i] = &progress{id: w.itemID("fc"), frags: splitFragments(rng, tc.Arguments, 1, 6)}
	}
	added := 0
	for left := len(calls); left > 0; {
		var live []int
		for i := range added {
			if calls[i].next < len(calls[i].frags) {
				live = append(live, i)
			}
		}
		if added < len(calls) {
			live = append(live, added) // the next call, not yet added
		}
		i := live[rng.IntN(len(live))]
		p, tc, index := calls[i], want.ToolCalls[i], 2+i
		if i == added {
			added++
			w.ev("response.output_item.added", fmt.Appendf(nil, `"output_index":%d,"item":%s`, index, functionCallItem(p.id, "in_progress", tc.ID, tc.Name, "")))
			continue
		}
		b := fmt.Appendf(nil, `"item_id":"%s","output_index":%d,"delta":`, p.id, index)
		b = appendJSONString(b, p.frags[p.next], false)
		w.ev("response.function_call_arguments.delta", fmt.Appendf(b, `,"obfuscation":"%s"`, w.obfuscation()))
		p.next++
		if p.next < len(p.frags) {
			continue
		}
		left--
		args := appendJSONString(nil, tc.Arguments, false)
		w.ev("response.function_call_arguments.done", fmt.Appendf(nil, `"item_id":"%s","output_index":%d,"arguments":%s`, p.id, index, args))
		w.ev("response.output_item.done", fmt.Appendf(nil, `"output_index":%d,"item":%s`, index, functionCallItem(p.id, "completed", tc.ID, tc.Name, tc.Arguments)))
	}
	for i, p := range calls {
		tc := want.ToolCalls[i]
		output = append(output, functionCallItem(p.id, "completed", tc.ID, tc.Name, tc.Arguments))
	}
	w.lifecycle("response.completed", "completed", "["+strings.Join(output, ",")+"]", responsesUsage(4210, 2048, 2911, 640))
	return w.corpus("responses-tools", "responses", "a reasoning item (2 summary parts of 30 deltas, encrypted_content), 30 text deltas, 4 function_call items (~2 KB arguments each) in 1–6 byte deltas interleaved across output_index", want)
}
