package llmstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
	"github.com/google/go-cmp/cmp"
)

var toolTurn = llmstreamtest.Turn{
	Text:      "Reading both files.",
	Reasoning: "The user wants the two files.",
	ToolCalls: []llmstreamtest.Call{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`},
		{ID: "call_b", Name: "read_file", Arguments: `{"path":"README.md","note":"ünïcødé \"quoted\" 😀"}`},
	},
}

func wantToolMessage() llmstream.Message {
	return llmstream.Message{
		Role:       "assistant",
		Content:    "Reading both files.",
		Reasoning:  "The user wants the two files.",
		StopReason: llmstream.StopToolCalls,
		ToolCalls: []llmstream.ToolCall{
			{ID: "call_a", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`}},
			{ID: "call_b", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"README.md","note":"ünïcødé \"quoted\" 😀"}`}},
		},
	}
}

func fastTransport() *transport.Client {
	return transport.New(transport.WithTimeout(10*time.Second), transport.WithRetry(2, time.Millisecond, 10*time.Millisecond))
}

func TestClientEveryFlavor(t *testing.T) {
	for _, flavor := range []llmstreamtest.Flavor{llmstreamtest.OpenAI, llmstreamtest.Azure, llmstreamtest.Ollama, llmstreamtest.Gemini, llmstreamtest.VLLM, llmstreamtest.LlamaCpp} {
		for _, interleaved := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/interleaved=%v", flavor, interleaved), func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(toolTurn), llmstreamtest.WithFlavor(flavor), llmstreamtest.WithInterleavedCalls(interleaved))
				c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m"), llmstream.WithHTTPClient(fastTransport()))
				got, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "read them"}}})
				if err != nil {
					t.Fatal(err)
				}
				want := wantToolMessage()
				want.Model = "m" // every flavour streams the request's model back
				if flavor == llmstreamtest.Gemini {
					want.FinishReason = "stop"
				} else {
					want.FinishReason = "tool_calls"
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestClientRequest(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hi"}, llmstreamtest.Turn{Text: "again"}))
	tools := []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/"), llmstream.WithAPIKey("sk-test-123"), llmstream.WithModel("default-model"), llmstream.WithHeader("X-Trace", "t1"), llmstream.WithHTTPClient(srv.Client()))
	temp := 0.25
	if _, err := c.Stream(context.Background(), llmstream.Request{Model: "other", Messages: []llmstream.Message{{Role: "user", Content: "q"}}, Tools: tools, Temperature: &temp, Extra: map[string]any{"top_k": 5}}); err != nil {
		t.Fatal(err)
	}
	c2 := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/v1/chat/completions"), llmstream.WithIncludeUsage(false), llmstream.WithHTTPClient(srv.Client()))
	if _, err := c2.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Model != "other" || !r.Stream || r.StreamOptions == nil || !r.StreamOptions.IncludeUsage {
		t.Errorf("request 1: path %q model %q stream %v options %+v", r.Path, r.Model, r.Stream, r.StreamOptions)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization %q", got)
	}
	if r.Header.Get("Accept") != "text/event-stream" || r.Header.Get("X-Trace") != "t1" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["temperature"] != 0.25 || body["top_k"] != 5.0 || len(r.Tools) != 1 || r.Tools[0].Function.Name != "read_file" {
		t.Errorf("body %s", r.Body)
	}
	r = reqs[1]
	if r.Model != "" || r.StreamOptions != nil || strings.Contains(string(r.Body), `"tools"`) {
		t.Errorf("request 2: model %q options %+v body %s; want no model, no stream_options, no tools", r.Model, r.StreamOptions, r.Body)
	}
}

func TestClientFaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fault    llmstreamtest.Fault
		check    func(t *testing.T, err error)
		requests int
	}{{
		name:  "401 with a JSON body is an APIError, not retried",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 401, Message: "Incorrect API key provided", Type: "invalid_request_error", Code: json.RawMessage(`"invalid_api_key"`)},
		check: func(t *testing.T, err error) {
			var api *llmstream.APIError
			var se *transport.StatusError
			if !errors.As(err, &api) || api.StatusCode != 401 || api.Message != "Incorrect API key provided" || api.Code != "invalid_api_key" {
				t.Errorf("err = %v (%#v)", err, api)
			}
			if !errors.As(err, &se) || se.StatusCode != 401 {
				t.Errorf("the transport.StatusError is not in the chain: %v", err)
			}
		},
		requests: 1,
	}, {
		name:  "in-stream error event",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 2, Message: "overloaded", Code: json.RawMessage(`503`)},
		check: func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Message != "overloaded" || api.Code != "503" || api.StatusCode != 0 {
				t.Errorf("err = %v", err)
			}
		},
		requests: 1,
	}, {
		name:  "finish_reason error",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorFinish, After: 1, Message: "upstream failed"},
		check: func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Message != "upstream failed" {
				t.Errorf("err = %v", err)
			}
		},
		requests: 1,
	}, {
		name:  "llama.cpp error line before DONE",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorLine, After: 1, Message: "context shift is disabled", Code: json.RawMessage(`500`)},
		check: func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Message != "context shift is disabled" || api.Code != "500" {
				t.Errorf("err = %v", err)
			}
		},
		requests: 1,
	}, {
		name:  "cut connection",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 2},
		check: func(t *testing.T, err error) {
			if err == nil || errors.Is(err, llmstream.ErrTruncated) {
				t.Errorf("err = %v, want the transport's error", err)
			}
		},
		requests: 1,
	}, {
		name:  "malformed event",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultMalformed, After: 1},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, llmstream.ErrBadEvent) {
				t.Errorf("err = %v", err)
			}
		},
		requests: 1,
	}, {
		name:  "truncated",
		fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultTruncate, After: 2},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, llmstream.ErrTruncated) {
				t.Errorf("err = %v", err)
			}
		},
		requests: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			turn := toolTurn
			turn.Fault = tc.fault
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turn))
			c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()))
			m, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "x"}}})
			tc.check(t, err)
			if len(m.ToolCalls) != 0 {
				t.Errorf("a failed stream returned tool calls: %+v", m.ToolCalls)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

func TestClientRetriesBeforeTheStream(t *testing.T) {
	turn := toolTurn
	turn.Fault = llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 429, Attempts: 1, RetryAfter: "0"}
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turn))
	c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()))
	m, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "x"}}})
	if err != nil || len(m.ToolCalls) != 2 {
		t.Fatalf("err = %v, %d calls", err, len(m.ToolCalls))
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("%d requests; the body must be replayed as it was", len(reqs))
	}
}

func TestClientStallAndCancel(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "one two three four", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 2}}
	t.Run("idle timeout", func(t *testing.T) {
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turn))
		c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()), llmstream.WithIdleTimeout(100*time.Millisecond))
		start := time.Now()
		m, err := c.Stream(context.Background(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrIdleTimeout) {
			t.Fatalf("err = %v, want ErrIdleTimeout", err)
		}
		if m.Content == "" || time.Since(start) > 5*time.Second {
			t.Errorf("partial content %q after %v", m.Content, time.Since(start))
		}
	})
	t.Run("cancel", func(t *testing.T) {
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turn))
		ctx, cancel := context.WithCancel(context.Background())
		var once bool
		c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()), llmstream.WithOnDelta(func(llmstream.Delta) error {
			if !once {
				once = true
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			return nil
		}))
		_, err := c.Stream(ctx, llmstream.Request{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// A server that sends only keep-alive comments must not keep the stream
// alive past the idle timeout.
func TestIdleTimeoutIgnoresKeepAlives(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				fmt.Fprint(w, ": keep-alive\n\n")
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()), llmstream.WithIdleTimeout(150*time.Millisecond))
	m, err := c.Stream(context.Background(), llmstream.Request{})
	if !errors.Is(err, llmstream.ErrIdleTimeout) || m.Content != "hi" {
		t.Fatalf("err = %v, content %q; want ErrIdleTimeout with the partial text", err, m.Content)
	}
}

func TestClientWithNetHTTP(t *testing.T) {
	t.Run("status error", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			io.WriteString(w, `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`)
		}))
		defer srv.Close()
		c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()))
		_, err := c.Stream(context.Background(), llmstream.Request{})
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.StatusCode != 400 || api.Type != "INVALID_ARGUMENT" || api.Message != "API key not valid." {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a whole JSON completion", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
		}))
		defer srv.Close()
		c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()))
		m, err := c.Stream(context.Background(), llmstream.Request{})
		want := llmstream.Message{Role: "assistant", FinishReason: "tool_calls", StopReason: llmstream.StopToolCalls, Usage: &llmstream.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7},
			ToolCalls: []llmstream.ToolCall{{ID: "c1", Type: "function", Function: llmstream.FunctionCall{Name: "f", Arguments: `{"a":1}`}}}}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestClientNeverShowsTheKey(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the connection is refused
	const key = "sk-secret-4f9a"
	c := llmstream.NewClient(llmstream.WithBaseURL("http://"+addr+"/v1?api-key="+key), llmstream.WithAPIKey(key),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, time.Millisecond, time.Millisecond))))
	_, err = c.Stream(context.Background(), llmstream.Request{})
	if err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("err = %v", err)
	}
	if s := fmt.Sprint(llmstream.WithAPIKey(key), llmstream.WithHeader("api-key", key)); strings.Contains(s, key) {
		t.Errorf("options print the key: %s", s)
	}
}

func TestClientBadConfiguration(t *testing.T) {
	c := llmstream.NewClient(llmstream.WithBaseURL("ftp://example.invalid/v1?key=sk-hidden"))
	_, err := c.Stream(context.Background(), llmstream.Request{})
	if err == nil || strings.Contains(err.Error(), "sk-hidden") {
		t.Fatalf("err = %v", err)
	}
	_, err = llmstream.NewClient(llmstream.WithBaseURL("http://127.0.0.1:1")).Stream(context.Background(), llmstream.Request{Extra: map[string]any{"model": "x"}})
	if err == nil || !strings.Contains(err.Error(), `"model"`) {
		t.Fatalf("Extra replacing a field: err = %v", err)
	}
}

func TestNoSecretInErrors(t *testing.T) {
	const key = "sk-secret-4f9a"
	t.Run("a server that echoes the key", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s\nX-Injected: yes","type":"invalid_request_error"}}`, key)
		}))
		defer srv.Close()
		for _, doer := range []llmstream.Doer{srv.Client(), fastTransport()} {
			_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey(key), llmstream.WithHTTPClient(doer)).Stream(context.Background(), llmstream.Request{})
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.StatusCode != 401 {
				t.Fatalf("%T: err = %v", doer, err)
			}
			if strings.Contains(err.Error(), key) || strings.Contains(api.Message, key) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("%T: error text %q shows the key or a raw newline", doer, err)
			}
		}
	})
	t.Run("a query secret with net/http", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = llmstream.NewClient(llmstream.WithBaseURL("http://user:pw-"+key+"@"+addr+"/v1?key="+key), llmstream.WithHTTPClient(&http.Client{})).Stream(context.Background(), llmstream.Request{})
		if err == nil || strings.Contains(err.Error(), key) {
			t.Fatalf("err = %v", err)
		}
	})
}

// The idle timeout counts the wait for the response headers too.
func TestIdleTimeoutBeforeHeaders(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()), llmstream.WithIdleTimeout(100*time.Millisecond)).Stream(context.Background(), llmstream.Request{})
	if !errors.Is(err, llmstream.ErrIdleTimeout) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want ErrIdleTimeout", err, time.Since(start))
	}
}

// Fragments that carry nothing are no progress: they neither reach the
// callback nor keep the idle timer alive.
func TestEmptyFragmentsAreNoProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}\n\n")
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	deltas := 0
	_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()), llmstream.WithIdleTimeout(150*time.Millisecond),
		llmstream.WithOnDelta(func(llmstream.Delta) error { deltas++; return nil })).Stream(context.Background(), llmstream.Request{})
	if !errors.Is(err, llmstream.ErrIdleTimeout) || deltas != 0 {
		t.Fatalf("err = %v, %d deltas; want ErrIdleTimeout and none", err, deltas)
	}
}

func TestWholeCompletionDeltasAndErrors(t *testing.T) {
	serve := func(body string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, body)
		}))
	}
	srv := serve(`{"choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"think"},"finish_reason":"stop"}]}`)
	defer srv.Close()
	var kinds []string
	m, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()), llmstream.WithOnDelta(func(d llmstream.Delta) error {
		kinds = append(kinds, d.Kind.String()+":"+d.Text)
		return nil
	})).Stream(context.Background(), llmstream.Request{})
	if err != nil || m.Content != "hi" || m.Reasoning != "think" || strings.Join(kinds, ",") != "reasoning:think,text:hi" {
		t.Fatalf("err %v, message %+v, deltas %v", err, m, kinds)
	}
	bad := serve(`{"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"error"}]}`)
	defer bad.Close()
	_, err = llmstream.NewClient(llmstream.WithBaseURL(bad.URL), llmstream.WithHTTPClient(bad.Client())).Stream(context.Background(), llmstream.Request{})
	var api *llmstream.APIError
	if !errors.As(err, &api) {
		t.Fatalf("finish_reason error: err = %v", err)
	}
}

// With an HTTP client that does not check the status, the Client reads at
// most transport.MaxErrorBodyBytes bytes of an error body: at the limit, one below,
// one above.
func TestMaxErrorBody(t *testing.T) {
	for _, tc := range []struct {
		name     string
		size     int
		wantBody int
	}{
		{"one below", transport.MaxErrorBodyBytes - 1, transport.MaxErrorBodyBytes - 1},
		{"at", transport.MaxErrorBodyBytes, transport.MaxErrorBodyBytes},
		{"one above", transport.MaxErrorBodyBytes + 1, transport.MaxErrorBodyBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(502)
				io.WriteString(w, strings.Repeat("x", tc.size))
			}))
			defer srv.Close()
			_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client())).Stream(context.Background(), llmstream.Request{})
			var se *transport.StatusError
			if !errors.As(err, &se) || se.StatusCode != 502 || len(se.Body) != tc.wantBody || se.Truncated != (tc.size > tc.wantBody) {
				t.Fatalf("err = %.200v, want a StatusError with %d body bytes", err, tc.wantBody)
			}
		})
	}
}

// TestClientInvalidRequest: a request the client cannot build fails with
// ErrInvalidRequest and nothing reaches the server.
func TestClientInvalidRequest(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "never sent"}))
	user := []llmstream.Message{{Role: "user", Content: "x"}}
	badCall := []llmstream.Message{{Role: "assistant", ToolCalls: []llmstream.ToolCall{{
		ID: "c1", Function: llmstream.FunctionCall{Name: "f", Arguments: "{}"}, Extra: json.RawMessage(`[1]`),
	}}}}
	tests := []struct {
		name string
		base string
		req  llmstream.Request
		want string
	}{
		{"base URL not http", "ftp://example.com/v1", llmstream.Request{Messages: user}, `WithBaseURL("ftp://example.com/v1"): not an http or https URL`},
		{"base URL without host", "http://", llmstream.Request{Messages: user}, `WithBaseURL("http:"): not an http or https URL`},
		{"Extra replaces a field", srv.URL, llmstream.Request{Messages: user, Extra: map[string]any{"model": "other"}}, `"model" would replace a request field`},
		{"Extra cannot be encoded", srv.URL, llmstream.Request{Messages: user, Extra: map[string]any{"x": func() {}}}, `Request.Extra member "x"`},
		{"ToolCall.Extra not an object", srv.URL, llmstream.Request{Messages: badCall}, "ToolCall.Extra is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llmstream.NewClient(llmstream.WithBaseURL(tt.base), llmstream.WithHTTPClient(fastTransport()))
			_, err := c.Stream(context.Background(), tt.req)
			if !errors.Is(err, llmstream.ErrInvalidRequest) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalidRequest saying %q", err, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestGenericTypeYieldsToStatus: OpenAI answers a request without a key
// with 401 and only the generic type invalid_request_error (code null),
// and a wrong path with 404 and the same; the status says more than the
// type there, so a caller that tests the kind learns it is the key, or
// the URL, that is wrong.
func TestGenericTypeYieldsToStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		kind   llmstream.ErrorKind
	}{
		{401, `{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error","param":null,"code":null}}`, llmstream.ErrorAuthentication},
		{404, `{"error":{"message":"Invalid URL (POST /v1/chat/completion)","type":"invalid_request_error","param":null,"code":null}}`, llmstream.ErrorNotFound},
		{400, `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`, llmstream.ErrorInvalidRequest},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		}))
		_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL)).Stream(t.Context(), llmstream.Request{})
		srv.Close()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.Kind != tc.kind || api.Type != "invalid_request_error" {
			t.Errorf("%d %s: kind %v, want %v (%v)", tc.status, tc.body, api.Kind, tc.kind, err)
		}
	}
}
