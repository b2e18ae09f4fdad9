package llmstreamtest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// TestStatusAttempts is the retry-test pattern: the first Attempts requests
// get the status, the next gets the stream, the one after the next turn.
func TestStatusAttempts(t *testing.T) {
	srv := NewTestServer(t, WithTurns(
		Turn{Text: "finally", Fault: Fault{Kind: FaultStatus, Status: 429, Attempts: 2, RetryAfter: "1",
			Message: "slow down", Type: "rate_limit_error", Code: json.RawMessage(`"rate_limit_exceeded"`)}},
		Turn{Text: "next"},
	))
	for attempt := 1; attempt <= 2; attempt++ {
		r := post(t, srv, "/chat/completions", chatBody)
		if r.status != 429 || r.header.Get("Retry-After") != "1" || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d: status %d, Retry-After %q, Content-Type %q", attempt, r.status, r.header.Get("Retry-After"), r.header.Get("Content-Type"))
		}
		want := `{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`
		if string(r.body) != want {
			t.Errorf("attempt %d: body %s, want %s", attempt, r.body, want)
		}
	}
	for _, want := range []string{"finally", "next"} {
		if got := stream(t, srv, chatBody).msg.Content; got != want {
			t.Errorf("content %q, want %q", got, want)
		}
	}
	for _, r := range srv.Requests() {
		if r.Err != nil {
			t.Errorf("request %d: Err %v; a scripted fault is not a request error", r.Seq, r.Err)
		}
	}
}

func TestStatusDefaultsAndOnce(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "never streamed", Fault: Fault{Kind: FaultStatus}}, Turn{Text: "second"}))
	r := post(t, srv, "/chat/completions", chatBody)
	want := `{"error":{"message":"llmstreamtest: scripted fault","type":"server_error","param":null,"code":null}}`
	if r.status != DefaultFaultStatus || string(r.body) != want || r.header.Get("Retry-After") != "" {
		t.Errorf("status %d body %s Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
	}
	if got := stream(t, srv, chatBody).msg.Content; got != "second" {
		t.Errorf("Attempts 0: the next request got %q, want the next turn", got)
	}
}

func TestStatusFromResponderEveryTime(t *testing.T) {
	srv := NewTestServer(t, WithResponder(func(Request) Turn {
		return Turn{Fault: Fault{Kind: FaultStatus, Status: 503, Attempts: 1}}
	}))
	for range 3 {
		if r := post(t, srv, "/chat/completions", chatBody); r.status != 503 {
			t.Errorf("status %d, want 503 every time", r.status)
		}
	}
}

// TestStreamFaults checks each stream fault at After 0, 1, and past the
// end, with the in-test decoder: what arrives before, what the fault
// writes, and whether [DONE] follows.
func TestStreamFaults(t *testing.T) {
	turn := func(f Fault) Turn { return Turn{Text: "one two", Fault: f} }
	// The OpenAI stream of "one two": role chunk, "one ", "two", finish.
	tests := []struct {
		name          string
		turn          Turn
		wantContent   string
		wantFinish    string
		wantDone      bool
		wantErrors    []string // top-level error members of data events
		wantErrorLine []string
		wantMalformed int
	}{
		{"error event at 0", turn(Fault{Kind: FaultErrorEvent}), "", "", true,
			[]string{`{"message":"llmstreamtest: scripted fault","type":"server_error","param":null,"code":null}`}, nil, 0},
		{"error event at 2", turn(Fault{Kind: FaultErrorEvent, After: 2, Code: json.RawMessage(`429`)}), "one ", "", true,
			[]string{`{"message":"llmstreamtest: scripted fault","type":"server_error","param":null,"code":429}`}, nil, 0},
		{"error event past the end", turn(Fault{Kind: FaultErrorEvent, After: 99, Message: "late"}), "one two", "stop", true,
			[]string{`{"message":"late","type":"server_error","param":null,"code":null}`}, nil, 0},
		{"error finish at 1", turn(Fault{Kind: FaultErrorFinish, After: 1, Message: "gone"}), "", "error", true,
			[]string{`{"message":"gone","type":"server_error","param":null,"code":null}`}, nil, 0},
		{"error line at 3", turn(Fault{Kind: FaultErrorLine, After: 3, Message: "oops", Type: "t", Code: json.RawMessage(`500`)}), "one two", "", true,
			nil, []string{`{"code":500,"message":"oops","type":"t"}`}, 0},
		{"malformed at 0 then the rest", turn(Fault{Kind: FaultMalformed}), "one two", "stop", true, nil, nil, 1},
		{"malformed past the end", turn(Fault{Kind: FaultMalformed, After: 4}), "one two", "stop", true, nil, nil, 1},
		{"truncate at 0", turn(Fault{Kind: FaultTruncate}), "", "", false, nil, nil, 0},
		{"truncate at 2", turn(Fault{Kind: FaultTruncate, After: 2}), "one ", "", false, nil, nil, 0},
		{"truncate at the finish", turn(Fault{Kind: FaultTruncate, After: 3}), "one two", "", false, nil, nil, 0},
		{"truncate past the finish is capped", turn(Fault{Kind: FaultTruncate, After: 4}), "one two", "", false, nil, nil, 0},
		{"truncate never sends usage", Turn{Text: "one two", Usage: richUsage, Fault: Fault{Kind: FaultTruncate, After: 99}}, "one two", "", false, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(tt.turn))
			d := stream(t, srv, chatBodyUsage)
			var errs []string
			for _, e := range d.errors {
				errs = append(errs, string(e))
			}
			got := []any{d.msg.Content, d.msg.FinishReason, d.done, errs, d.errorLines, len(d.malformed), d.msg.Usage == nil}
			// No usage ever: the one turn with usage is truncated before it.
			want := []any{tt.wantContent, tt.wantFinish, tt.wantDone, tt.wantErrors, tt.wantErrorLine, tt.wantMalformed, true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[content finish done errors errorLines malformed noUsage] (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		name        string
		after       int
		wantContent string
	}{
		{"before the first chunk", 0, ""},
		{"after two chunks", 2, "one "},
		{"past the end", 99, "one two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(Turn{Text: "one two", Fault: Fault{Kind: FaultCut, After: tt.after}}))
			r := post(t, srv, "/chat/completions", chatBody)
			if r.status != http.StatusOK || !errors.Is(r.readErr, io.ErrUnexpectedEOF) {
				t.Fatalf("status %d, read error %v, want 200 and an unexpected EOF", r.status, r.readErr)
			}
			d, err := decodeStream(r.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.msg.Content != tt.wantContent || d.done {
				t.Errorf("content %q done %t, want %q and no [DONE]", d.msg.Content, d.done, tt.wantContent)
			}
		})
	}
}

// TestEventsFlushedOneByOne checks that a client sees each event before
// the next is written: a stall after the second chunk must not hide the
// first two.
func TestEventsFlushedOneByOne(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "one two", Fault: Fault{Kind: FaultStall, After: 2}}))
	resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []byte
	buf := make([]byte, 4096)
	for strings.Count(string(got), "\n\n") < 2 {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
	}
	d, err := decodeStream(got)
	if err != nil || d.msg.Content != "one " || d.msg.Role != "assistant" {
		t.Errorf("before the stall: %+v, %v", d.msg, err)
	}
}

func TestKeepAliveCount(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want int // comments in the stream of "one two": role, "one ", "two", finish
	}{
		{"none", 0, 0},
		{"one", 1, 1 + 3},
		{"three", 3, 3 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(Turn{Text: "one two", KeepAlive: tt.n}))
			d := stream(t, srv, chatBody)
			if len(d.comments) != tt.want || d.msg.Content != "one two" {
				t.Errorf("%d comments, content %q; want %d", len(d.comments), d.msg.Content, tt.want)
			}
			for _, c := range d.comments {
				if c != " keep-alive" {
					t.Errorf("comment %q", c)
				}
			}
		})
	}
}

// TestStatusFaultKind: a status fault that names no type or code is
// named as OpenAI names that status in chat too, as it is in Responses,
// so a scripted 401 is an authentication error and a 429 a rate limit,
// not a retryable server error.
func TestStatusFaultKind(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   llmstream.ErrorKind
		retry  bool
	}{
		{400, llmstream.ErrorInvalidRequest, false},
		{401, llmstream.ErrorAuthentication, false},
		{403, llmstream.ErrorPermission, false},
		{404, llmstream.ErrorNotFound, false},
		{429, llmstream.ErrorRateLimited, true},
		{500, llmstream.ErrorServer, true},
		{503, llmstream.ErrorOverloaded, true},
	} {
		for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectResponses} {
			srv := NewTestServer(t, WithTurns(Turn{Fault: Fault{Kind: FaultStatus, Status: tc.status}}))
			_, err := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithHTTPClient(&http.Client{}))...).Stream(t.Context(), llmstream.Request{})
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Kind != tc.kind || api.Retryable() != tc.retry {
				t.Errorf("%v %d: %v; want kind %v, retryable %v", d, tc.status, err, tc.kind, tc.retry)
			}
		}
	}
}
