package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// bridgeWant is the message llmstream assembles where the wire carried a
// call id of "" (Gemini): the bridge names such a call "call_<index>".
func bridgeWant(m llmstream.Message) llmstream.Message {
	if m.ToolCalls != nil {
		calls := append([]llmstream.ToolCall(nil), m.ToolCalls...)
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = "call_" + strconv.Itoa(i)
			}
		}
		m.ToolCalls = calls
	}
	m.StopReason = map[string]llmstream.StopReason{"": 0, "stop": llmstream.StopEndTurn, "tool_calls": llmstream.StopToolCalls,
		"length": llmstream.StopLength, "content_filter": llmstream.StopContentFilter}[m.FinishReason]
	if _, known := map[string]bool{"": true, "stop": true, "tool_calls": true, "length": true, "content_filter": true}[m.FinishReason]; !known {
		m.StopReason = llmstream.StopOther
	}
	if len(m.ToolCalls) > 0 && (m.StopReason == 0 || m.StopReason == llmstream.StopEndTurn || m.StopReason == llmstream.StopOther) {
		m.StopReason = llmstream.StopToolCalls
	}
	return m
}

// echoedModel is the model a chat stream names: the request's, else
// "llmstreamtest".
func echoedModel(t *testing.T, body string) string {
	t.Helper()
	var req struct{ Model string }
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if req.Model == "" {
		return "llmstreamtest"
	}
	return req.Model
}

// TestReadMessageRoundTrip decodes every round-trip case through the
// real bridge, whole and one byte at a time.
func TestReadMessageRoundTrip(t *testing.T) {
	for _, tt := range roundTripCases {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithFlavor(tt.flavor), WithInterleavedCalls(tt.interleave), WithTurns(tt.turn))
			r := post(t, srv, "/chat/completions", tt.body)
			if r.readErr != nil {
				t.Fatal(r.readErr)
			}
			want := bridgeWant(tt.want)
			want.Model = echoedModel(t, tt.body)
			for _, rd := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", bytes.NewReader(r.body)},
				{"one byte at a time", iotest.OneByteReader(bytes.NewReader(r.body))},
			} {
				got, err := llmstream.ReadMessage(rd.r)
				if err != nil {
					t.Fatalf("%s: %v", rd.name, err)
				}
				if diff := cmp.Diff(want, got, cmp.Comparer(jsonEqual)); diff != "" {
					t.Errorf("%s: message (-want +got):\n%s", rd.name, diff)
				}
			}
		})
	}
}

// jsonEqual compares JSON texts by value, as the bridge may re-encode a
// call's extra members.
func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(va, vb)
}

// TestReadMessageFaults checks that each stream fault reaches a client
// through the real bridge as the error the design promises.
func TestReadMessageFaults(t *testing.T) {
	tests := []struct {
		name    string
		flavor  Flavor
		fault   Fault
		wantIs  error  // a sentinel in the chain, or nil
		wantAPI string // the *APIError's Message, Type and Code, or ""
	}{
		{"error event", OpenAI, Fault{Kind: FaultErrorEvent, After: 2, Message: "overloaded", Type: "server_error", Code: json.RawMessage(`"overloaded"`)}, nil, "overloaded|server_error|overloaded"},
		{"vllm error event, integer code", VLLM, Fault{Kind: FaultErrorEvent, After: 1, Message: "bad: x", Type: "BadRequestError", Code: json.RawMessage(`400`)}, nil, "bad: x|BadRequestError|400"},
		{"openrouter finish error", OpenAI, Fault{Kind: FaultErrorFinish, After: 2, Message: "Provider disconnected", Code: json.RawMessage(`502`)}, nil, "Provider disconnected|server_error|502"},
		{"llama.cpp error line", LlamaCpp, Fault{Kind: FaultErrorLine, After: 2, Message: "context full", Type: "exceed_context_size_error", Code: json.RawMessage(`400`)}, nil, "context full|exceed_context_size_error|400"},
		{"malformed", OpenAI, Fault{Kind: FaultMalformed, After: 1}, llmstream.ErrBadEvent, ""},
		{"truncated", OpenAI, Fault{Kind: FaultTruncate, After: 99}, llmstream.ErrTruncated, ""},
		{"truncated gemini", Gemini, Fault{Kind: FaultTruncate, After: 99}, llmstream.ErrTruncated, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithFlavor(tt.flavor), WithTurns(Turn{Text: "one two three", Fault: tt.fault}))
			r := post(t, srv, "/chat/completions", chatBody)
			_, err := llmstream.ReadMessage(bytes.NewReader(r.body))
			if err == nil {
				t.Fatalf("ReadMessage succeeded on\n%s", r.body)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v, want %v in its chain", err, tt.wantIs)
			}
			if tt.wantAPI != "" {
				var ae *llmstream.APIError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v, want an *APIError", err)
				}
				if got := ae.Message + "|" + ae.Type + "|" + ae.Code; got != tt.wantAPI {
					t.Errorf("APIError %q, want %q", got, tt.wantAPI)
				}
			}
		})
	}
}

// TestReadMessageKeepAlive checks comments do not disturb the bridge.
func TestReadMessageKeepAlive(t *testing.T) {
	srv := NewTestServer(t, WithTurns(Turn{Text: "one two", KeepAlive: 3}))
	r := post(t, srv, "/chat/completions", chatBody)
	got, err := llmstream.ReadMessage(bytes.NewReader(r.body))
	if err != nil || got.Content != "one two" || got.FinishReason != "stop" {
		t.Errorf("got %+v, %v", got, err)
	}
}

// TestReadMessageEverySplit feeds one stream per flavour to the bridge in
// two reads, split at every offset; every split must give the same message.
func TestReadMessageEverySplit(t *testing.T) {
	turn := Turn{Reasoning: "hm", Text: "naïve ✓", ToolCalls: []Call{{ID: "c", Name: "f", Arguments: `{"é":[1,2]}`}}}
	for f := OpenAI; f < flavorEnd; f++ {
		t.Run(f.String(), func(t *testing.T) {
			srv := NewTestServer(t, WithFlavor(f), WithTurns(turn))
			body := post(t, srv, "/chat/completions", chatBody).body
			want, err := llmstream.ReadMessage(bytes.NewReader(body))
			if err != nil || want.Content != turn.Text || len(want.ToolCalls) != 1 {
				t.Fatalf("whole: %+v, %v", want, err)
			}
			for k := range len(body) + 1 {
				got, err := llmstream.ReadMessage(io.MultiReader(bytes.NewReader(body[:k]), bytes.NewReader(body[k:])))
				if err != nil {
					t.Fatalf("split at %d: %v", k, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("split at %d (-whole +split):\n%s", k, diff)
				}
			}
		})
	}
}
