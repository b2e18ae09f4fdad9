package llmstreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

func TestURLForm(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "a"}, Turn{Text: "b"}))
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.HasSuffix(srv.URL, "/") {
		t.Errorf("URL %q, want http://127.0.0.1:<port> with no trailing slash", srv.URL)
	}
	for _, path := range []string{"/chat/completions", "/v1/chat/completions"} {
		r := post(t, srv, path, chatBody)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
			t.Errorf("%s: status %d, Content-Type %q", path, r.status, r.header.Get("Content-Type"))
		}
	}
}

func TestRequestRecorded(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "ok"}))
	body := `{"model":"m1","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}]},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"},"extra_content":{"k":1}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"a.go"}],` +
		`"tools":[{"type":"function","function":{"name":"ls","description":"list","parameters":{"type":"object"}}}]}`
	post(t, srv, "/v1/chat/completions", body)
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(reqs))
	}
	got := reqs[0]
	want := Request{
		Seq: 1, Method: "POST", Path: "/v1/chat/completions", Body: []byte(body), Dialect: llmstream.DialectChat,
		Model: "m1", Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true},
		Messages: []llmstream.Message{
			{Role: "system", Content: "be brief"},
			{Role: "user", Content: "hi there"},
			{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "c1", Type: "function", Function: llmstream.FunctionCall{Name: "ls", Arguments: "{}"}, Extra: json.RawMessage(`{"extra_content":{"k":1}}`)}}},
			{Role: "tool", ToolCallID: "c1", Content: "a.go"},
		},
		Tools: []llmstream.Tool{{Type: "function", Function: llmstream.ToolFunction{Name: "ls", Description: "list", Parameters: json.RawMessage(`{"type":"object"}`)}}},
	}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Header" }, cmp.Ignore())); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if got.Header.Get("Authorization") != "Bearer sk-test" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("header %v", got.Header)
	}
}

// TestRequestsOwned checks that a Requests result is the caller's: changing
// it changes neither the record nor a later result.
func TestRequestsOwned(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{}))
	post(t, srv, "/chat/completions", chatBody)
	a := srv.Requests()
	a[0].Body[0] = 'X'
	a[0].Header.Set("Authorization", "changed")
	a[0].Messages[0].Content = "changed"
	a[0].StreamOptions = &StreamOptions{}
	b := srv.Requests()
	if string(b[0].Body) != chatBody || b[0].Header.Get("Authorization") != "Bearer sk-test" || b[0].Messages[0].Content != "hi" {
		t.Errorf("the record changed with a returned copy: %+v", b[0])
	}
}

func TestBadRequests(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		opts       []Option
		wantStatus int
		wantErr    error
		wantDetail string
	}{
		{"GET", http.MethodGet, "/chat/completions", "", nil, 405, ErrBadRequest, "method GET, want POST"},
		{"other path", http.MethodPost, "/v1/completions", chatBody, nil, 404, ErrBadRequest, `path "/v1/completions", want ` + allPaths()},
		{"trailing slash", http.MethodPost, "/chat/completions/", chatBody, nil, 404, ErrBadRequest, `path "/chat/completions/", want ` + allPaths()},
		{"not JSON", http.MethodPost, "/chat/completions", `{"model":`, nil, 400, ErrBadRequest, "body is not a chat request: unexpected end of JSON input"},
		{"empty body", http.MethodPost, "/chat/completions", ``, nil, 400, ErrBadRequest, "body is not a chat request: unexpected end of JSON input"},
		{"stream false", http.MethodPost, "/chat/completions", `{"model":"m","stream":false,"messages":[]}`, nil, 400, ErrBadRequest, `"stream" is not true; the server serves only streaming requests`},
		{"stream absent", http.MethodPost, "/chat/completions", `{"model":"m","messages":[]}`, nil, 400, ErrBadRequest, `"stream" is not true; the server serves only streaming requests`},
		{"body one above the limit", http.MethodPost, "/chat/completions", chatBody, []Option{WithMaxRequestBytes(int64(len(chatBody)) - 1)}, 413, ErrBadRequest, fmt.Sprintf("body is over the limit of %d bytes", len(chatBody)-1)},
		{"no script", http.MethodPost, "/chat/completions", chatBody, nil, 500, ErrNoTurn, "no script: give WithTurns or WithResponder"},
		{"nil responder", http.MethodPost, "/chat/completions", chatBody, []Option{WithResponder(nil)}, 500, ErrNoTurn, "no script: give WithTurns or WithResponder"},
		{"bad turn", http.MethodPost, "/chat/completions", chatBody, []Option{WithTurns(Turn{KeepAlive: -2})}, 500, ErrBadTurn, "KeepAlive is -2, below 0"},
		{"bad turn from responder", http.MethodPost, "/chat/completions", chatBody, []Option{WithResponder(func(Request) Turn { return Turn{ToolCalls: []Call{{}}} })}, 500, ErrBadTurn, "ToolCalls[0]: Name is empty"},
		{"unknown flavour", http.MethodPost, "/chat/completions", chatBody, []Option{WithFlavor(flavorEnd), WithTurns(Turn{})}, 500, ErrInvalidOption, ""},
		{"negative body limit", http.MethodPost, "/chat/completions", chatBody, []Option{WithMaxRequestBytes(-1), WithTurns(Turn{})}, 500, ErrInvalidOption, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(tt.opts...)
			defer srv.Close()
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer sk-secret-key")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("status %d Content-Type %q, want %d application/json", resp.StatusCode, resp.Header.Get("Content-Type"), tt.wantStatus)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests recorded, want 1", len(reqs))
			}
			var re *RequestError
			if !errors.Is(reqs[0].Err, tt.wantErr) || !errors.As(reqs[0].Err, &re) {
				t.Fatalf("Err = %v, want a *RequestError wrapping %v", reqs[0].Err, tt.wantErr)
			}
			if re.Seq != 1 || re.Detail != tt.wantDetail {
				t.Errorf("RequestError{Seq: %d, Detail: %q}, want {1, %q}", re.Seq, re.Detail, tt.wantDetail)
			}
			var e struct {
				Error struct{ Message, Type string }
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Message != re.Error() {
				t.Errorf("body %s (%v), want the error message %q", body, err, re.Error())
			}
			if strings.Contains(string(body), "sk-secret-key") || strings.Contains(re.Error(), "sk-secret-key") {
				t.Error("the API key leaked into the error")
			}
		})
	}
}

func TestAllowHeaderOn405(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Allow"); got != "POST" {
		t.Errorf("Allow %q, want POST", got)
	}
}

func TestBodyLimit(t *testing.T) {
	tests := []struct {
		name       string
		limit      int64
		wantStatus int
	}{
		{"one below the body", int64(len(chatBody)) - 1, 413},
		{"exactly the body", int64(len(chatBody)), 200},
		{"one above the body", int64(len(chatBody)) + 1, 200},
		{"zero means the default", 0, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(WithMaxRequestBytes(tt.limit), WithTurns(Turn{}))
			defer srv.Close()
			if r := post(t, srv, "/chat/completions", chatBody); r.status != tt.wantStatus {
				t.Errorf("status %d, want %d", r.status, tt.wantStatus)
			}
		})
	}
}

func TestTurnsInOrderThenExhausted(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "one"}, Turn{Text: "two"}))
	defer srv.Close()
	for _, want := range []string{"one", "two"} {
		if got := stream(t, srv, chatBody).msg.Content; got != want {
			t.Errorf("content %q, want %q", got, want)
		}
	}
	r := post(t, srv, "/chat/completions", chatBody)
	reqs := srv.Requests()
	if r.status != 500 || !errors.Is(reqs[2].Err, ErrNoTurn) || !strings.Contains(reqs[2].Err.Error(), "all 2 scripted turns are used") {
		t.Errorf("third request: status %d, Err %v", r.status, reqs[2].Err)
	}
}

func TestLastScriptOptionWins(t *testing.T) {
	resp := WithResponder(func(Request) Turn { return Turn{Text: "responder"} })
	turns := WithTurns(Turn{Text: "turns"})
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"turns then responder", []Option{turns, resp}, "responder"},
		{"responder then turns", []Option{resp, turns}, "turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, tt.opts...)
			if got := stream(t, srv, chatBody).msg.Content; got != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
		})
	}
}

// TestResponderSeesToolResults is the demo's pattern: the fake model reads
// the tool results it was sent and answers from them.
func TestResponderSeesToolResults(t *testing.T) {
	srv := NewTestServer(t, WithResponder(func(r Request) Turn {
		last := r.Messages[len(r.Messages)-1]
		if last.Role != "tool" {
			return Turn{ToolCalls: []Call{{ID: "c1", Name: "read", Arguments: `{"path":"x"}`}}}
		}
		return Turn{Text: "the file says " + last.Content}
	}))
	d := stream(t, srv, chatBody)
	if len(d.msg.ToolCalls) != 1 || d.msg.ToolCalls[0].ID != "c1" {
		t.Fatalf("first turn %+v, want the call c1", d.msg)
	}
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"x\"}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"hello"}]}`
	if got := stream(t, srv, body).msg.Content; got != "the file says hello" {
		t.Errorf("second turn %q", got)
	}
}

// TestResponderMayReadRequests checks the responder can call Requests, and
// sees its own request there.
func TestResponderMayReadRequests(t *testing.T) {
	var srv *Server
	srv = NewTestServer(t, WithResponder(func(r Request) Turn {
		return Turn{Text: fmt.Sprintf("seq %d of %d", r.Seq, len(srv.Requests()))}
	}))
	stream(t, srv, chatBody)
	if got := stream(t, srv, chatBody).msg.Content; got != "seq 2 of 2" {
		t.Errorf("content %q, want %q", got, "seq 2 of 2")
	}
}

func TestSeedChangesChunkingOnly(t *testing.T) {
	turn := Turn{ToolCalls: []Call{{Name: "f", Arguments: `{"path":"a/b/c/d/e/f/g.go","n":12345}`}}}
	bodies := map[uint64]string{}
	for _, seed := range []uint64{1, 1, 2} {
		srv := NewServer(WithSeed(seed), WithTurns(turn))
		r := post(t, srv, "/chat/completions", chatBody)
		srv.Close()
		d, err := decodeStream(r.body)
		if err != nil || d.msg.ToolCalls[0].Function.Arguments != turn.ToolCalls[0].Arguments {
			t.Fatalf("seed %d: %v %+v", seed, err, d.msg)
		}
		if prev, ok := bodies[seed]; ok && prev != string(r.body) {
			t.Errorf("seed %d gave two different streams", seed)
		}
		bodies[seed] = string(r.body)
	}
	if bodies[1] == bodies[2] {
		t.Error("seeds 1 and 2 gave the same stream")
	}
}

func TestModelEcho(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{}, Turn{}))
	for _, tc := range []struct{ body, want string }{
		{`{"model":"my-model","stream":true,"messages":[]}`, `"model":"my-model"`},
		{`{"stream":true,"messages":[]}`, `"model":"llmstreamtest"`},
	} {
		r := post(t, srv, "/chat/completions", tc.body)
		if !strings.Contains(string(r.body), tc.want) {
			t.Errorf("stream for %s lacks %s", tc.body, tc.want)
		}
	}
}

// TestConcurrentClients runs two streams at once, each stalled in the
// middle until the other has started, so they truly overlap (-race checks
// the server's state).
func TestConcurrentClients(t *testing.T) {
	srv := NewTestServer(t, WithEventDelay(2*time.Millisecond), WithResponder(func(r Request) Turn {
		return Turn{Text: strings.Repeat(fmt.Sprintf("w%d ", r.Seq), 20)}
	}))
	var wg sync.WaitGroup
	results := make([]string, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Error(err)
				return
			}
			d, err := decodeStream(b)
			if err != nil {
				t.Error(err)
			}
			results[i] = d.msg.Content
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, got := range results {
		seen[got] = true
	}
	for seq := 1; seq <= len(results); seq++ {
		if want := strings.Repeat(fmt.Sprintf("w%d ", seq), 20); !seen[want] {
			t.Errorf("no client got the turn of request %d; got %q", seq, results)
		}
	}
	if n := len(srv.Requests()); n != len(results) {
		t.Errorf("%d requests recorded, want %d", n, len(results))
	}
}

func TestCloseIdempotentAndConcurrent(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "a"}))
	stream(t, srv, chatBody)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.Close()
		}()
	}
	wg.Wait()
	srv.Close()
	if _, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody)); err == nil {
		t.Error("a request after Close succeeded")
	}
}

// TestCloseEndsStall starts a stream that stalls, and checks Close returns
// promptly and the client sees its stream end with an error.
func TestCloseEndsStall(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "a b c", Fault: Fault{Kind: FaultStall, After: 2}}))
	resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readDone := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		readDone <- err
	}()
	waitForRequests(t, srv, 1)
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while a stream stalled")
	}
	if err := <-readDone; err == nil {
		t.Error("the stalled stream ended cleanly at Close, want an error")
	}
}

// TestCloseEndsEventDelay checks a long event delay does not hold Close.
func TestCloseEndsEventDelay(t *testing.T) {
	srv := NewServer(WithEventDelay(time.Hour), WithTurns(Turn{Text: "a b c"}))
	resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	srv.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
}

// TestClientGoneEndsStall checks a stall ends when the client cancels,
// with the server still running.
func TestClientGoneEndsStall(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "a b", Fault: Fault{Kind: FaultStall, After: 1}}, Turn{Text: "next"}))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(chatBody))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := resp.Body.Read(buf); err != nil { // the stall comes after the first chunk
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	// The server is still serving: the next turn streams.
	if got := stream(t, srv, chatBody).msg.Content; got != "next" {
		t.Errorf("after the cancelled stall: %q", got)
	}
	srv.Close() // returns only once the stalled handler has ended
}

// waitForRequests waits until srv has recorded n requests.
func waitForRequests(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests recorded after 10s, want %d", len(srv.Requests()), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeTB records what NewTestServer reports; the embedded TB is nil and
// only the overridden methods are called.
type fakeTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Cleanup(fn func())              { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(format, a...)) }
func (f *fakeTB) Fatal(a ...any)                 { panic(fmt.Sprint(a...)) }
func (f *fakeTB) runCleanups() {
	for _, fn := range f.cleanups {
		fn()
	}
}

func TestNewTestServerReportsScriptFailures(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		body     string
		wantErrs int
	}{
		{"clean run", []Option{WithTurns(Turn{})}, chatBody, 0},
		{"script used up", nil, chatBody, 1},
		{"bad turn", []Option{WithTurns(Turn{KeepAlive: -1})}, chatBody, 1},
		{"bad option", []Option{WithMaxRequestBytes(-5)}, chatBody, 1},
		{"client's fault is not reported", []Option{WithTurns(Turn{})}, `{"stream":false}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fakeTB{}
			srv := NewTestServer(tb, tt.opts...)
			post(t, srv, "/chat/completions", tt.body)
			tb.runCleanups()
			if len(tb.errs) != tt.wantErrs {
				t.Errorf("reported %q, want %d errors", tb.errs, tt.wantErrs)
			}
		})
	}
}

// TestEventDelay checks the delay is waited between chunks: the stream of
// "one two" has four chunks, so three delays.
func TestEventDelay(t *testing.T) {
	const delay = 30 * time.Millisecond
	srv := NewTestServer(t, WithEventDelay(delay), WithTurns(Turn{Text: "one two"}, Turn{Text: "one two"}))
	start := time.Now()
	stream(t, srv, chatBody)
	if d := time.Since(start); d < 3*delay {
		t.Errorf("stream took %v, want at least %v", d, 3*delay)
	}
	// A negative delay means none.
	quick := NewTestServer(t, WithEventDelay(-time.Hour), WithTurns(Turn{Text: "one two"}))
	if got := stream(t, quick, chatBody).msg.Content; got != "one two" {
		t.Errorf("content %q", got)
	}
}

// TestOptionsCompose checks an Options list applies its entries in order
// and skips nil ones.
func TestOptionsCompose(t *testing.T) {
	srv := NewTestServer(t, Options{nil, WithFlavor(Ollama), Options{WithFlavor(Gemini), nil}},
		WithTurns(Turn{ToolCalls: []Call{{Name: "f", Arguments: "{}"}}}))
	d := stream(t, srv, chatBody)
	if d.msg.FinishReason != "stop" || d.msg.ToolCalls[0].ID != "" {
		t.Errorf("got %+v, want Gemini's shape (finish stop, empty id)", d.msg)
	}
}
