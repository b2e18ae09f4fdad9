package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

var gemini = WithDialect(DialectGemini)

// TestGeminiEverySplitPoint splits each recorded Gemini stream at every
// offset into two reads: the result never depends on where reads end.
func TestGeminiEverySplitPoint(t *testing.T) {
	files, _ := filepath.Glob("testdata/providers/gemini_*.sse")
	if len(files) == 0 {
		t.Fatal("no Gemini streams")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, "providers/"+name+".sse")
			m, err := ReadMessage(bytes.NewReader(data), gemini)
			want := outcomeOf(t, m, err)
			for at := 1; at < len(data); at++ {
				m, err := ReadMessage(&chunkedReader{data: data, sizes: []int{at, len(data)}}, gemini)
				if got := outcomeOf(t, m, err); !equalOutcome(got, want) {
					t.Fatalf("split at %d: got %+v, want %+v", at, got, want)
				}
			}
		})
	}
}

// geminiCallStream is a stream of one call with the given arguments object:
// whole (args) or streamed as partial arguments, each string cut at random
// rune boundaries.
func geminiCallStream(t *testing.T, args string, streamed bool, rng *rand.Rand) string {
	t.Helper()
	var b strings.Builder
	ev := func(parts string, finish string) {
		f := ""
		if finish != "" {
			f = `,"finishReason":"` + finish + `"`
		}
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":` + parts + `}` + f + `}]}` + "\n\n")
	}
	if !streamed {
		ev(`[{"functionCall":{"name":"f","args":`+args+`}}]`, "STOP")
		return b.String()
	}
	leaves, ok := leavesOf([]byte(args), rng.IntN(2) == 0)
	if !ok {
		t.Fatalf("%s has no leaves", args)
	}
	ev(`[{"functionCall":{"name":"f","willContinue":true}}]`, "")
	for _, l := range leaves {
		path, _ := json.Marshal(l.path)
		var pieces []string
		switch l.kind {
		case argString:
			for _, p := range randomPieces(l.str, rng) {
				q, _ := json.Marshal(p)
				pieces = append(pieces, `"stringValue":`+string(q))
			}
		case argNumber:
			pieces = []string{`"numberValue":` + l.raw}
		case argBool:
			pieces = []string{`"boolValue":` + l.raw}
		case argNull:
			pieces = []string{[]string{`"nullValue":"NULL_VALUE"`, `"nullValue":null`}[rng.IntN(2)]}
		}
		for i, p := range pieces {
			more := ""
			if i < len(pieces)-1 {
				more = `,"willContinue":true`
			}
			ev(`[{"functionCall":{"partialArgs":[{"jsonPath":`+string(path)+`,`+p+more+`}],"willContinue":true}}]`, "")
		}
	}
	if rng.IntN(2) == 0 {
		ev(`[{"functionCall":{}}]`, "")
	} else {
		ev(`[{"functionCall":{"partialArgs":[]}}]`, "")
	}
	ev(`[{"text":""}]`, "STOP")
	return b.String()
}

// TestGeminiStreamedEqualsWhole: a call whose arguments stream as partial
// arguments decodes to the same arguments as the whole call, and the
// previews show it forming up to the whole.
func TestGeminiStreamedEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, obj := range argumentObjects {
		whole, err := ReadMessage(strings.NewReader(geminiCallStream(t, obj, false, rng)), gemini)
		if err != nil || len(whole.ToolCalls) != 1 {
			t.Fatalf("whole %s: %v", obj, err)
		}
		for range 4 {
			var previews []string
			body := geminiCallStream(t, obj, true, rng)
			m, err := ReadMessage(strings.NewReader(body), gemini, WithOnDelta(func(d Delta) error {
				if d.Kind == DeltaToolCall {
					previews = append(previews, string(d.Call.Partial))
				}
				return nil
			}))
			if err != nil || len(m.ToolCalls) != 1 {
				t.Fatalf("streamed %s: %v\n%s", obj, err, body)
			}
			got := m.ToolCalls[0]
			if got.ID != whole.ToolCalls[0].ID || got.Function.Name != "f" || !sameJSON(got.Function.Arguments, whole.ToolCalls[0].Function.Arguments) {
				t.Fatalf("streamed %+v, whole %+v", got, whole.ToolCalls[0])
			}
			if len(previews) < 2 || previews[len(previews)-1] != got.Function.Arguments || !strings.HasPrefix(got.Function.Arguments, previews[0]) {
				t.Fatalf("previews %q of %s", previews, got.Function.Arguments)
			}
		}
	}
}

// TestGeminiArgumentLimit: the assembler's argument limit bounds streamed
// and whole calls alike, at the limit, one below and one above.
func TestGeminiArgumentLimit(t *testing.T) {
	const limit = 64
	for _, streamed := range []bool{false, true} {
		for _, size := range []int{limit - 1, limit, limit + 1} {
			args := `{"a":"` + strings.Repeat("x", size-len(`{"a":""}`)) + `"}`
			body := geminiCallStream(t, args, streamed, rand.New(rand.NewPCG(1, uint64(size))))
			m, err := ReadMessage(strings.NewReader(body), gemini, WithToolCallOptions(toolcall.WithMaxArgumentBytes(limit)))
			switch {
			case size <= limit && (err != nil || m.ToolCalls[0].Function.Arguments != args):
				t.Errorf("streamed %v, %d bytes: %v", streamed, size, err)
			case size > limit && (!errors.Is(err, toolcall.ErrArgumentsTooLarge) || len(m.ToolCalls) != 0):
				t.Errorf("streamed %v, %d bytes over %d: %v", streamed, size, limit, err)
			}
		}
	}
}

// TestGeminiSequence: calls that break the streamed-call sequence, and
// parts of the wrong type, fail with typed errors and apply nothing more.
func TestGeminiSequence(t *testing.T) {
	open := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`
	arg := func(path, value string) string {
		return `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"` + path + `",` + value + `}],"willContinue":true}}]}}]}`
	}
	stop := `{"candidates":[{"finishReason":"STOP"}]}`
	for _, tc := range []struct {
		name   string
		events []string
		want   error
	}{
		{"a new call while one streams", []string{open, open}, ErrOutOfOrder},
		{"a whole call while one streams", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"a":1}}}]}}]}`}, ErrOutOfOrder},
		{"finished while a call streams", []string{open, arg("$.a", `"numberValue":1`), stop}, ErrOutOfOrder},
		{"arguments for no call", []string{arg("$.a", `"numberValue":1`)}, ErrOutOfOrder},
		{"args and streaming at once", []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"willContinue":true}}]}}]}`}, ErrOutOfOrder},
		{"args while a call streams", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"willContinue":true}}]}}]}`}, ErrOutOfOrder},
		{"another name while a call streams", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"g","partialArgs":[{"jsonPath":"$.a","numberValue":1}],"willContinue":true}}]}}]}`}, ErrOutOfOrder},
		{"another id while a call streams", []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"f","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c2","name":"f","partialArgs":[{"jsonPath":"$.a","numberValue":1}],"willContinue":true}}]}}]}`}, ErrOutOfOrder},
		{"two values", []string{open, arg("$.a", `"numberValue":1,"boolValue":true`)}, ErrArgumentPath},
		{"a number as a string", []string{open, arg("$.a", `"numberValue":"1"`)}, ErrArgumentPath},
		{"a bad nullValue", []string{open, arg("$.a", `"nullValue":"NONE"`)}, ErrArgumentPath},
		{"no jsonPath", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"stringValue":"x"}],"willContinue":true}}]}}]}`}, ErrArgumentPath},
		{"a partial argument that is not an object", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[1],"willContinue":true}}]}}]}`}, ErrArgumentPath},
		{"partialArgs that is not an array", []string{open, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":{},"willContinue":true}}]}}]}`}, ErrArgumentPath},
		{"a duplicate member", []string{open, arg("$.a", `"numberValue":1`), arg("$.a", `"numberValue":2`)}, ErrArgumentPath},
		{"text that is a number", []string{`{"candidates":[{"content":{"parts":[{"text":1}]}}]}`}, ErrBadEvent},
		{"args that is an array", []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[]}}]}}]}`}, ErrBadEvent},
		{"functionCall that is a string", []string{`{"candidates":[{"content":{"parts":[{"functionCall":"f"}]}}]}`}, ErrBadEvent},
		{"not an object", []string{`[]`}, ErrBadEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body strings.Builder
			for _, e := range tc.events {
				body.WriteString("data: " + e + "\n\n")
			}
			body.WriteString("data: " + stop + "\n\n")
			m, err := ReadMessage(strings.NewReader(body.String()), gemini)
			var ev *EventError
			if !errors.Is(err, tc.want) || !errors.As(err, &ev) || len(m.ToolCalls) != 0 {
				t.Fatalf("err = %v, want %v in an *EventError", err, tc.want)
			}
		})
	}
}

// TestGeminiLenient: shapes real streams send that are not errors.
func TestGeminiLenient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		args   string
	}{
		{"an empty functionCall after the call closed", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","numberValue":1}]}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`}, `{"a":1}`},
		{"a call with no args", []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]}}]}`}, `{}`},
		{"a call with null args", []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":null,"id":""}}]}}]}`}, `{}`},
		// Google's own converters (genkit) open a streamed call with an
		// empty args object beside willContinue.
		{"an empty args object on the opening part", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{ },"willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`}, `{"a":"x"}`},
		// The open call's name (and no args, or empty ones) said again on
		// the parts that continue it.
		{"the name again on the continuing parts", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{},"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"y"}],"willContinue":false}}]}}]}`}, `{"a":"xy"}`},
		{"values in the opening part", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true,"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}]}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"y"}]}}]}}]}`}, `{"a":"xy"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body strings.Builder
			for _, e := range tc.events {
				body.WriteString("data: " + e + "\n\n")
			}
			body.WriteString(`data: {"candidates":[{"finishReason":"STOP"}]}` + "\n\n")
			m, err := ReadMessage(strings.NewReader(body.String()), gemini)
			if err != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != tc.args || m.ToolCalls[0].ID != "call_0" {
				t.Fatalf("%+v, %v", m.ToolCalls, err)
			}
		})
	}
}

// TestGeminiFinishReasons: each finishReason to its StopReason, or to a
// failure of the kind it means.
func TestGeminiFinishReasons(t *testing.T) {
	for _, tc := range []struct {
		reason string
		stop   StopReason
		kind   ErrorKind // 0: no failure
	}{
		{"STOP", StopEndTurn, 0},
		{"MAX_TOKENS", StopLength, 0},
		{"CONTINUATION", StopLength, 0},
		{"TOO_MANY_TOOL_CALLS", StopOther, 0},
		{"NO_IMAGE", StopOther, 0},
		{"IMAGE_PROHIBITED_CONTENT", 0, ErrorContentFiltered},
		{"IMAGE_RECITATION", 0, ErrorContentFiltered},
		{"OTHER", StopOther, 0},
		{"LANGUAGE", StopOther, 0},
		{"FINISH_REASON_UNSPECIFIED", StopOther, 0},
		{"SAFETY", 0, ErrorContentFiltered},
		{"RECITATION", 0, ErrorContentFiltered},
		{"BLOCKLIST", 0, ErrorContentFiltered},
		{"PROHIBITED_CONTENT", 0, ErrorContentFiltered},
		{"SPII", 0, ErrorContentFiltered},
		{"IMAGE_SAFETY", 0, ErrorContentFiltered},
		{"MALFORMED_FUNCTION_CALL", 0, ErrorServer},
		{"UNEXPECTED_TOOL_CALL", 0, ErrorServer},
	} {
		body := `data: {"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"` + tc.reason + `"}]}` + "\n\n"
		m, err := ReadMessage(strings.NewReader(body), gemini)
		var api *APIError
		switch {
		case tc.kind == 0 && (err != nil || m.StopReason != tc.stop || m.FinishReason != tc.reason):
			t.Errorf("%s: %v, %v", tc.reason, m.StopReason, err)
		case tc.kind != 0 && (!errors.As(err, &api) || api.Kind != tc.kind || api.Type != tc.reason || m.Content != "hi" || !api.Retryable() != (tc.kind == ErrorContentFiltered)):
			t.Errorf("%s: %v (%+v)", tc.reason, err, api)
		}
	}
	// A call cut by the token limit while its arguments stream fails, and
	// the message says why, as the other dialects' do.
	body := `data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[]},"finishReason":"MAX_TOKENS"}]}` + "\n\n"
	if m, err := ReadMessage(strings.NewReader(body), gemini); !errors.Is(err, ErrOutOfOrder) || m.FinishReason != "MAX_TOKENS" || len(m.ToolCalls) != 0 {
		t.Errorf("a call cut by MAX_TOKENS: finish %q, %v", m.FinishReason, err)
	}
	// A tool-call turn ends with STOP: it is a tool-call turn all the same.
	body = `data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]},"finishReason":"STOP"}]}` + "\n\n"
	if m, err := ReadMessage(strings.NewReader(body), gemini); err != nil || m.StopReason != StopToolCalls {
		t.Errorf("a call with STOP: %v, %v", m.StopReason, err)
	}
}

// TestGeminiBlockReasons: a promptFeedback.blockReason fails the stream as
// content filtered, unless it is the unspecified one, under either API's
// name for it.
func TestGeminiBlockReasons(t *testing.T) {
	for _, tc := range []struct {
		reason  string
		blocked bool
	}{
		{"SAFETY", true}, {"OTHER", true}, {"PROHIBITED_CONTENT", true}, {"JAILBREAK", true},
		{"BLOCK_REASON_UNSPECIFIED", false}, {"BLOCKED_REASON_UNSPECIFIED", false},
	} {
		body := `data: {"promptFeedback":{"blockReason":"` + tc.reason + `"},"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}` + "\n\n"
		m, err := ReadMessage(strings.NewReader(body), gemini)
		var api *APIError
		switch {
		case tc.blocked && (!errors.As(err, &api) || api.Kind != ErrorContentFiltered || api.Type != tc.reason):
			t.Errorf("%s: %v", tc.reason, err)
		case !tc.blocked && (err != nil || m.Content != "hi"):
			t.Errorf("%s: %q, %v", tc.reason, m.Content, err)
		}
	}
}

// TestGeminiUsageLastWins: every usageMetadata replaces the one before, a
// usageMetadata without counts (Vertex's trafficType alone) changes
// nothing, and the total is the sum when none is sent.
func TestGeminiUsageLastWins(t *testing.T) {
	body := `data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"thoughtsTokenCount":7,"cachedContentTokenCount":2,"totalTokenCount":13}}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[{"text":"b"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"}}` + "\n\n" +
		`data: {"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"toolUsePromptTokenCount":4}}` + "\n\n"
	m, err := ReadMessage(strings.NewReader(body), gemini)
	want := Usage{PromptTokens: 5, CompletionTokens: 3, TotalTokens: 12}
	if err != nil || m.Usage == nil || *m.Usage != want {
		t.Fatalf("usage %+v, %v; want %+v", m.Usage, err, want)
	}
}

// TestGeminiSignatures: a signature stays with the part it came with; a
// signature-only part signs the block before it; thought blocks are
// written whole.
func TestGeminiSignatures(t *testing.T) {
	body := strings.Join([]string{
		`{"candidates":[{"content":{"parts":[{"thoughtSignature":"sig-alone"}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"th1 ","thought":true},{"text":"th2","thought":true}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"thoughtSignature":"sig-thought"}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"one ","thoughtSignature":"sig-one"},{"text":"two "}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"three"},{"functionCall":{"name":"f","args":{"x":1}},"thoughtSignature":"sig-call"},{"text":"after"}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"sig-end"}]},"finishReason":"STOP"}]}`,
	}, "\n\n")
	m, err := ReadMessage(strings.NewReader("data: "+strings.ReplaceAll(body, "\n\n", "\n\ndata: ")+"\n\n"), gemini)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "one two threeafter" || m.Reasoning != "th1 th2" {
		t.Fatalf("content %q, reasoning %q", m.Content, m.Reasoning)
	}
	got := fmt.Sprint(m.Continuity.Blocks)
	want := fmt.Sprint([]Block{
		{Type: BlockText, Signature: "sig-alone"},
		{Type: "thought", Signature: "sig-thought", Raw: json.RawMessage(`{"thought":true,"text":"th1 th2","thoughtSignature":"sig-thought"}`)},
		{Type: BlockText, Bytes: 4, Signature: "sig-one"},
		{Type: BlockText, Bytes: 9},
		{Type: BlockToolCall, Call: 0, Signature: "sig-call"},
		{Type: BlockText, Bytes: 5, Signature: "sig-end"},
	})
	if got != want {
		t.Fatalf("blocks\n%s\nwant\n%s", got, want)
	}
}

// TestGeminiHotPathDoesNotAllocate: once warmed up, a text part, a piece
// of a streamed string argument and a usage update cost no allocation.
func TestGeminiHotPathDoesNotAllocate(t *testing.T) {
	b := NewBridge(gemini)
	warm := []string{
		`{"candidates":[{"content":{"parts":[{"text":"hello"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3,"totalTokenCount":3}}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}],"role":"model"}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.text","stringValue":"a","willContinue":true}],"willContinue":true}}]}}]}`,
	}
	for _, w := range warm {
		if err := b.Handle(sse.Event{Data: []byte(w)}); err != nil {
			t.Fatal(err)
		}
	}
	piece := sse.Event{Data: []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.text","stringValue":"more \"text\" é","willContinue":true}],"willContinue":true}}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":9,"totalTokenCount":12},"modelVersion":"gemini-3-pro-preview"}`)}
	if allocs := testing.AllocsPerRun(1000, func() {
		if err := b.Handle(piece); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per streamed argument piece, want 0", allocs)
	}

	tb := NewBridge(gemini)
	text := sse.Event{Data: []byte(`{"candidates":[{"content":{"parts":[{"text":" a \"quoted\" 日本語 word"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":9,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash","responseId":"x"}`)}
	tb.Handle(text)
	if allocs := testing.AllocsPerRun(1000, func() {
		if err := tb.Handle(text); err != nil {
			t.Fatal(err)
		}
	}); allocs > 0.01 { // the content buffer's rare growth
		t.Errorf("%v allocations per text part, want 0", allocs)
	}
}

// TestGeminiCorpora: the benchmark corpora decode to what they spell.
func TestGeminiCorpora(t *testing.T) {
	data, text := geminiTextCorpus(500)
	m, err := ReadMessage(bytes.NewReader(data), gemini)
	if err != nil || m.Content != text || m.Usage.TotalTokens != 1700 || m.Continuity == nil {
		t.Fatalf("text corpus: %v, content ok %v", err, m.Content == text)
	}
	data, args := geminiStreamedArgsCorpus(500)
	m, err = ReadMessage(bytes.NewReader(data), gemini)
	if err != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != args {
		t.Fatalf("streamed corpus: %v, %+v", err, m.ToolCalls)
	}
}
