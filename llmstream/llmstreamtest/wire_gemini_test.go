package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	"github.com/google/go-cmp/cmp"
)

const (
	geminiPath = "/v1beta/models/gemini-test:streamGenerateContent"
	geminiBody = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
)

var geminiTurn = Turn{
	Reasoning: "The user wants two files read.",
	Text:      "Reading both — ünïcødé.",
	ToolCalls: []Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096,"opts":{"follow":true,"tags":["a","b"],"none":null}}`},
		{ID: "fc_given", Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`},
	},
	Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, ReasoningTokens: 10, CachedTokens: 8},
}

func geminiTestClient(srv *Server, opts ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append([]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectGemini),
		llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey("AIza-test-key-123"), llmstream.WithModel("gemini-test"),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(3, time.Millisecond, time.Millisecond)))}, opts...)...)
}

// geminiWant is the message geminiTurn decodes to on request 1.
func geminiWant() llmstream.Message {
	return llmstream.Message{
		Role: "assistant", Content: "Reading both — ünïcødé.", Reasoning: "The user wants two files read.", Model: "gemini-test",
		ToolCalls: []llmstream.ToolCall{
			{ID: "call_0", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096,"opts":{"follow":true,"tags":["a","b"],"none":null}}`}},
			{ID: "fc_given", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`}},
		},
		FinishReason: "STOP", StopReason: llmstream.StopToolCalls,
		Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, ReasoningTokens: 10, CachedTokens: 8, TotalTokens: 65},
		Continuity: &llmstream.Continuity{Dialect: llmstream.DialectGemini, Blocks: []llmstream.Block{
			{Type: "thought", Signature: "bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMSB0aG91Z2h0",
				Raw: json.RawMessage(`{"thought":true,"text":"The user wants two files read.","thoughtSignature":"bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMSB0aG91Z2h0"}`)},
			{Type: llmstream.BlockText, Bytes: len("Reading both — ünïcødé.")},
			{Type: llmstream.BlockToolCall, Call: 0, Signature: "bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMSBjYWxs"},
			{Type: llmstream.BlockToolCall, Call: 1, ID: "fc_given"},
		}},
	}
}

// TestGeminiWire: a turn served on the Gemini path decodes to the message
// the script describes, whole and one byte at a time, with calls whole
// and streamed as partial arguments.
func TestGeminiWire(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		for seed := range uint64(4) {
			srv := NewTestServer(t, WithTurns(geminiTurn), WithStreamedArguments(streamed), WithSeed(seed))
			r := post(t, srv, geminiPath+"?alt=sse", geminiBody)
			if r.status != 200 || r.readErr != nil || !strings.HasPrefix(string(r.body), `data: {"candidates":[{"content":{"parts":[{"text":"The `) {
				t.Fatalf("status %d, %v, body %.200s", r.status, r.readErr, r.body)
			}
			if streamed != strings.Contains(string(r.body), `"partialArgs"`) || !strings.Contains(string(r.body), "}\r\n\r\ndata: ") {
				t.Fatalf("streamed %v: body %s", streamed, r.body)
			}
			for name, rd := range map[string]io.Reader{"whole": bytes.NewReader(r.body), "one byte at a time": iotest.OneByteReader(bytes.NewReader(r.body))} {
				got, err := llmstream.ReadMessage(rd, llmstream.WithDialect(llmstream.DialectGemini))
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, r.body)
				}
				if diff := cmp.Diff(geminiWant(), got, cmp.Comparer(jsonEqual)); diff != "" {
					t.Errorf("streamed %v, seed %d, %s: message (-want +got):\n%s", streamed, seed, name, diff)
				}
			}
		}
	}
}

// TestGeminiWireArgumentShapes: arguments partial arguments cannot say go
// whole even when streaming; arguments that are not an object go as a
// string a client refuses.
func TestGeminiWireArgumentShapes(t *testing.T) {
	for _, tc := range []struct {
		args    string
		want    string // "" when the client must refuse
		partial bool
	}{
		{`{"a":[]}`, `{"a":[]}`, false},
		{`{}`, `{}`, false},
		{``, `{}`, false},
		{`{"k":{"x":"y"},"n":-1.5e3}`, `{"k":{"x":"y"},"n":-1.5e3}`, true},
		{`[1,2]`, "", false},
		{`{"a":`, "", false},
	} {
		srv := NewTestServer(t, WithTurns(Turn{ToolCalls: []Call{{Name: "f", Arguments: tc.args}}}), WithStreamedArguments(true))
		r := post(t, srv, geminiPath, geminiBody)
		m, err := llmstream.ReadMessage(bytes.NewReader(r.body), llmstream.WithDialect(llmstream.DialectGemini))
		if tc.want == "" {
			if !errors.Is(err, llmstream.ErrBadEvent) {
				t.Errorf("%s: err = %v, want ErrBadEvent", tc.args, err)
			}
			continue
		}
		if err != nil || m.ToolCalls[0].Function.Arguments != tc.want || strings.Contains(string(r.body), "partialArgs") != tc.partial {
			t.Errorf("%s: %+v, %v\n%s", tc.args, m.ToolCalls, err, r.body)
		}
	}
}

// TestGeminiWireFailedFinish: a botched call or a safety stop ends in a
// candidate without content, as Gemini sends it, so that a client reading
// the candidate's content without looking is caught here.
func TestGeminiWireFailedFinish(t *testing.T) {
	for _, reason := range []string{"MALFORMED_FUNCTION_CALL", "SAFETY", "PROHIBITED_CONTENT"} {
		srv := NewTestServer(t, WithTurns(Turn{Text: "partly", FinishReason: reason}))
		r := post(t, srv, geminiPath, geminiBody)
		events := strings.Split(strings.TrimSpace(string(r.body)), "\r\n\r\n")
		var last struct {
			Candidates []map[string]json.RawMessage `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(events[len(events)-1], "data: ")), &last); err != nil || len(last.Candidates) != 1 {
			t.Fatalf("%s: %v\n%s", reason, err, r.body)
		}
		if c := last.Candidates[0]; c["content"] != nil || string(c["finishReason"]) != `"`+reason+`"` {
			t.Errorf("%s: the last candidate %s", reason, events[len(events)-1])
		}
	}
}

// TestGeminiWireConversation: the client's second request comes back,
// decoded, with the thought part and the signatures in place, the tool
// results as tool messages and the system prompt; the tools come back too.
func TestGeminiWireConversation(t *testing.T) {
	srv := NewTestServer(t, WithTurns(geminiTurn, Turn{Text: "Done."}))
	c := geminiTestClient(srv)
	conv := []llmstream.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Read them."}}
	tools := []llmstream.Tool{{Type: "function", Function: llmstream.ToolFunction{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: conv, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	conv = append(conv, m, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "error: no such file", IsError: true},
		llmstream.Message{Role: "user", Content: "And?"})
	last, err := c.Stream(t.Context(), llmstream.Request{Messages: conv, Tools: tools})
	if err != nil || last.Content != "Done." || last.Continuity == nil || last.Continuity.Blocks[0].Signature == "" {
		t.Fatalf("second turn %+v, %v", last, err)
	}
	reqs := srv.Requests()
	if reqs[1].Dialect != llmstream.DialectGemini || reqs[1].Header.Get("X-Goog-Api-Key") != "AIza-test-key-123" || reqs[1].Model != "gemini-test" || !reqs[1].Stream {
		t.Errorf("request %+v", reqs[1])
	}
	if diff := cmp.Diff(conv, reqs[1].Messages, cmp.Comparer(jsonEqual), cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().String() {
		case ".Reasoning", ".FinishReason", ".StopReason", ".Usage", ".Model":
			return true // describe the response; never sent
		}
		return false
	}, cmp.Ignore())); diff != "" {
		t.Errorf("the conversation as the server read it (-sent +read):\n%s", diff)
	}
	if diff := cmp.Diff(tools, reqs[1].Tools, cmp.Comparer(jsonEqual)); diff != "" {
		t.Errorf("tools (-sent +read):\n%s", diff)
	}
}

// TestGeminiWireFaults: every fault in Gemini's own form reaches the
// client as the same kind of error the real API would give.
func TestGeminiWireFaults(t *testing.T) {
	base := Turn{Text: "one two three four five", ToolCalls: []Call{{Name: "f", Arguments: `{"a":1}`}}}
	with := func(f Fault) Turn { t := base; t.Fault = f; return t }
	apiErr := func(t *testing.T, err error, status int, typ string, kind llmstream.ErrorKind) *llmstream.APIError {
		t.Helper()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.StatusCode != status || api.Type != typ || api.Kind != kind {
			t.Errorf("err = %v, want HTTP %d %s (%v)", err, status, typ, kind)
		}
		return api
	}
	tests := []struct {
		name  string
		turn  Turn
		check func(t *testing.T, m llmstream.Message, err error)
	}{
		{"503 then success", with(Fault{Kind: FaultStatus, Status: 503, Attempts: 2}), func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || len(m.ToolCalls) != 1 {
				t.Errorf("after two 503s: %v", err)
			}
		}},
		{"429 with RetryInfo, honoured", with(Fault{Kind: FaultStatus, Status: 429, Attempts: 1, RetryAfter: "0.05"}), func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || len(m.ToolCalls) != 1 {
				t.Errorf("after a 429 asking for 50ms: %v", err)
			}
		}},
		{"429 with RetryInfo past the cap", with(Fault{Kind: FaultStatus, Status: 429, RetryAfter: "120"}), func(t *testing.T, m llmstream.Message, err error) {
			api := apiErr(t, err, 429, "RESOURCE_EXHAUSTED", llmstream.ErrorRateLimited)
			var se *transport.StatusError
			if api == nil || !errors.As(err, &se) || !strings.Contains(string(se.Body), `"retryDelay":"120s"`) || se.Header.Get("Retry-After") != "" {
				t.Errorf("the 429 %v", se)
			}
		}},
		{"401", with(Fault{Kind: FaultStatus, Status: 401}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, 401, "UNAUTHENTICATED", llmstream.ErrorAuthentication)
		}},
		{"error event mid-stream", with(Fault{Kind: FaultErrorEvent, After: 3, Message: "The model is overloaded."}), func(t *testing.T, m llmstream.Message, err error) {
			if api := apiErr(t, err, 0, "UNAVAILABLE", llmstream.ErrorOverloaded); api == nil || api.Message != "The model is overloaded." || m.Content != "one two three " {
				t.Errorf("content %q", m.Content)
			}
		}},
		// A fault written for every wire names its type in OpenAI's words;
		// Gemini's status is its own enum, that of the HTTP status.
		{"a 403 whose type is another provider's word", with(Fault{Kind: FaultStatus, Status: 403, Type: "invalid_request_error"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, 403, "PERMISSION_DENIED", llmstream.ErrorPermission)
		}},
		{"an error event whose type is another provider's word", with(Fault{Kind: FaultErrorEvent, After: 1, Type: "server_error"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, 0, "UNAVAILABLE", llmstream.ErrorOverloaded)
		}},
		{"an error event named by Gemini's enum", with(Fault{Kind: FaultErrorEvent, After: 1, Type: "RESOURCE_EXHAUSTED"}), func(t *testing.T, m llmstream.Message, err error) {
			if api := apiErr(t, err, 0, "RESOURCE_EXHAUSTED", llmstream.ErrorRateLimited); api != nil && api.Code != "429" {
				t.Errorf("code %q, want the HTTP status RESOURCE_EXHAUSTED goes with, 429", api.Code)
			}
		}},
		{"malformed function call", Turn{Text: "calling", FinishReason: "MALFORMED_FUNCTION_CALL"}, func(t *testing.T, m llmstream.Message, err error) {
			if api := apiErr(t, err, 0, "MALFORMED_FUNCTION_CALL", llmstream.ErrorServer); api == nil || !strings.HasPrefix(api.Message, "Malformed function call") || m.Content != "calling" {
				t.Errorf("%+v", api)
			}
		}},
		{"safety finish", Turn{Text: "how to", FinishReason: "SAFETY"}, func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, 0, "SAFETY", llmstream.ErrorContentFiltered)
		}},
		{"prompt blocked", Turn{Text: "never sent", FinishReason: "blockReason:PROHIBITED_CONTENT", Usage: &llmstream.Usage{PromptTokens: 7}}, func(t *testing.T, m llmstream.Message, err error) {
			if apiErr(t, err, 0, "PROHIBITED_CONTENT", llmstream.ErrorContentFiltered); m.Content != "" || m.Usage == nil || m.Usage.PromptTokens != 7 {
				t.Errorf("%+v", m)
			}
		}},
		{"max tokens", Turn{Text: "cut", FinishReason: "MAX_TOKENS"}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.StopReason != llmstream.StopLength {
				t.Errorf("%v, %v", m.StopReason, err)
			}
		}},
		{"cut", with(Fault{Kind: FaultCut, After: 3}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrInterrupted) || len(m.ToolCalls) != 0 {
				t.Errorf("err = %v", err)
			}
		}},
		{"truncated before the finish", with(Fault{Kind: FaultTruncate, After: 100}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrTruncated) || len(m.ToolCalls) != 0 || m.Content != base.Text {
				t.Errorf("err = %v, content %q", err, m.Content)
			}
		}},
		{"malformed", with(Fault{Kind: FaultMalformed, After: 2}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrBadEvent) {
				t.Errorf("err = %v", err)
			}
		}},
		{"keep-alives send nothing", Turn{Text: "hi", KeepAlive: 2}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.Content != "hi" {
				t.Errorf("%q, %v", m.Content, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(tt.turn))
			m, err := geminiTestClient(srv).Stream(t.Context(), llmstream.Request{})
			tt.check(t, m, err)
		})
	}
	t.Run("stall", func(t *testing.T) {
		srv := NewTestServer(t, WithTurns(with(Fault{Kind: FaultStall, After: 3})))
		_, err := geminiTestClient(srv, llmstream.WithIdleTimeout(100*time.Millisecond)).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrIdleTimeout) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("streamed arguments truncated", func(t *testing.T) {
		srv := NewTestServer(t, WithTurns(Turn{ToolCalls: []Call{{Name: "f", Arguments: `{"a":"a long string value","b":[1,2]}`}}, Fault: Fault{Kind: FaultTruncate, After: 4}}), WithStreamedArguments(true))
		m, err := geminiTestClient(srv).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrTruncated) || len(m.ToolCalls) != 0 {
			t.Errorf("err = %v, calls %v", err, m.ToolCalls)
		}
	})
}

// TestGeminiWireBadRequest: a request the server refuses is answered in
// Gemini's error shape; the model comes from the path, and a Gemini path
// without one is not served.
func TestGeminiWireBadRequest(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "x"}))
	defer srv.Close()
	for _, tc := range []struct {
		path, body string
		status     int
		want       string
	}{
		{geminiPath, `{"generationConfig":{}}`, http.StatusBadRequest, `"contents" is missing`},
		{geminiPath, `[]`, http.StatusBadRequest, "not a gemini request"},
		{"/v1beta/models/:streamGenerateContent", geminiBody, http.StatusNotFound, "streamGenerateContent"},
		{"/v1beta/models/x:generateContent", geminiBody, http.StatusNotFound, "streamGenerateContent"},
	} {
		r := post(t, srv, tc.path, tc.body)
		var body struct {
			Error struct {
				Code    int
				Message string
				Status  string
			}
		}
		json.Unmarshal(r.body, &body)
		if r.status != tc.status || !strings.Contains(body.Error.Message, tc.want) {
			t.Errorf("%s %s: status %d, body %s", tc.path, tc.body, r.status, r.body)
		}
		if tc.status == http.StatusBadRequest && (body.Error.Code != 400 || body.Error.Status != "INVALID_ARGUMENT") {
			t.Errorf("not Gemini's shape: %s", r.body)
		}
	}
	if got := srv.Requests()[0]; got.Model != "gemini-test" || got.Dialect != llmstream.DialectGemini {
		t.Errorf("request %+v", got)
	}
}

// FuzzGeminiWire renders a fuzzed turn in Gemini's form, calls whole or
// streamed, and checks that llmstream decodes it back to the script, whole
// and split at random offsets.
func FuzzGeminiWire(f *testing.F) {
	f.Add("Hello, world!", "think", `{"a":1,"b":{"c":[true,null,"x"]}}`, uint64(1), true, uint8(2))
	f.Add("naïve ✓ <b>&</b>\n\t\"q\"", "", `{"s":"é😀","odd key":"it's"}`, uint64(7), false, uint8(1))
	f.Add("", "", "", uint64(0), true, uint8(0))
	f.Add("x", "", `[1,2`, uint64(3), true, uint8(1))
	f.Fuzz(func(t *testing.T, text, reasoning, args string, seed uint64, streamed bool, ncalls uint8) {
		turn := Turn{Text: text, Reasoning: reasoning}
		for i := range int(ncalls % 3) {
			turn.ToolCalls = append(turn.ToolCalls, Call{Name: "f" + string(rune('a'+i)), Arguments: args})
		}
		if turn.check() != "" {
			return
		}
		cfg := newConfig([]Option{WithSeed(seed), WithStreamedArguments(streamed)})
		evs, err := newRenderer(&cfg, geminiWire{}, &Request{Seq: 1, Model: "m"}, turn).render()
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		for _, e := range evs {
			body = append(body, e.data...)
		}
		object := json.Valid([]byte(args)) && strings.HasPrefix(strings.TrimSpace(args), "{")
		for _, rd := range []io.Reader{bytes.NewReader(body), &splitReader{b: body, rng: rand.New(rand.NewPCG(seed, 1))}} {
			m, err := llmstream.ReadMessage(rd, llmstream.WithDialect(llmstream.DialectGemini))
			if len(turn.ToolCalls) > 0 && !object && strings.TrimSpace(args) != "" {
				if !errors.Is(err, llmstream.ErrBadEvent) {
					t.Fatalf("arguments %q: err = %v, want ErrBadEvent", args, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if m.Content != text || m.Reasoning != reasoning || len(m.ToolCalls) != len(turn.ToolCalls) {
				t.Fatalf("got %+v", m)
			}
			for _, c := range m.ToolCalls {
				want := args
				if strings.TrimSpace(args) == "" {
					want = "{}"
				}
				if !jsonEqual(json.RawMessage(c.Function.Arguments), json.RawMessage(want)) {
					t.Fatalf("arguments %s, want %s", c.Function.Arguments, want)
				}
			}
		}
	})
}

// TestGeminiErrorStatus: error.status is the google.rpc.Code name of the
// HTTP status, as Gemini sends it, whatever word the fault's Type holds
// unless it is such a name; code is the HTTP status.
func TestGeminiErrorStatus(t *testing.T) {
	tests := []struct {
		status int
		typ    string
		want   string
	}{
		{400, "", "INVALID_ARGUMENT"},
		{401, "", "UNAUTHENTICATED"},
		{403, "invalid_request_error", "PERMISSION_DENIED"},
		{404, "", "NOT_FOUND"},
		{429, "rate_limit_exceeded", "RESOURCE_EXHAUSTED"},
		{500, "server_error", "INTERNAL"},
		{503, "server_error", "UNAVAILABLE"},
		{504, "", "DEADLINE_EXCEEDED"},
		{400, "FAILED_PRECONDITION", "FAILED_PRECONDITION"},
	}
	for _, tt := range tests {
		var body struct {
			Error struct {
				Code   int
				Status string
			}
		}
		if err := json.Unmarshal(geminiError(tt.status, Fault{Type: tt.typ}), &body); err != nil {
			t.Fatal(err)
		}
		if body.Error.Code != tt.status || body.Error.Status != tt.want {
			t.Errorf("HTTP %d, Type %q: code %d status %q; want %d %q", tt.status, tt.typ, body.Error.Code, body.Error.Status, tt.status, tt.want)
		}
	}
}
