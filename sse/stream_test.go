package sse

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ev builds an expected event.
func ev(typ, data, id string) refEvent { return refEvent{Type: typ, Data: data, ID: id} }

// rulesTests has one group per rule of the standard (and per extension of
// ours), each case named after the rule it checks. Every expectation is
// worked out by hand from the standard's text. The WHATWG web-platform-tests
// eventsource/format-* files and the spec's own examples suggested many of
// the cases; the inputs are our own.
var rulesTests = []struct {
	name string
	in   string
	opts []Option
	want result
}{
	// UTF-8 decode with U+FFFD per maximal subpart.
	{name: "utf8/valid multi-byte text is kept", in: "data: héllo 世界 🎉\n\n",
		want: result{Events: []refEvent{ev("message", "héllo 世界 🎉", "")}}},
	{name: "utf8/U+FFFD itself is valid", in: "data: \xEF\xBF\xBD\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD", "")}}},
	{name: "utf8/lone continuation byte", in: "data: a\x80b\n\n",
		want: result{Events: []refEvent{ev("message", "a\uFFFDb", "")}}},
	{name: "utf8/truncated 3-byte sequence is one U+FFFD", in: "data: \xE2\x82A\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFDA", "")}}},
	{name: "utf8/truncated 4-byte sequence before LF is one U+FFFD", in: "data: \xF0\x9F\x98\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD", "")}}},
	{name: "utf8/overlong C0 80 is two", in: "data: \xC0\x80\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD", "")}}},
	{name: "utf8/overlong E0 80 80 is three", in: "data: \xE0\x80\x80\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD\uFFFD", "")}}},
	{name: "utf8/surrogate ED A0 80 is three", in: "data: \xED\xA0\x80\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD\uFFFD", "")}}},
	{name: "utf8/above U+10FFFF F4 90 80 80 is four", in: "data: \xF4\x90\x80\x80\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD\uFFFD\uFFFD", "")}}},
	{name: "utf8/F5 and FF are never leads", in: "data: \xF5x\xFF\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFDx\uFFFD", "")}}},
	{name: "utf8/E1 80 then ASCII is one", in: "data: \xE1\x80z\xF1\x80\x80z\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFDz\uFFFDz", "")}}},
	{name: "utf8/sequence cut by a line end", in: "data: \xE2\x82\ndata: x\n\n",
		want: result{Events: []refEvent{ev("message", "\uFFFD\nx", "")}}},
	{name: "utf8/in a field name the field is unknown", in: "\xFFdata: x\n\ndata: y\n\n",
		want: result{Events: []refEvent{ev("message", "y", "")}, Unknown: []string{"\uFFFDdata=x"}}},
	{name: "utf8/in an event type", in: "event: \xFF\ndata: x\n\n",
		want: result{Events: []refEvent{ev("\uFFFD", "x", "")}}},
	{name: "utf8/in an id", in: "id: a\xC3\ndata: x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "a\uFFFD")}, LastID: "a\uFFFD"}},

	// One leading BOM stripped.
	{name: "bom/leading BOM stripped", in: "\xEF\xBB\xBFdata: x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "bom/only one BOM stripped", in: "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n",
		want: result{Unknown: []string{"\uFEFFdata=x"}}},
	{name: "bom/a BOM later is text", in: "data: x\n\n\xEF\xBB\xBFdata: y\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}, Unknown: []string{"\uFEFFdata=y"}}},
	{name: "bom/BOM then a blank line", in: "\xEF\xBB\xBF\ndata: x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "bom/a cut BOM is ill-formed UTF-8", in: "\xEF\xBBdata: x\n\n",
		want: result{Unknown: []string{"\uFFFDdata=x"}}},
	{name: "bom/BOM inside data is kept", in: "data: \xEF\xBB\xBFx\n\n",
		want: result{Events: []refEvent{ev("message", "\uFEFFx", "")}}},

	// Line ends: CRLF, LF, lone CR.
	{name: "lines/LF", in: "data: a\n\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "lines/CRLF", in: "data: a\r\n\r\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "lines/lone CR", in: "data: a\r\r",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "lines/all three mixed", in: "data: a\rdata: b\ndata: c\r\n\n",
		want: result{Events: []refEvent{ev("message", "a\nb\nc", "")}}},
	{name: "lines/CR CRLF is two line ends", in: "data: a\r\r\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "lines/LF CR is two line ends", in: "data: a\n\rdata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a", ""), ev("message", "b", "")}}},
	{name: "lines/a final CR ends the line", in: "data: a\n\r",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "lines/CRLF CRLF dispatches once", in: "data: a\r\n\r\n\r\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},

	// Fields.
	{name: "field/value split at the first colon", in: "data: a:b: c\n\n",
		want: result{Events: []refEvent{ev("message", "a:b: c", "")}}},
	{name: "field/only one space removed", in: "data:  two\n\n",
		want: result{Events: []refEvent{ev("message", " two", "")}}},
	{name: "field/no space after the colon", in: "data:x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "field/a tab is not a space", in: "data:\tx\n\n",
		want: result{Events: []refEvent{ev("message", "\tx", "")}}},
	{name: "field/trailing spaces kept", in: "data: x  \n\n",
		want: result{Events: []refEvent{ev("message", "x  ", "")}}},
	{name: "field/no colon: the line is the name", in: "data\n\n",
		want: result{Events: []refEvent{ev("message", "", "")}}},
	{name: "field/names compared exactly", in: "Data: x\n\nDATA: y\n\n data: z\n\ndata : w\n\n",
		want: result{Unknown: []string{"Data=x", "DATA=y", " data=z", "data =w"}}},
	{name: "field/comment", in: ": comment\ndata: x\n: another\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "field/comment lines alone dispatch nothing", in: ":\n\n: keep-alive\n\n",
		want: result{}},
	{name: "field/unknown ignored", in: "foo: bar\ndata: x\nbaz\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}, Unknown: []string{"foo=bar", "baz="}}},
	{name: "field/llama.cpp error line", in: "error: {\"code\":500}\n\ndata: [DONE]\n\n",
		want: result{Unknown: []string{"error={\"code\":500}"}, Done: true}},
	{name: "field/NUL in data kept", in: "data: a\x00b\n\n",
		want: result{Events: []refEvent{ev("message", "a\x00b", "")}}},
	{name: "field/many field forms", in: "data:\x00\ndata:  2\rData:1\ndata\x00:2\ndata:1\r\x00data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n\n",
		want: result{Events: []refEvent{ev("message", "\x00\n 2\n1\n3\n\n4", "")},
			Unknown: []string{"Data=1", "data\x00=2", "\x00data=4", "da-ta=3", "data_5=", " data=32"}}},

	// data: joined with LF, final LF removed, empty data dispatches nothing.
	{name: "data/lines joined with LF", in: "data: a\ndata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a\nb", "")}}},
	{name: "data/only the final LF removed", in: "data: a\ndata:\n\n",
		want: result{Events: []refEvent{ev("message", "a\n", "")}}},
	{name: "data/two empty data fields", in: "data\ndata\n\n",
		want: result{Events: []refEvent{ev("message", "\n", "")}}},
	{name: "data/no data field dispatches nothing", in: "event: x\nid: 1\n\n",
		want: result{LastID: "1"}},
	{name: "data/blank lines alone dispatch nothing", in: "\n\n\r\n\r",
		want: result{}},
	{name: "data/a lone empty data field dispatches", in: "data:\n\n",
		want: result{Events: []refEvent{ev("message", "", "")}}},
	{name: "data/fields between data lines", in: "data: a\nevent: t\n: c\ndata: b\n\n",
		want: result{Events: []refEvent{ev("t", "a\nb", "")}}},

	// event: type, default "message", reset after each dispatch.
	{name: "event/default is message", in: "data: x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "event/set", in: "event: add\ndata: x\n\n",
		want: result{Events: []refEvent{ev("add", "x", "")}}},
	{name: "event/reset after dispatch", in: "event: add\ndata: x\n\ndata: y\n\n",
		want: result{Events: []refEvent{ev("add", "x", ""), ev("message", "y", "")}}},
	{name: "event/reset by a blank line without data", in: "event: add\n\ndata: y\n\n",
		want: result{Events: []refEvent{ev("message", "y", "")}}},
	{name: "event/empty type means message", in: "event:\ndata: x\n\n",
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "event/the last one wins", in: "event: a\nevent: b\ndata: x\n\n",
		want: result{Events: []refEvent{ev("b", "x", "")}}},
	{name: "event/type after data counts", in: "data: x\nevent: late\n\n",
		want: result{Events: []refEvent{ev("late", "x", "")}}},

	// id: last event ID persists; empty resets; NUL ignored.
	{name: "id/set and persists", in: "id: 1\ndata: a\n\ndata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a", "1"), ev("message", "b", "1")}, LastID: "1"}},
	{name: "id/empty value resets", in: "id: 1\ndata: a\n\nid\ndata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a", "1"), ev("message", "b", "")}}},
	{name: "id/with NUL ignored", in: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a", "1"), ev("message", "b", "1")}, LastID: "1"}},
	{name: "id/without data still sets the last event ID", in: "id: 5\n\n",
		want: result{LastID: "5"}},
	{name: "id/after data in the same event", in: "data: a\nid: 9\n\n",
		want: result{Events: []refEvent{ev("message", "a", "9")}, LastID: "9"}},
	{name: "id/taken over only at a blank line", in: "id: 1\ndata: a\n\nid: 2\n",
		want: result{Events: []refEvent{ev("message", "a", "1")}, LastID: "1"}},
	{name: "id/spaces and colons kept", in: "id:  x:y \ndata: a\n\n",
		want: result{Events: []refEvent{ev("message", "a", " x:y ")}, LastID: " x:y "}},

	// retry: only ASCII digits; applied when its line is read.
	{name: "retry/digits", in: "retry: 1500\n",
		want: result{Retry: 1500 * time.Millisecond, HasRetry: true}},
	{name: "retry/zero", in: "retry: 0\n",
		want: result{Retry: 0, HasRetry: true}},
	{name: "retry/leading zeros", in: "retry: 0010\n",
		want: result{Retry: 10 * time.Millisecond, HasRetry: true}},
	{name: "retry/anything but digits ignored", in: "retry: 15a\nretry: -1\nretry: +1\nretry: 1.5\nretry:  15\nretry: 15 \nretry: \nretry\nretry: ١\n",
		want: result{}},
	{name: "retry/the last valid one wins", in: "retry: 100\nretry: x\n",
		want: result{Retry: 100 * time.Millisecond, HasRetry: true}},
	{name: "retry/later valid one replaces", in: "retry: 100\nretry: 7\n",
		want: result{Retry: 7 * time.Millisecond, HasRetry: true}},
	{name: "retry/too large is clamped", in: "retry: 99999999999999999999\n",
		want: result{Retry: time.Duration(maxRetryMillis) * time.Millisecond, HasRetry: true}},
	// The largest whole number of milliseconds a time.Duration holds is
	// 9223372036854 (math.MaxInt64 ns is 9223372036854.775807 ms).
	{name: "retry/one below the largest Duration", in: "retry: 9223372036853\n",
		want: result{Retry: 9223372036853 * time.Millisecond, HasRetry: true}},
	{name: "retry/the largest Duration", in: "retry: 9223372036854\n",
		want: result{Retry: 9223372036854 * time.Millisecond, HasRetry: true}},
	{name: "retry/one above the largest Duration is clamped", in: "retry: 9223372036855\n",
		want: result{Retry: 9223372036854 * time.Millisecond, HasRetry: true}},
	{name: "retry/unterminated line ignored", in: "retry: 100",
		want: result{}},
	{name: "retry/does not make an event", in: "retry: 5\n\n",
		want: result{Retry: 5 * time.Millisecond, HasRetry: true}},

	// End of stream: an unterminated final event is discarded.
	{name: "end/empty input", in: "",
		want: result{}},
	{name: "end/unterminated final event discarded", in: "data: a\n\ndata: b\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "end/unterminated final line discarded", in: "data: a\n\ndata: b",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "end/unterminated final event with its id", in: "data: a\n\nid: 4\ndata: b\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},

	// The done sentinel.
	{name: "done/ends the stream", in: "data: a\n\ndata: [DONE]\n\ndata: b\n\n",
		want: result{Events: []refEvent{ev("message", "a", "")}, Done: true}},
	{name: "done/nothing after it is parsed", in: "data: [DONE]\n\nretry: 5\nid: 9\n\nbad: x\n",
		want: result{Done: true}},
	{name: "done/data must match exactly", in: "data: [DONE] \n\ndata:[DONE]x\n\ndata: [done]\n\n",
		want: result{Events: []refEvent{ev("message", "[DONE] ", ""), ev("message", "[DONE]x", ""), ev("message", "[done]", "")}}},
	{name: "done/multi-line data is not the sentinel", in: "data: [DONE]\ndata:\n\n",
		want: result{Events: []refEvent{ev("message", "[DONE]\n", "")}}},
	{name: "done/whatever the type", in: "event: end\ndata: [DONE]\n\n",
		want: result{Done: true}},
	{name: "done/the ID before it is kept", in: "id: 3\ndata: [DONE]\n\n",
		want: result{LastID: "3", Done: true}},
	{name: "done/needs its blank line", in: "data: a\n\ndata: [DONE]\n",
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "done/off", in: "data: [DONE]\n\n", opts: []Option{WithDoneSentinel("")},
		want: result{Events: []refEvent{ev("message", "[DONE]", "")}}},
	{name: "done/custom sentinel", in: "data: [DONE]\n\ndata: bye\n\ndata: x\n\n", opts: []Option{WithDoneSentinel("bye")},
		want: result{Events: []refEvent{ev("message", "[DONE]", "")}, Done: true}},

	// The examples in the standard's §9.2.6.
	{name: "spec/stock ticker", in: "data: YHOO\ndata: +2\ndata: 10\n\n",
		want: result{Events: []refEvent{ev("message", "YHOO\n+2\n10", "")}}},
	{name: "spec/four blocks", in: ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
		want: result{Events: []refEvent{ev("message", "first event", "1"), ev("message", "second event", ""), ev("message", " third event", "")}}},
	{name: "spec/empty event then two lines", in: "data\n\ndata\ndata\n\ndata:",
		want: result{Events: []refEvent{ev("message", "", ""), ev("message", "\n", "")}}},
	{name: "spec/space after colon is optional", in: "data:test\n\ndata: test\n\n",
		want: result{Events: []refEvent{ev("message", "test", ""), ev("message", "test", "")}}},
}

func TestRules(t *testing.T) {
	for _, tt := range rulesTests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseEveryWay(t, []byte(tt.in), tt.opts...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q: (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestRulesMatchReference checks the reference parser against the same
// hand-checked table, so that FuzzReader compares against something known to
// be right.
func TestRulesMatchReference(t *testing.T) {
	for _, tt := range rulesTests {
		if len(tt.opts) > 0 {
			continue // the reference knows only the sentinel, set below
		}
		t.Run(tt.name, func(t *testing.T) {
			ref := refParse([]byte(tt.in), DefaultDoneSentinel)
			got := result{Events: ref.Events, Unknown: ref.Unknown, LastID: ref.LastID,
				Retry: ref.Retry, HasRetry: ref.HasRetry, Done: ref.Done}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q: (-want +reference):\n%s", tt.in, diff)
			}
		})
	}
}
