package aisdk_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// Concurrent POSTs of one chat's first message: exactly one runs (200);
// the others are refused 409 with nothing run, whether they arrive while
// the run goes on or after it.
func TestReviewConcurrentPostsOneChat(t *testing.T) {
	e := newEnv(t, nil)
	e.gate = make(chan struct{})
	const n = 8
	codes := make([]int, n)
	var answered atomic.Int32
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			b, _ := json.Marshal(map[string]any{"id": "one", "messages": []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}})
			codes[i] = postFrom(t, e, b, func() { answered.Add(1) })
		})
	}
	// Every POST answered while the one run waits in its tool.
	waitFor(t, "every POST answered", func() bool { return answered.Load() == n })
	if e.modelCalls() != 1 {
		t.Errorf("%d model calls while the run waits", e.modelCalls())
	}
	close(e.gate)
	wg.Wait()
	ok, conflict := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			conflict++
		}
	}
	if ok != 1 || conflict != n-1 {
		t.Errorf("codes %v: want one 200 and %d 409", codes, n-1)
	}
	// The one run read, then paused at its write: two model calls, no write.
	if e.modelCalls() != 2 || e.writes.Load() != 0 {
		t.Errorf("%d model calls, %d writes", e.modelCalls(), e.writes.Load())
	}
}

// An approval replayed — after its run, or twice at once — runs the
// approved call once; every replay is refused 409.
func TestReviewApprovalReplayed(t *testing.T) {
	for _, at := range []string{"after", "at once"} {
		t.Run(at, func(t *testing.T) {
			e := newEnv(t, nil)
			if code, _ := e.post("c", []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}); code != http.StatusOK {
				t.Fatal(code)
			}
			b, _ := json.Marshal(map[string]any{"id": "c", "messages": approve(t, e.messages("c"), true), "trigger": "submit-message"})
			var codes []int
			if at == "after" {
				for range 3 {
					code, _ := e.postRaw(b)
					codes = append(codes, code)
				}
			} else {
				codes = make([]int, 4)
				var wg sync.WaitGroup
				for i := range codes {
					wg.Go(func() {
						codes[i] = postFrom(t, e, b, func() {})
					})
				}
				wg.Wait()
			}
			ok := 0
			for _, c := range codes {
				if c == http.StatusOK {
					ok++
				} else if c != http.StatusConflict {
					t.Errorf("a replay answered %d", c)
				}
			}
			if ok != 1 || e.writes.Load() != 1 {
				t.Errorf("codes %v, %d writes: want one 200 and one write", codes, e.writes.Load())
			}
		})
	}
}

// The body of a refusal says why "without echoing the request": no part
// of a posted trigger, id or message comes back.
func TestReviewRefusalEchoesNothing(t *testing.T) {
	e := newEnv(t, nil)
	const mark = "ECHOED<script>"
	for _, body := range []string{
		`{"id":"a","messages":[],"trigger":"regenerate-` + mark + `"}`,
		`{"id":"a` + mark + `","messages":[]}`,
		`{"id":"a","messages":[{"id":"u","role":"` + mark + `","parts":[]}]}`,
		`{"id":"a","messages":"` + mark + `"}`,
		`{"id":"a","` + mark + `":1}x`,
		`{"id":"a","messages":[{"id":"u","role":"user","parts":[{"type":"` + mark + `"}]}]}`,
	} {
		code, out := e.postRaw([]byte(body))
		if code < 400 || code >= 500 || strings.Contains(strings.Join(out, ""), "ECHOED") {
			t.Errorf("%s: %d %q", body, code, out)
		}
	}
	if e.modelCalls() != 0 {
		t.Errorf("%d model calls", e.modelCalls())
	}
}

// Nulls where the AI SDK sends objects or arrays: refused 4xx, nothing
// run, and the handler does not panic.
func TestReviewNulls(t *testing.T) {
	e := newEnv(t, nil)
	if code, _ := e.post("p", []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}); code != http.StatusOK {
		t.Fatal(code)
	}
	calls := e.modelCalls()
	for _, body := range []string{
		`null`,
		`{"id":null,"messages":null}`,
		`{"id":"n","messages":[null]}`,
		`{"id":"n","messages":[{"id":"u","role":"user","parts":null}]}`,
		`{"id":"n","messages":[{"id":"u","role":"user","parts":[null]}]}`,
		`{"id":"p","messages":[null,null]}`,
		`{"id":"p","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"Summarise a.txt"}]},null]}`,
	} {
		if code, out := e.postRaw([]byte(body)); code < 400 || code >= 500 {
			t.Errorf("%s: %d %q", body, code, out)
		}
	}
	if e.modelCalls() != calls || e.writes.Load() != 0 {
		t.Errorf("%d model calls (want %d), %d writes", e.modelCalls(), calls, e.writes.Load())
	}
}

// A model that uses a call id again in a later step of one UI message:
// the AI SDK keys tool parts by toolCallId within a message, so a write
// reusing a read's id would be shown (and approved) as the read. The
// Handler refuses such a call: nothing runs, no approval is asked, the
// stream ends with an error.
func TestReviewCallIDAgainInLaterStep(t *testing.T) {
	e := newEnv(t, []llmstreamtest.Option{llmstreamtest.WithResponder(func(req llmstreamtest.Request) llmstreamtest.Turn {
		tools := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				tools++
			}
		}
		switch tools {
		case 0:
			return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "dup", Name: "read", Arguments: `{"path":"a.txt"}`}}}
		case 1:
			return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "dup", Name: "write", Arguments: `{"path":"/etc/passwd"}`}}}
		}
		return llmstreamtest.Turn{Text: "done"}
	})})
	code, chunks := e.post("d", []aisdk.UIMessage{userMessage("u1", "go")})
	if code != http.StatusOK {
		t.Fatal(code)
	}
	types := chunkTypes(t, chunks)
	if slices.Contains(types, "tool-approval-request") || !slices.Contains(types, "error") || e.writes.Load() != 0 {
		t.Errorf("chunks %v, %d writes: want an error, no approval request, no write", compact(types), e.writes.Load())
	}
	for _, m := range e.messages("d") {
		for _, p := range m.Parts {
			if p.State == "approval-requested" {
				t.Errorf("a %s part waits for approval, input %s", p.Type, p.Input)
			}
		}
	}
	// The same tool may use an id again: the browser shows the right tool.
	e2 := newEnv(t, []llmstreamtest.Option{llmstreamtest.WithResponder(func(req llmstreamtest.Request) llmstreamtest.Turn {
		if len(req.Messages) < 3 {
			return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "again", Name: "read", Arguments: `{"path":"a.txt"}`}}}
		}
		if len(req.Messages) < 5 {
			return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "again", Name: "read", Arguments: `{"path":"b.txt"}`}}}
		}
		return llmstreamtest.Turn{Text: "done"}
	})})
	if code, chunks := e2.post("s", []aisdk.UIMessage{userMessage("u1", "go")}); code != http.StatusOK || slices.Contains(chunkTypes(t, chunks), "error") {
		t.Errorf("the same tool with its id again: %d %v", code, chunks)
	}
}

// GET {api}/{chatID} while the run after an approval goes on reads the
// chat the POST saved; the run must not write into it (run with -race).
func TestReviewMessagesWhileResumedRunGoesOn(t *testing.T) {
	e := newEnv(t, nil)
	if code, _ := e.post("r", []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}); code != http.StatusOK {
		t.Fatal(code)
	}
	msgs := approve(t, e.messages("r"), true)
	saved, _ := json.Marshal(msgs)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			e.messages("r")
		}
	})
	code, _ := e.post("r", msgs)
	close(stop)
	wg.Wait()
	if code != http.StatusOK || e.writes.Load() != 1 {
		t.Fatalf("%d, %d writes", code, e.writes.Load())
	}
	// What the caller posted is not changed either.
	if now, _ := json.Marshal(msgs); !bytes.Equal(now, saved) {
		t.Errorf("the posted messages changed:\n%s\n%s", saved, now)
	}
}

// sameJSON compares inputs as the browser re-encodes them (JavaScript
// numbers): a number past float64's range comes back as null
// (JSON.stringify(Infinity)), and the chat must still take the answer to
// its approval rather than refuse it 409 forever.
func TestReviewApprovalOfHugeNumberInput(t *testing.T) {
	e := newEnv(t, []llmstreamtest.Option{llmstreamtest.WithResponder(func(req llmstreamtest.Request) llmstreamtest.Turn {
		if len(req.Messages) < 2 {
			return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "write", Arguments: `{"path":"b.txt","n":1e400,"m":-1e999,"k":12345678901234567890}`}}}
		}
		return llmstreamtest.Turn{Text: "done"}
	})})
	if code, _ := e.post("h", []aisdk.UIMessage{userMessage("u1", "go")}); code != http.StatusOK {
		t.Fatal(code)
	}
	msgs := approve(t, e.messages("h"), true)
	for i := range msgs[len(msgs)-1].Parts {
		if p := &msgs[len(msgs)-1].Parts[i]; p.Type == "tool-write" {
			p.Input = json.RawMessage(`{"path":"b.txt","n":null,"m":null,"k":12345678901234567000}`) // as JSON.stringify writes it
		}
	}
	if code, out := e.post("h", msgs); code != http.StatusOK || e.writes.Load() != 1 {
		t.Errorf("%d %q, %d writes", code, out, e.writes.Load())
	}
}

// postFrom posts body from a goroutine of its own (so errors, not Fatal),
// calls answered once the status is in, then reads the stream to its end.
func postFrom(t *testing.T, e *env, body []byte, answered func()) int {
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	answered()
	readChunks(t, resp)
	return resp.StatusCode
}
