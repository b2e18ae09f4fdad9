package llmstream_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

type planStep struct {
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

type plan struct {
	Goal  string     `json:"goal"`
	Steps []planStep `json:"steps"`
}

const planAnswer = `{"goal":"ship","steps":[{"title":"write","done":true},{"title":"test","done":false}]}`

var allDialects = []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectResponses, llmstream.DialectAnthropic, llmstream.DialectGemini, llmstream.DialectBedrock}

func outputClient(t *testing.T, d llmstream.Dialect, turns ...llmstreamtest.Turn) (*llmstream.Client, *llmstreamtest.Server) {
	t.Helper()
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turns...))
	return llmstream.NewClient(llmstream.WithDialect(d), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()),
		llmstream.WithAPIKey("k"), llmstream.WithModel("m")), srv
}

// TestOutputEncoded: in every dialect the schema arrives where the
// provider documents it (llmstreamtest reads it from there), and the
// answer decodes into the type the schema came from.
func TestOutputEncoded(t *testing.T) {
	out, err := llmstream.OutputSchemaFor[plan]("plan")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range allDialects {
		t.Run(d.String(), func(t *testing.T) {
			c, srv := outputClient(t, d, llmstreamtest.Turn{Text: planAnswer})
			m, err := c.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "plan"}}, Output: out})
			if err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[0].Output
			want := *out
			if d == llmstream.DialectAnthropic || d == llmstream.DialectGemini {
				want.Name, want.Strict = "", false // no such members there
			}
			if d == llmstream.DialectBedrock {
				want.Strict = false
			}
			if got == nil || got.Name != want.Name || got.Strict != want.Strict || string(got.Schema) != string(want.Schema) {
				t.Errorf("request's output %+v, want %+v", got, want)
			}
			p, err := llmstream.DecodeOutput[plan](m)
			if err != nil || p.Goal != "ship" || len(p.Steps) != 2 || p.Steps[1].Title != "test" {
				t.Errorf("DecodeOutput: %+v, %v", p, err)
			}
		})
	}
}

// TestOutputAsTool: the forced-tool form carries the schema as a tool the
// model must call, and the caller sees an answer: the call's arguments
// are the Content, its deltas text, no call in the Message.
func TestOutputAsTool(t *testing.T) {
	out, err := llmstream.OutputSchemaFor[plan]("plan")
	if err != nil {
		t.Fatal(err)
	}
	out.AsTool = true
	grep := llmstream.Tool{Function: llmstream.ToolFunction{Name: "grep", Parameters: json.RawMessage(`{"type":"object"}`)}}
	for _, d := range allDialects {
		for _, withTools := range []bool{false, true} {
			t.Run(d.String(), func(t *testing.T) {
				c, srv := outputClient(t, d, llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "plan", Arguments: planAnswer}}})
				var text strings.Builder
				r := llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "plan"}}, Output: out,
					OnDelta: func(d llmstream.Delta) error {
						if d.Kind != llmstream.DeltaText {
							t.Errorf("delta %v", d.Kind)
						}
						text.WriteString(d.Text)
						return nil
					}}
				if withTools {
					r.Tools = []llmstream.Tool{grep}
				}
				m, err := c.Stream(t.Context(), r)
				if err != nil {
					t.Fatal(err)
				}
				if m.Content != planAnswer || len(m.ToolCalls) != 0 || text.String() != planAnswer || m.StopReason != llmstream.StopEndTurn {
					t.Errorf("message %q calls %v stop %v, deltas %q", m.Content, m.ToolCalls, m.StopReason, text.String())
				}
				req := srv.Requests()[0]
				if req.Output != nil || len(req.Tools) != len(r.Tools)+1 || req.Tools[len(r.Tools)].Function.Name != "plan" ||
					string(req.Tools[len(r.Tools)].Function.Parameters) != string(out.Schema) {
					t.Errorf("sent output %+v, tools %+v", req.Output, req.Tools)
				}
				if !strings.Contains(string(req.Body), `"plan"`) {
					t.Errorf("no forced choice of plan in %s", req.Body)
				}
			})
		}
	}
}

// TestOutputInvalidRequest: a bad schema or combination fails before
// anything is sent.
func TestOutputInvalidRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	tools := []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "plan"}}}
	for name, r := range map[string]llmstream.Request{
		"no schema":          {Output: &llmstream.OutputSchema{}},
		"schema not object":  {Output: &llmstream.OutputSchema{Schema: json.RawMessage(`[1]`)}},
		"schema null":        {Output: &llmstream.OutputSchema{Schema: json.RawMessage(`null`)}},
		"bad name":           {Output: &llmstream.OutputSchema{Name: "a plan", Schema: schema}},
		"long name":          {Output: &llmstream.OutputSchema{Name: strings.Repeat("a", 65), Schema: schema}},
		"as tool, choice":    {Output: &llmstream.OutputSchema{Schema: schema, AsTool: true}, ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto}},
		"as tool, same name": {Output: &llmstream.OutputSchema{Name: "plan", Schema: schema, AsTool: true}, Tools: tools},
		"extra conflict":     {Output: &llmstream.OutputSchema{Schema: schema}, Extra: map[string]any{"response_format": map[string]any{}}},
	} {
		c, srv := outputClient(t, llmstream.DialectChat, llmstreamtest.Turn{Text: "{}"})
		_, err := c.Stream(t.Context(), r)
		if !errors.Is(err, llmstream.ErrInvalidRequest) || len(srv.Requests()) != 0 {
			t.Errorf("%s: %v after %d requests", name, err, len(srv.Requests()))
		}
	}
	// At the limit: a 64-byte name is sent.
	c, srv := outputClient(t, llmstream.DialectChat, llmstreamtest.Turn{Text: "{}"})
	if _, err := c.Stream(t.Context(), llmstream.Request{Output: &llmstream.OutputSchema{Name: strings.Repeat("a", 64), Schema: schema}}); err != nil || len(srv.Requests()) != 1 {
		t.Errorf("64-byte name: %v", err)
	}
}

// TestDecodeOutput: the answer is decoded as strictly as the schema says.
func TestDecodeOutput(t *testing.T) {
	tests := []struct {
		msg  llmstream.Message
		want string
	}{
		{llmstream.Message{Content: planAnswer}, ""},
		{llmstream.Message{Content: `{"GOAL":"x","steps":[]}`}, `the member "GOAL" is not in the schema; names are exact: "goal"`},
		{llmstream.Message{Content: `{"goal":"x","steps":[{"title":null,"done":true}]}`}, `the member "steps[0].title" is null; it is required and takes a string`},
		{llmstream.Message{Content: `{"goal":"x"}`}, `the member "steps" is missing`},
		{llmstream.Message{Content: `{"goal":"x","steps":[],"extra":1}`}, `the member "extra" is not in the schema`},
		{llmstream.Message{Content: `{"goal":"x","steps":[]`}, `the answer does not decode`},
		{llmstream.Message{Content: ``}, `the answer does not decode`},
		{llmstream.Message{Refusal: "no"}, `the model refused: no`},
		{llmstream.Message{Content: "I can't help", StopReason: llmstream.StopRefusal}, `the model refused: I can't help`}, // Anthropic's refusal
		{llmstream.Message{Content: planAnswer, StopReason: llmstream.StopRefusal}, `the model refused: `},
		{llmstream.Message{Content: `{"goal":"x"`, StopReason: llmstream.StopLength}, `cut at the token limit`},
	}
	for _, tt := range tests {
		p, err := llmstream.DecodeOutput[plan](tt.msg)
		if tt.want == "" {
			if err != nil || p.Goal != "ship" {
				t.Errorf("%q: %+v, %v", tt.msg.Content, p, err)
			}
			continue
		}
		if !errors.Is(err, llmstream.ErrInvalidOutput) || !strings.Contains(err.Error(), tt.want) || !cmp.Equal(p, plan{}) {
			t.Errorf("%q: %+v, %v; want %q", tt.msg.Content, p, err, tt.want)
		}
	}
	if _, err := llmstream.DecodeOutput[chan int](llmstream.Message{Content: "{}"}); !errors.Is(err, llmstream.ErrUnsupportedType) {
		t.Errorf("chan: %v", err)
	}
}

// TestFeedMembersAfterReset: a turn of prose stops the feeding of its
// own text only; after Reset (the next turn) the answer is fed again.
// Members that refuse more than a limit leave the stream running.
func TestFeedMembersAfterReset(t *testing.T) {
	var paths []string
	m := toolcall.NewMembers(func(e toolcall.Member) error { paths = append(paths, string(e.Path)); return nil }, toolcall.WithMaxArgumentBytes(32))
	passed := 0
	feed := llmstream.FeedMembers(m, func(llmstream.Delta) error { passed++; return nil })
	for _, text := range []string{"I'll look", " first."} {
		if err := feed(llmstream.Delta{Kind: llmstream.DeltaText, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	m.Reset()
	for _, text := range []string{`{"goal":`, `"x"}`} {
		if err := feed(llmstream.Delta{Kind: llmstream.DeltaText, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	m.Reset()
	if err := feed(llmstream.Delta{Kind: llmstream.DeltaText, Text: `{"goal":"` + strings.Repeat("x", 40) + `"}`}); err != nil {
		t.Fatal(err) // past the limit: not the stream's failure
	}
	if strings.Join(paths, " ") != "$.goal $" || passed != 5 {
		t.Errorf("paths %v, %d deltas passed on", paths, passed)
	}
}

// TestFeedMembersRestart: after a DeltaRestart the answer is read afresh —
// without the reset, the new attempt's text would follow the void one's
// and be refused as not JSON, and no member of it reported.
func TestFeedMembersRestart(t *testing.T) {
	var got []string
	m := toolcall.NewMembers(func(e toolcall.Member) error { got = append(got, string(e.Path)+"="+string(e.Value)); return nil })
	feed := llmstream.FeedMembers(m, nil)
	for _, d := range []llmstream.Delta{
		{Kind: llmstream.DeltaText, Text: `{"a":1,"b":`},
		{Kind: llmstream.DeltaRestart},
		{Kind: llmstream.DeltaText, Text: `{"a":2}`},
	} {
		if err := feed(d); err != nil {
			t.Fatal(err)
		}
	}
	if want := `$.a=1 $.a=2 $={"a":2}`; strings.Join(got, " ") != want {
		t.Errorf("members %q, want %q", strings.Join(got, " "), want)
	}
	if err := m.Err(); err != nil {
		t.Errorf("Err() = %v after the restarted answer", err)
	}
}
