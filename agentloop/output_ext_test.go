package agentloop_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

type outPlan struct {
	Goal  string   `json:"goal"`
	Steps []string `json:"steps"`
}

// outputModel is a script that also records each request's Output.
type outputModel struct {
	script
	outs []*llmstream.OutputSchema
}

func (m *outputModel) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	m.outs = append(m.outs, r.Output)
	return m.script.Stream(ctx, r)
}

// TestLoopOutput: a wrong answer is told to the model, which answers
// again; a tool call in between runs as usual; the run ends on an answer
// that fits, which Result carries, raw and decoded.
func TestLoopOutput(t *testing.T) {
	read := agentloop.NewTool("read", "", func(_ context.Context, in readIn) (string, error) { return "read " + in.Path, nil })
	m := &outputModel{script: script{turns: []llmstream.Message{
		asst(`{"goal":"ship","Steps":["a"]}`),
		asst("", call("c1", "read", `{"path":"a"}`)),
		asst(`{"goal":"ship","steps":null}`),
		asst(`{"goal":"ship","steps":["write","test"]}`),
	}}}
	l := &agentloop.Loop{Model: m, Tools: []agentloop.Tool{read}, Output: agentloop.OutputFor[outPlan]("plan")}
	res, err := l.Run(t.Context(), user)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != `{"goal":"ship","steps":["write","test"]}` || res.Turns != 4 {
		t.Errorf("output %s after %d turns", res.Output, res.Turns)
	}
	p, err := agentloop.DecodeOutput[outPlan](res)
	if err != nil || len(p.Steps) != 2 {
		t.Errorf("DecodeOutput: %+v, %v", p, err)
	}
	told := res.Messages[3].Content // after user's two and the first answer
	if res.Messages[3].Role != "user" || !strings.Contains(told, `the member "Steps" is not in the schema; names are exact: "steps"`) {
		t.Errorf("told %q", told)
	}
	if c := res.Messages[7].Content; !strings.Contains(c, `the member "steps" is null`) {
		t.Errorf("second telling %q", c)
	}
	for i, o := range m.outs {
		if o == nil || o.Name != "plan" || !o.Strict || !strings.Contains(string(o.Schema), `"steps"`) {
			t.Errorf("request %d output %+v", i, o)
		}
	}
}

// TestLoopOutputRepeated: the same wrong answer twice stops the run.
func TestLoopOutputRepeated(t *testing.T) {
	bad := asst(`{"goal":"ship"}`)
	m := &outputModel{script: script{turns: []llmstream.Message{bad, bad, asst(`{"goal":"x","steps":[]}`)}}}
	res, err := (&agentloop.Loop{Model: m, Output: agentloop.OutputFor[outPlan]("plan")}).Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrRepeatedFailure) || !errors.Is(err, llmstream.ErrInvalidOutput) || res.Turns != 2 || res.Output != nil {
		t.Errorf("%v after %d turns, output %s", err, res.Turns, res.Output)
	}
	// Two different wrong answers do not stop it; nor does a plain text one.
	m = &outputModel{script: script{turns: []llmstream.Message{asst(`sure!`), bad, asst(`{"goal":"x","steps":[]}`)}}}
	res, err = (&agentloop.Loop{Model: m, Output: agentloop.OutputFor[outPlan]("plan")}).Run(t.Context(), user)
	if err != nil || res.Turns != 3 || !strings.Contains(res.Messages[3].Content, "not one JSON object") {
		t.Errorf("%v after %d turns: %q", err, res.Turns, res.Messages[3].Content)
	}
}

// TestLoopOutputInvalid: a type with no schema fails before any request.
func TestLoopOutputInvalid(t *testing.T) {
	m := &outputModel{}
	_, err := (&agentloop.Loop{Model: m, Output: agentloop.OutputFor[struct{ C chan int }]("x")}).Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrInvalidLoop) || !errors.Is(err, agentloop.ErrUnsupportedType) || len(m.outs) != 0 {
		t.Errorf("%v after %d requests", err, len(m.outs))
	}
}
