package llmstream_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
	"github.com/google/go-cmp/cmp"
)

// TestInterrupted: in every dialect, every way a begun stream breaks
// matches ErrInterrupted, keeps its own cause in the chain, and comes back
// with the text so far and no tool call; the failures that are not breaks
// do not match.
func TestInterrupted(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "one two three four", ToolCalls: []llmstreamtest.Call{{Name: "f", Arguments: `{"a":1}`}}}
	fault := func(k llmstreamtest.FaultKind) llmstreamtest.Turn {
		t := turn
		t.Fault = llmstreamtest.Fault{Kind: k, After: 6} // past the first text in every dialect
		return t
	}
	noRetry := transport.WithRetry(0, 0, 0)
	tests := []struct {
		name      string
		turn      llmstreamtest.Turn
		opts      []llmstream.ClientOption
		ctx       func(context.Context) (context.Context, context.CancelFunc)
		cause     error // also in the chain
		wantBreak bool
	}{
		{"cut connection", fault(llmstreamtest.FaultCut), nil, nil, io.ErrUnexpectedEOF, true},
		{"clean end too early", fault(llmstreamtest.FaultTruncate), nil, nil, llmstream.ErrTruncated, true},
		{"stall", fault(llmstreamtest.FaultStall), opts(llmstream.WithHTTPClient(transport.New(noRetry, transport.WithLowSpeed(1, 100*time.Millisecond)))), nil, transport.ErrStalled, true},
		{"silent model, transport", fault(llmstreamtest.FaultStall), opts(llmstream.WithIdleTimeout(100 * time.Millisecond)), nil, llmstream.ErrIdleTimeout, true},
		{"silent model, *http.Client", fault(llmstreamtest.FaultStall), opts(llmstream.WithIdleTimeout(100*time.Millisecond), llmstream.WithHTTPClient(&http.Client{})), nil, llmstream.ErrIdleTimeout, true},
		{"total timeout mid-body", fault(llmstreamtest.FaultStall), opts(llmstream.WithHTTPClient(transport.New(noRetry, transport.WithTimeout(150*time.Millisecond)))), nil, transport.ErrTimeout, true},
		{"the caller cancels", fault(llmstreamtest.FaultStall), nil, func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled, false},
		{"the caller's deadline", fault(llmstreamtest.FaultStall), nil, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}, context.DeadlineExceeded, false},
		{"a provider error", fault(llmstreamtest.FaultErrorEvent), nil, nil, nil, false},
		{"a bad event", fault(llmstreamtest.FaultMalformed), nil, nil, llmstream.ErrBadEvent, false},
		{"the callback stops", turn, opts(llmstream.WithOnDelta(func(llmstream.Delta) error { return errStop })), nil, llmstream.ErrAborted, false},
	}
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses, llmstream.DialectGemini} {
		for _, tt := range tests {
			t.Run(d.String()+"/"+tt.name, func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(tt.turn))
				ctx := t.Context()
				if tt.ctx != nil {
					var cancel context.CancelFunc
					ctx, cancel = tt.ctx(ctx)
					defer cancel()
				}
				o := append(opts(llmstream.WithBaseURL(srv.URL), llmstream.WithDialect(d), llmstream.WithModel("m")), tt.opts...)
				msg, err := llmstream.NewClient(o...).Stream(ctx, llmstream.Request{})
				if got := errors.Is(err, llmstream.ErrInterrupted); got != tt.wantBreak {
					t.Fatalf("errors.Is(%v, ErrInterrupted) = %v, want %v", err, got, tt.wantBreak)
				}
				if tt.cause != nil && !errors.Is(err, tt.cause) {
					t.Errorf("err = %v; %v left the chain", err, tt.cause)
				}
				if len(msg.ToolCalls) != 0 {
					t.Errorf("a failed stream handed out calls: %v", msg.ToolCalls)
				}
				if tt.wantBreak && !strings.HasPrefix("one two three four", msg.Content) || tt.wantBreak && msg.Content == "" {
					t.Errorf("partial text = %q, want the start of the answer", msg.Content)
				}
			})
		}
	}
}

var errStop = errors.New("stop")

// TestInterruptedRecorded: ReadMessage marks a recorded stream that ends
// early, and a reader that fails mid-stream, the same way.
func TestInterruptedRecorded(t *testing.T) {
	const part = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
	_, err := llmstream.ReadMessage(strings.NewReader(part))
	if !errors.Is(err, llmstream.ErrInterrupted) || !errors.Is(err, llmstream.ErrTruncated) {
		t.Errorf("truncated: err = %v", err)
	}
	msg, err := llmstream.ReadMessage(io.MultiReader(strings.NewReader(part), errReader{io.ErrUnexpectedEOF}))
	if !errors.Is(err, llmstream.ErrInterrupted) || !errors.Is(err, io.ErrUnexpectedEOF) || msg.Content != "Hi" {
		t.Errorf("reader failed: %q, %v", msg.Content, err)
	}
	if err.Error() != io.ErrUnexpectedEOF.Error() {
		t.Errorf("the mark changed the text: %q", err)
	}
	_, err = llmstream.ReadMessage(strings.NewReader(part+"data: [DONE]\n\n"), llmstream.WithSSEOptions())
	if err != nil {
		t.Errorf("a whole stream: %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestToolCallsErrorIsNotInterrupted: a stream that ended properly with bad
// arguments is the model's mistake, not a break.
func TestToolCallsErrorIsNotInterrupted(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{
		{ID: "c1", Name: "f", Arguments: `{"a":1}`}, {ID: "c2", Name: "g", Arguments: `{"b":`},
	}}))
	msg, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL)).Stream(t.Context(), llmstream.Request{})
	var tce *llmstream.ToolCallsError
	if !errors.As(err, &tce) || errors.Is(err, llmstream.ErrInterrupted) || len(msg.ToolCalls) != 0 {
		t.Fatalf("err = %v, calls %v; want a ToolCallsError, no calls", err, msg.ToolCalls)
	}
	if len(tce.Calls) != 2 || tce.Calls[1].Function.Arguments != `{"b":` || tce.Errs[0] != nil || tce.Errs[1] == nil {
		t.Errorf("ToolCallsError = %+v", tce)
	}
	var ae *toolcall.ArgumentsError
	if !errors.As(err, &ae) || ae.ID != "c2" || ae.Name != "g" || !errors.Is(err, toolcall.ErrInvalidArguments) {
		t.Errorf("ArgumentsError = %+v", ae)
	}
}

// TestNotEventStream: a 2xx answer that is neither an event stream nor a
// JSON completion says so, with its content type and a hint.
func TestNotEventStream(t *testing.T) {
	for _, tc := range []struct {
		name, contentType string
		wantErr           bool
	}{
		{"HTML login page", "text/html; charset=utf-8", true},
		{"plain text", "text/plain", true},
		{"none", "", true},
		{"event stream with a charset", "text/event-stream; charset=utf-8", false},
		{"event stream in capitals", "Text/Event-Stream", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tc.contentType}
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n<html>\n<title>Sign in</title>")
			}))
			defer srv.Close()
			_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/v1")).Stream(t.Context(), llmstream.Request{})
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			var ce *llmstream.ContentTypeError
			if !errors.Is(err, llmstream.ErrNotEventStream) || !errors.As(err, &ce) {
				t.Fatalf("err = %v, want ErrNotEventStream", err)
			}
			text := err.Error()
			if ce.ContentType != tc.contentType || ce.StatusCode != 200 || !strings.Contains(text, "check the base URL: "+srv.URL+"/v1/chat/completions") || !strings.Contains(text, "Sign in") {
				t.Errorf("err = %q (%+v)", text, ce)
			}
			if strings.ContainsAny(ce.Excerpt, "\n\r") {
				t.Errorf("the excerpt is not one line: %q", ce.Excerpt)
			}
		})
	}
}

// ctxBody is a body that yields one event, then blocks until its request's
// context ends and reports the context's plain error, as a Doer of the
// caller's may do (net/http reports the cause).
type ctxBody struct {
	ctx  context.Context
	sent bool
}

func (b *ctxBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"), nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (b *ctxBody) Close() error { return nil }

// TestIdleTimeoutNamedWhateverTheDoer: the idle timeout is named in the
// error even when the Doer reports only context.Canceled.
func TestIdleTimeoutNamedWhateverTheDoer(t *testing.T) {
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: &ctxBody{ctx: r.Context()}, Request: r}, nil
	})
	msg, err := llmstream.NewClient(llmstream.WithHTTPClient(d), llmstream.WithIdleTimeout(50*time.Millisecond)).Stream(t.Context(), llmstream.Request{})
	if !errors.Is(err, llmstream.ErrIdleTimeout) || !errors.Is(err, llmstream.ErrInterrupted) || !errors.Is(err, context.Canceled) || msg.Content != "Hi" {
		t.Fatalf("err = %v, content %q; want the idle timeout, interrupted, the cause kept and the text", err, msg.Content)
	}
}

// TestIdleTimeoutLeadsItsError: the idle timeout's error says so first,
// once, with the limit, whichever Doer saw the cancellation; the
// transport's "context canceled" in front of it would read as a
// cancellation by the caller.
func TestIdleTimeoutLeadsItsError(t *testing.T) {
	const want = "llmstream: no content arrived within the idle timeout (50ms)"
	for _, tc := range []struct {
		name string
		opts []llmstream.ClientOption
	}{
		{"transport", nil},
		{"*http.Client", []llmstream.ClientOption{llmstream.WithHTTPClient(&http.Client{})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hi", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 2}}))
			opts := append([]llmstream.ClientOption{llmstream.WithBaseURL(srv.URL), llmstream.WithIdleTimeout(50 * time.Millisecond)}, tc.opts...)
			_, err := llmstream.NewClient(opts...).Stream(t.Context(), llmstream.Request{})
			if err == nil || err.Error() != want || !errors.Is(err, llmstream.ErrIdleTimeout) || !errors.Is(err, llmstream.ErrInterrupted) {
				t.Errorf("err %q, want %q, matching ErrIdleTimeout and ErrInterrupted", err, want)
			}
		})
	}
}

// TestInterruptedWhole: a server that ignored "stream": true and sent one
// JSON completion, cut off mid-body, broke like a stream does.
func TestInterruptedWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Hel`)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	for _, d := range []llmstream.Doer{transport.New(transport.WithRetry(0, 0, 0)), &http.Client{}} {
		_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/v1"), llmstream.WithHTTPClient(d)).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrInterrupted) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%T: err = %v; want ErrInterrupted and the cause", d, err)
		}
	}
}

// TestToolCallsErrorKeepsContinuity: the message of a stream that ended
// properly with bad arguments keeps its stop reason and continuity state,
// the calls placed as in ToolCallsError.Calls, so that it can go back to
// the provider once its calls are answered.
func TestToolCallsErrorKeepsContinuity(t *testing.T) {
	rec, err := os.ReadFile("testdata/providers/anthropic_thinking_tools.sse")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(rec), `"partial_json":": 4096}"`, `"partial_json":": 40"`, 1)
	msg, err := llmstream.ReadMessage(strings.NewReader(bad), llmstream.WithDialect(llmstream.DialectAnthropic))
	var tce *llmstream.ToolCallsError
	if !errors.As(err, &tce) || len(tce.Calls) != 2 || len(msg.ToolCalls) != 0 {
		t.Fatalf("err = %v, calls %v; want a ToolCallsError of two calls and none in the message", err, msg.ToolCalls)
	}
	good, err := llmstream.ReadMessage(strings.NewReader(string(rec)), llmstream.WithDialect(llmstream.DialectAnthropic))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good.Continuity, msg.Continuity); diff != "" || msg.StopReason != llmstream.StopToolCalls {
		t.Errorf("stop %v; continuity (-good +bad):\n%s", msg.StopReason, diff)
	}
}

// TestRetryableRule: the documented rule for "sending the same request
// again is reasonable" holds for the answers a real agent meets: a broken
// stream, a provider's retryable error, a proxy's error page; and not for
// a bad request.
func TestRetryableRule(t *testing.T) {
	retryable := func(err error) bool { // as ErrInterrupted's doc says
		var api *llmstream.APIError
		var se *transport.StatusError
		return errors.Is(err, llmstream.ErrInterrupted) || errors.As(err, &api) && api.Retryable() || api == nil && errors.As(err, &se) && se.Retryable()
	}
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        bool
	}{
		{"a proxy's 502 page", 502, "text/html", "<html><h1>502 Bad Gateway</h1></html>", true},
		{"a gateway's plain 429", 429, "text/plain", "Too Many Requests", true},
		{"rate limited", 429, "application/json", `{"error":{"message":"slow down","type":"rate_limit_error"}}`, true},
		{"overloaded", 529, "application/json", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
		{"a bad request", 400, "application/json", `{"error":{"message":"bad","type":"invalid_request_error"}}`, false},
		{"a quota exhausted", 429, "application/json", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, false},
		{"a bad key, as text", 401, "text/plain", "Unauthorized", false},
		{"a stream cut short", 200, "text/event-stream", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			for _, d := range []llmstream.Doer{transport.New(transport.WithRetry(0, 0, 0)), &http.Client{}} {
				_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/v1"), llmstream.WithHTTPClient(d)).Stream(t.Context(), llmstream.Request{})
				if got := retryable(err); got != tt.want {
					t.Errorf("%T: %v: retryable = %v, want %v", d, err, got, tt.want)
				}
			}
		})
	}
}
