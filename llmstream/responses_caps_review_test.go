package llmstream

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// respAdded is an output_item.added of a message (call "" ) or a
// function call, at output_index at (none if at < 0).
func respAdded(at int, call string) string {
	idx := ""
	if at >= 0 {
		idx = `"output_index":` + strconv.Itoa(at) + `,`
	}
	if call == "" {
		return `{"type":"response.output_item.added",` + idx + `"item":{"type":"message","content":[]}}`
	}
	return `{"type":"response.output_item.added",` + idx + `"item":{"type":"function_call","call_id":"` + call + `","name":"f","arguments":""}}`
}

// respState is what a Bridge shows of a stream: its message, its blocks,
// where its calls went, and the deltas it handed out.
type respState struct {
	Msg    Message
	Blocks int
	Last   int
	Deltas []Delta
}

// runResp handles the events' data in turn and returns the stream's state
// and error, and the error of the event at stop (-1: none expected).
func runResp(t *testing.T, events []string, opts ...BridgeOption) (respState, error) {
	t.Helper()
	var st respState
	b := NewBridge(append([]BridgeOption{WithDialect(DialectResponses), WithOnDelta(func(d Delta) error {
		st.Deltas = append(st.Deltas, d)
		return nil
	})}, opts...)...)
	for _, e := range events {
		b.Handle(sse.Event{Data: []byte(e)})
	}
	st.Blocks, st.Last = len(b.blocks), -2
	if b.asm != nil {
		st.Last = b.asm.LastIndex()
	}
	m, err := b.Message()
	st.Msg = m
	return st, err
}

// TestResponsesCapRefusalChangesNothing attacks both caps of the Responses
// decoder (maxItems lowered to 3; the call index at toolcall.MaxIndex): for
// every way an event can open the item or call past the cap, the stream
// fails with an EventError matching ErrOutOfOrder and ErrBadEvent, and its
// state — message, blocks, the assembler's LastIndex, the deltas handed
// out — is that of the same stream whose refused event was never read
// (replaced by one that fails before it is applied). The events after it
// change nothing either.
func TestResponsesCapRefusalChangesNothing(t *testing.T) {
	defer func(m int) { maxItems = m }(maxItems)
	maxItems = 3
	text := func(at int, s string) string {
		return fmt.Sprintf(`{"type":"response.output_text.delta","output_index":%d,"content_index":0,"delta":%q}`, at, s)
	}
	args := func(at int) string {
		return fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":%d,"delta":"{}"}`, at)
	}
	done := func(at int, call string) string {
		return strings.Replace(strings.Replace(respAdded(at, call), "added", "done", 1), `"arguments":""`, `"arguments":"{}"`, 1)
	}
	three := []string{respAdded(0, ""), text(0, "a"), respAdded(1, "c1"), args(1), respAdded(2, ""), text(2, "b")}
	M := toolcall.MaxIndex
	after := []string{text(0, "late"), `{"type":"response.completed","response":{"status":"completed","output":[]}}`}
	for _, tt := range []struct {
		name    string
		prefix  []string
		refused string
	}{
		{"items/added message", three, respAdded(3, "")},
		{"items/added call", three, respAdded(3, "c4")},
		{"items/added unindexed", three, respAdded(-1, "")},
		{"items/text delta", three, text(3, "x")},
		{"items/arguments delta", three, args(3)},
		{"items/done only", three, done(3, "c4")},
		{"items/done only message", three, done(3, "")},
		{"index/added reused MaxIndex", []string{respAdded(M, "a")}, respAdded(M, "b")},
		{"index/added unindexed", []string{respAdded(M, "a")}, respAdded(-1, "b")},
		{"index/third at MaxIndex-1", []string{respAdded(M-1, "a"), done(M-1, "a"), respAdded(M-1, "b"), done(M-1, "b")}, respAdded(M-1, "c")},
		{"index/done only reused", []string{respAdded(M, "a"), done(M, "a")}, done(M, "b")},
		{"index/unindexed after message", []string{respAdded(M, "a"), respAdded(-1, "")}, respAdded(-1, "b")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events := append(append(append([]string(nil), tt.prefix...), tt.refused), after...)
			got, err := runResp(t, events)
			var ee *EventError
			if !errors.As(err, &ee) || !errors.Is(err, ErrOutOfOrder) || !errors.Is(err, ErrBadEvent) || errors.Is(err, toolcall.ErrInvalidIndex) {
				t.Fatalf("err = %v (%T), want an EventError matching ErrOutOfOrder and ErrBadEvent", err, err)
			}
			if string(ee.Data) != tt.refused {
				t.Fatalf("EventError.Data = %s, want the refused event %s", ee.Data, tt.refused)
			}
			ref := append(append(append([]string(nil), tt.prefix...), `{"type":`), after...)
			want, werr := runResp(t, ref)
			if !errors.Is(werr, ErrBadEvent) {
				t.Fatalf("reference stream: %v", werr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("the refused event changed the stream (-never read +refused):\n%s", diff)
			}
		})
	}
	// One below each cap holds.
	for name, events := range map[string][]string{
		"items at cap":      append(three[:len(three):len(three)], after[1]),
		"index at MaxIndex": {respAdded(M-1, "a"), done(M-1, "a"), respAdded(M-1, "b"), done(M-1, "b"), after[1]},
	} {
		if st, err := runResp(t, events); err != nil {
			t.Fatalf("%s: %v (%+v)", name, err, st.Msg)
		}
	}
}

// TestResponsesCapTerminalChangesNothing: the terminal response may list
// items the stream never streamed; one past maxItems fails the stream,
// and the terminal event changes nothing, as ErrOutOfOrder promises — it
// used to add the items it listed before the refused one. Items it lists
// that the stream had, at their output_index or by id elsewhere, are not
// new: at the bound they still fit.
func TestResponsesCapTerminalChangesNothing(t *testing.T) {
	defer func(m int) { maxItems = m }(maxItems)
	maxItems = 3
	prefix := []string{
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m0","content":[]}}`,
		`{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"a"}`,
	}
	msg := func(id, s string) string {
		return `{"type":"message","id":"` + id + `","content":[{"type":"output_text","text":"` + s + `"}]}`
	}
	terminal := func(items ...string) string {
		return `{"type":"response.completed","response":{"status":"completed","output":[` + strings.Join(items, ",") + `]}}`
	}
	for _, tt := range []struct {
		name     string
		terminal string
		ok       bool
	}{
		{"one below", terminal(msg("m0", "a"), msg("b", "B")), true},
		{"at", terminal(msg("m0", "a"), msg("b", "B"), msg("c", "C")), true},
		{"at, streamed id again", terminal(msg("m0", "a"), msg("b", "B"), msg("c", "C"), msg("m0", "a")), true},
		{"at, non-objects", terminal(msg("m0", "a"), `1`, `null`, msg("c", "C")), true},
		{"one above", terminal(msg("m0", "a"), msg("b", "B"), msg("c", "C"), msg("d", "D")), false},
		{"one above, streamed id again", terminal(msg("m0", "a"), msg("b", "B"), msg("c", "C"), msg("d", "D"), msg("m0", "a")), false},
		{"one above, call", terminal(msg("m0", "a"), msg("b", "B"), msg("c", "C"), `{"type":"function_call","call_id":"k","name":"f","arguments":"{}"}`), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runResp(t, append(prefix[:2:2], tt.terminal))
			if tt.ok {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			var ee *EventError
			if !errors.As(err, &ee) || !errors.Is(err, ErrOutOfOrder) || string(ee.Data) != tt.terminal {
				t.Fatalf("err = %v, want an EventError matching ErrOutOfOrder with the terminal event", err)
			}
			want, _ := runResp(t, append(prefix[:2:2], `{"type":`))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("the refused terminal event changed the stream (-never read +refused):\n%s", diff)
			}
		})
	}
}

// TestResponsesCapErrorRedacted: the refused event's data is an
// EventError's, so a Client must clean it of the request's credentials —
// raw and in the forms a server echoes them (JSON with \/, URL-escaped),
// for both caps.
func TestResponsesCapErrorRedacted(t *testing.T) {
	defer func(m int) { maxItems = m }(maxItems)
	const secret = "sk-LEAK/9c2e+5b1d"
	echo := secret + " " + strings.ReplaceAll(secret, "/", `\/`) + " " + url.QueryEscape(secret)
	M := strconv.Itoa(toolcall.MaxIndex)
	for _, tt := range []struct {
		max             int
		prefix, refused string
	}{
		{1, respAdded(0, ""), `{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"` + echo + `","content":[]}}`},
		{1, respAdded(0, ""), `{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"` + echo + `"}`},
		{maxItems, `{"type":"response.output_item.added","output_index":` + M + `,"item":{"type":"function_call","call_id":"a","name":"f","arguments":""}}` + "\n\ndata: " +
			`{"type":"response.output_item.done","output_index":` + M + `,"item":{"type":"function_call","call_id":"a","name":"f","arguments":"{}"}}`,
			`{"type":"response.output_item.added","output_index":` + M + `,"item":{"type":"function_call","call_id":"` + echo + `","name":"f","arguments":""}}`},
	} {
		maxItems = tt.max
		prefix, refused := tt.prefix, tt.refused
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\ndata: %s\n\n", prefix, refused)
		}))
		c := NewClient(WithBaseURL(srv.URL), WithAPIKey(secret), WithModel("m"), WithDialect(DialectResponses), WithHTTPClient(srv.Client()))
		_, err := c.Stream(t.Context(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
		srv.Close()
		var ee *EventError
		if !errors.As(err, &ee) || !errors.Is(err, ErrOutOfOrder) || !strings.Contains(ee.Err.Error(), "output items") && !strings.Contains(ee.Err.Error(), "a function call at output_index") {
			t.Fatalf("err = %v, want an EventError matching ErrOutOfOrder from a cap", err)
		}
		for _, form := range []string{secret, strings.ReplaceAll(secret, "/", `\/`), url.QueryEscape(secret), "9c2e"} {
			if strings.Contains(err.Error(), form) || strings.Contains(string(ee.Data), form) || strings.Contains(fmt.Sprintf("%+v", ee), form) {
				t.Fatalf("credential form %q in the error: %v / %s", form, err, ee.Data)
			}
		}
		if !strings.Contains(string(ee.Data), "REDACTED") {
			t.Fatalf("EventError.Data %s has no REDACTED", ee.Data)
		}
	}
}
