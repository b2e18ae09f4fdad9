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
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/transport"
	"github.com/google/go-cmp/cmp"
)

const responsesBody = `{"model":"gpt-test","stream":true,"input":[{"type":"message","role":"user","content":"hi"}]}`

var responsesTurn = Turn{
	Reasoning: "The user wants two files read.",
	Text:      "Reading both — ünïcødé.",
	ToolCalls: []Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`},
		{ID: "call_given", Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`},
		{Name: "now"},
	},
	Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, CachedTokens: 8, ReasoningTokens: 10},
}

func responsesClient(srv *Server, opts ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append([]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectResponses),
		llmstream.WithBaseURL(srv.URL + "/v1"), llmstream.WithAPIKey("sk-test"), llmstream.WithModel("gpt-test"),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(3, time.Millisecond, time.Millisecond)))}, opts...)...)
}

// TestResponsesWire: a turn served on /v1/responses decodes to the message
// the script describes, whole and one byte at a time, its calls one after
// another or interleaved; the stream has the real event sequence.
func TestResponsesWire(t *testing.T) {
	want := llmstream.Message{
		Role: "assistant", Content: "Reading both — ünïcødé.", Reasoning: "The user wants two files read.", Model: "gpt-test",
		ToolCalls: []llmstream.ToolCall{
			{ID: "call_1_0", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`}},
			{ID: "call_given", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`}},
			{ID: "call_1_2", Type: "function", Function: llmstream.FunctionCall{Name: "now", Arguments: "{}"}},
		},
		FinishReason: "completed", StopReason: llmstream.StopToolCalls,
		Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, TotalTokens: 65, CachedTokens: 8, ReasoningTokens: 10},
		Continuity: &llmstream.Continuity{Dialect: llmstream.DialectResponses, Blocks: []llmstream.Block{
			{Type: "reasoning", ID: "rs_llmstreamtest_1_0", Raw: json.RawMessage(`{"id":"rs_llmstreamtest_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"The user wants two files read."}],"encrypted_content":"bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMQ=="}`)},
			{Type: llmstream.BlockText, Bytes: len("Reading both — ünïcødé."), ID: "msg_llmstreamtest_1_1"},
			{Type: llmstream.BlockToolCall, Call: 0, ID: "fc_llmstreamtest_1_2"},
			{Type: llmstream.BlockToolCall, Call: 1, ID: "fc_llmstreamtest_1_3"},
			{Type: llmstream.BlockToolCall, Call: 2, ID: "fc_llmstreamtest_1_4"},
		}},
	}
	for _, interleave := range []bool{false, true} {
		srv := NewTestServer(t, WithTurns(responsesTurn), WithInterleavedCalls(interleave), WithSeed(7))
		r := post(t, srv, "/v1/responses", responsesBody)
		if r.status != 200 || r.readErr != nil || !strings.HasPrefix(string(r.body), "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,") {
			t.Fatalf("status %d, %v, body %.200s", r.status, r.readErr, r.body)
		}
		checkResponsesSequence(t, r.body, interleave)
		for name, rd := range map[string]io.Reader{"whole": bytes.NewReader(r.body), "one byte at a time": iotest.OneByteReader(bytes.NewReader(r.body))} {
			got, err := llmstream.ReadMessage(rd, llmstream.WithDialect(llmstream.DialectResponses))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(jsonEqual)); diff != "" {
				t.Errorf("interleaved %v, %s: message (-want +got):\n%s", interleave, name, diff)
			}
		}
	}
}

// checkResponsesSequence checks the event sequence of a served stream:
// names match types, sequence numbers count from 0, every item is added
// before its events and done after them, deltas carry obfuscation, and the
// last event is response.completed.
func checkResponsesSequence(t *testing.T, body []byte, interleave bool) {
	t.Helper()
	rd := sse.NewReader(bytes.NewReader(body), sse.WithDoneSentinel(""))
	added, done := map[int]bool{}, map[int]bool{}
	mixed, last, lastType := false, -1, ""
	for n := 0; ; n++ {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Type        string  `json:"type"`
			Seq         int     `json:"sequence_number"`
			OutputIndex *int    `json:"output_index"`
			Obfuscation *string `json:"obfuscation"`
		}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatalf("event %d: %v", n, err)
		}
		if e.Type != ev.Type || e.Seq != n {
			t.Fatalf("event %d: name %q, type %q, sequence %d", n, ev.Type, e.Type, e.Seq)
		}
		lastType = e.Type
		if e.OutputIndex == nil {
			continue
		}
		i := *e.OutputIndex
		switch {
		case e.Type == "response.output_item.added":
			if added[i] {
				t.Fatalf("item %d added twice", i)
			}
			for j := range added {
				if j > i {
					t.Fatalf("item %d added after item %d: the API adds items in output_index order", i, j)
				}
			}
			added[i] = true
		case !added[i] || done[i]:
			t.Fatalf("event %d (%s) for item %d outside its added/done", n, e.Type, i)
		case e.Type == "response.output_item.done":
			done[i] = true
		case strings.HasSuffix(e.Type, ".delta") && e.Obfuscation == nil:
			t.Fatalf("event %d (%s) without obfuscation", n, e.Type)
		}
		if strings.HasPrefix(e.Type, "response.function_call_arguments.delta") {
			if last >= 0 && i != last && !done[last] {
				mixed = true
			}
			last = i
		}
	}
	if lastType != "response.completed" || len(added) != len(done) {
		t.Errorf("last event %q, %d items added, %d done", lastType, len(added), len(done))
	}
	if mixed != interleave {
		t.Errorf("calls interleaved: %v, want %v", mixed, interleave)
	}
}

// TestResponsesWireAddsInOrder: with interleaved calls, whatever the
// seed, items are added in increasing output_index, as the API adds them;
// only their deltas mix.
func TestResponsesWireAddsInOrder(t *testing.T) {
	turn := Turn{ToolCalls: []Call{
		{Name: "a", Arguments: `{"path":"one","n":1}`}, {Name: "b", Arguments: `{"path":"two","n":2}`},
		{Name: "c", Arguments: `{"path":"three","n":3}`}, {Name: "d", Arguments: `{"path":"four","n":4}`},
	}}
	mixed := 0
	for seed := range uint64(40) {
		srv := NewTestServer(t, WithTurns(turn), WithInterleavedCalls(true), WithSeed(seed))
		r := post(t, srv, "/v1/responses", responsesBody)
		rd := sse.NewReader(bytes.NewReader(r.body), sse.WithDoneSentinel(""))
		next, last := 0, -1
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var e struct {
				OutputIndex int `json:"output_index"`
			}
			json.Unmarshal(ev.Data, &e)
			switch ev.Type {
			case "response.output_item.added":
				if e.OutputIndex != next {
					t.Fatalf("seed %d: item %d added where item %d was next", seed, e.OutputIndex, next)
				}
				next++
			case "response.function_call_arguments.delta":
				if last >= 0 && e.OutputIndex < last {
					mixed++
				}
				last = e.OutputIndex
			}
		}
		if next != len(turn.ToolCalls) {
			t.Errorf("seed %d: %d items added", seed, next)
		}
	}
	if mixed == 0 {
		t.Error("no seed mixed the calls' deltas")
	}
}

// TestResponsesWireConversation: the client's second request comes back,
// decoded, with the reasoning item and its encrypted content in place, the
// ids of the items after it, the tool results as tool messages and the
// system prompt — also after the conversation was saved as JSON and
// reloaded.
func TestResponsesWireConversation(t *testing.T) {
	srv := NewTestServer(t, WithTurns(responsesTurn, Turn{Text: "Done."}))
	c := responsesClient(srv)
	conv := []llmstream.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Read them."}}
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(append(conv, m))
	if err != nil {
		t.Fatal(err)
	}
	var reloaded []llmstream.Message
	if err := json.Unmarshal(saved, &reloaded); err != nil {
		t.Fatal(err)
	}
	reloaded = append(reloaded, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "error: no such file", IsError: true},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[2].ID, Content: "12:00"})
	if _, err := c.Stream(t.Context(), llmstream.Request{Messages: reloaded}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[1].Dialect != llmstream.DialectResponses || reqs[1].Path != "/v1/responses" || reqs[1].Header.Get("Authorization") != "Bearer sk-test" || reqs[1].Model != "gpt-test" {
		t.Errorf("request %+v", reqs[1])
	}
	if diff := cmp.Diff(reloaded, reqs[1].Messages, cmp.Comparer(jsonEqual), cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().String() {
		case ".Reasoning", ".FinishReason", ".StopReason", ".Usage", ".Model", ".IsError":
			return true // describe the response, or have no Responses form
		}
		return false
	}, cmp.Ignore())); diff != "" {
		t.Errorf("the conversation as the server read it (-sent +read):\n%s", diff)
	}
	if enc := reqs[1].Messages[2].Continuity.Blocks[0].Raw; !bytes.Contains(enc, []byte(`"encrypted_content":"bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMQ=="`)) {
		t.Errorf("the reasoning item came back as %s", enc)
	}
	var body map[string]any
	json.Unmarshal(reqs[1].Body, &body)
	if body["store"] != false || !cmp.Equal(body["include"], []any{"reasoning.encrypted_content"}) {
		t.Errorf("store %v, include %v", body["store"], body["include"])
	}
}

// TestResponsesWireFaults: every fault in the Responses form reaches the
// client as the error (or stop) the real API would give.
func TestResponsesWireFaults(t *testing.T) {
	base := Turn{Text: "one two three four five", ToolCalls: []Call{{Name: "f", Arguments: `{"a":1}`}}}
	with := func(f Fault) Turn { t := base; t.Fault = f; return t }
	apiErr := func(t *testing.T, err error, typ, code, msg string, kind llmstream.ErrorKind, status int) {
		t.Helper()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.Type != typ || api.Code != code || api.Message != msg || api.Kind != kind || api.StatusCode != status {
			t.Errorf("err = %v (%+v)", err, api)
		}
	}
	tests := []struct {
		name  string
		turn  Turn
		check func(t *testing.T, m llmstream.Message, err error)
	}{
		{"429 then success", with(Fault{Kind: FaultStatus, Status: 429, Attempts: 2, RetryAfter: "0"}), func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || len(m.ToolCalls) != 1 {
				t.Errorf("after two 429s: %v", err)
			}
		}},
		{"429", with(Fault{Kind: FaultStatus, Status: 429, RetryAfter: "120"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "requests", "rate_limit_exceeded", DefaultFaultMessage, llmstream.ErrorRateLimited, 429)
		}},
		{"401", with(Fault{Kind: FaultStatus, Status: 401, Message: "Incorrect API key provided"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "invalid_request_error", "invalid_api_key", "Incorrect API key provided", llmstream.ErrorAuthentication, 401)
		}},
		{"flat error event", with(Fault{Kind: FaultErrorEvent, After: 6, Code: json.RawMessage(`"server_error"`), Message: "boom"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "", "server_error", "boom", llmstream.ErrorServer, 0)
			if m.Content == "" || len(m.ToolCalls) != 0 {
				t.Errorf("message %+v", m)
			}
		}},
		{"nested error event", with(Fault{Kind: FaultErrorEvent, After: 6, Type: "too_many_requests", Message: "Too Many Requests"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "too_many_requests", "too_many_requests", "Too Many Requests", llmstream.ErrorRateLimited, 0)
		}},
		{"response.failed", with(Fault{Kind: FaultErrorFinish, After: 6, Message: "The server had an error"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "", "server_error", "The server had an error", llmstream.ErrorServer, 0)
			if m.Content == "" {
				t.Error("the partial text is lost")
			}
		}},
		{"response.failed before any item", with(Fault{Kind: FaultErrorFinish, Code: json.RawMessage(`"rate_limit_exceeded"`), Message: "slow down"}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "", "rate_limit_exceeded", "slow down", llmstream.ErrorRateLimited, 0)
		}},
		{"error line is the flat error event", with(Fault{Kind: FaultErrorLine, After: 3}), func(t *testing.T, m llmstream.Message, err error) {
			apiErr(t, err, "", "server_error", DefaultFaultMessage, llmstream.ErrorServer, 0)
		}},
		{"incomplete by length", Turn{Text: "cut by the", FinishReason: "length"}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.StopReason != llmstream.StopLength || m.FinishReason != "max_output_tokens" || m.Content != "cut by the" {
				t.Errorf("%v, %v %q %q", err, m.StopReason, m.FinishReason, m.Content)
			}
		}},
		{"incomplete by content filter", Turn{Text: "Here is", FinishReason: "content_filter"}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.StopReason != llmstream.StopContentFilter || m.FinishReason != "content_filter" {
				t.Errorf("%v, %v %q", err, m.StopReason, m.FinishReason)
			}
		}},
		{"cut", with(Fault{Kind: FaultCut, After: 6}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrInterrupted) || len(m.ToolCalls) != 0 {
				t.Errorf("err = %v", err)
			}
		}},
		{"truncated before response.completed", with(Fault{Kind: FaultTruncate, After: 1000}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrTruncated) || len(m.ToolCalls) != 0 || m.Content != base.Text {
				t.Errorf("err = %v, content %q", err, m.Content)
			}
		}},
		{"malformed", with(Fault{Kind: FaultMalformed, After: 4}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrBadEvent) {
				t.Errorf("err = %v", err)
			}
		}},
		{"keep-alives between events", Turn{Text: "hi", KeepAlive: 2}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.Content != "hi" {
				t.Errorf("with keep-alives: %q, %v", m.Content, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(tt.turn))
			m, err := responsesClient(srv).Stream(t.Context(), llmstream.Request{})
			tt.check(t, m, err)
		})
	}
	t.Run("stall", func(t *testing.T) {
		srv := NewTestServer(t, WithTurns(with(Fault{Kind: FaultStall, After: 3})))
		_, err := responsesClient(srv, llmstream.WithIdleTimeout(100*time.Millisecond)).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrIdleTimeout) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestResponsesWireBadRequest: a request the server refuses is answered in
// OpenAI's error shape.
func TestResponsesWireBadRequest(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "x"}))
	defer srv.Close()
	for _, body := range []string{`{"model":"m","input":"hi"}`, `{"model":"m","stream":true,"input":[{"type":"message","content":7}]}`} {
		r := post(t, srv, "/v1/responses", body)
		var got struct {
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(r.body, &got); err != nil || r.status != http.StatusBadRequest || got.Error.Type != "invalid_request_error" || got.Error.Message == "" {
			t.Errorf("%s: status %d, body %s", body, r.status, r.body)
		}
	}
	// A plain string input is a user message.
	srv2 := NewTestServer(t, WithTurns(Turn{Text: "x"}))
	post(t, srv2, "/responses", `{"model":"m","stream":true,"instructions":"sys","input":"hello"}`)
	got := srv2.Requests()[0]
	want := []llmstream.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "hello"}}
	if diff := cmp.Diff(want, got.Messages); diff != "" || got.Err != nil {
		t.Errorf("string input (-want +got):\n%s%v", diff, got.Err)
	}
}

// FuzzResponsesRoundTrip renders a turn from fuzzed text, reasoning,
// refusal and arguments as a Responses stream, and checks that
// llmstream.ReadMessage, whole and split at random offsets, gives the
// script back.
func FuzzResponsesRoundTrip(f *testing.F) {
	f.Add("Hello, world!", "think", "", `{"a":1}`, uint64(1), false, uint8(1))
	f.Add("naïve ✓ <b>&</b>\n\t\"q\"", "", "no", `{"s":"é😀"}`, uint64(7), true, uint8(3))
	f.Add("", "", "", "", uint64(0), false, uint8(0))
	f.Add("\u2028\u2029\x00", "\x7f", "", `"\u0000"`, uint64(9), true, uint8(2))
	f.Fuzz(func(t *testing.T, text, reasoning, refusal, args string, seed uint64, interleave bool, ncalls uint8) {
		turn := Turn{Text: text, Reasoning: reasoning, Refusal: refusal}
		for i := range int(ncalls % 4) {
			turn.ToolCalls = append(turn.ToolCalls, Call{Name: "f" + string(rune('a'+i)), Arguments: args})
		}
		if turn.check() != "" || (len(turn.ToolCalls) > 0 && !json.Valid([]byte(args))) {
			return
		}
		cfg := newConfig([]Option{WithSeed(seed), WithInterleavedCalls(interleave)})
		evs, err := newRenderer(&cfg, responsesWire{}, &Request{Seq: 1, Model: "m"}, turn).render()
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		for _, e := range evs {
			body = append(body, e.data...)
		}
		for _, r := range []io.Reader{bytes.NewReader(body), &splitReader{b: body, rng: rand.New(rand.NewPCG(seed, 2))}} {
			msg, err := llmstream.ReadMessage(r, llmstream.WithDialect(llmstream.DialectResponses))
			if err != nil {
				t.Fatalf("ReadMessage: %v\n%s", err, body)
			}
			if msg.Content != text || msg.Reasoning != reasoning || msg.Refusal != refusal || len(msg.ToolCalls) != len(turn.ToolCalls) {
				t.Fatalf("ReadMessage gave %+v from\n%s", msg, body)
			}
			for i, c := range msg.ToolCalls {
				want := args
				if strings.TrimSpace(want) == "" {
					want = "{}"
				}
				if c.Function.Arguments != want || c.Function.Name != turn.ToolCalls[i].Name {
					t.Fatalf("call %d: %+v, want %q", i, c, want)
				}
			}
		}
	})
}
