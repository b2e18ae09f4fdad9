package agentcli

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/toolcall"
)

// --output plan: the final answer is a typed plan (agentloop.Loop.Output),
// each step printed the moment its member completes in the stream
// (toolcall.Members through llmstream.FeedMembers), not when the answer
// ends.

// plan is the structured answer --output plan asks for.
type plan struct {
	Goal  string     `json:"goal" jsonschema:"what the plan achieves"`
	Steps []planStep `json:"steps"`
}

type planStep struct {
	Title string `json:"title" jsonschema:"the step, in a few words"`
	Why   string `json:"why" jsonschema:"why it comes now"`
}

// stepPath matches the path of one whole step.
var stepPath = regexp.MustCompile(`^\$\.steps\[(\d+)\]$`)

// planOutput makes l's final answer a plan and prints each step to out
// as it completes; the plan's raw text is not streamed (a turn's text
// that is not JSON is).
func planOutput(l *agentloop.Loop, out *printer) {
	l.Output = agentloop.OutputFor[plan]("plan")
	members := toolcall.NewMembers(func(m toolcall.Member) error {
		n := stepPath.FindSubmatch(m.Path)
		if n == nil {
			return nil
		}
		var s planStep
		if json.Unmarshal(m.Value, &s) == nil {
			out.mu.Lock()
			out.println(fmt.Sprintf("  step %s: %s — %s", n[1], printable(s.Title), printable(s.Why)))
			out.mu.Unlock()
		}
		return nil
	})
	feed := llmstream.FeedMembers(members, func(d llmstream.Delta) error {
		if d.Kind != llmstream.DeltaText {
			l.Hooks.OnDelta(d)
		}
		return nil
	})
	before, onDelta := l.Hooks.BeforeModel, l.Hooks.OnDelta
	l.Hooks.BeforeModel = func(s agentloop.ModelStart) {
		members.Reset() // each turn's answer is a new text
		if before != nil {
			before(s)
		}
	}
	l.Hooks.OnDelta = func(d llmstream.Delta) {
		if d.Kind != llmstream.DeltaText {
			onDelta(d)
			return
		}
		feed(d)
		if members.Err() != nil {
			onDelta(d) // this turn's text is not the plan: show it
		}
	}
}

// scriptedPlan is the offline model's final answer when the request asks
// for a structured one: a plan built from what it read.
func scriptedPlan(task string, results []result) llmstreamtest.Turn {
	p := plan{Goal: "understand the workspace for: " + clip(task, 80)}
	for _, r := range results {
		if r.name == "read_file_safe" && !failed(r) {
			var args struct {
				Path string `json:"path"`
			}
			json.Unmarshal([]byte(r.args), &args)
			p.Steps = append(p.Steps, planStep{Title: "study " + args.Path, Why: "it was among the files that tell most about the project"})
		}
	}
	p.Steps = append(p.Steps, planStep{Title: "write the change", Why: "once the code is understood"}, planStep{Title: "run the tests", Why: "to see it holds"})
	b, _ := json.Marshal(p)
	return llmstreamtest.Turn{Text: string(b)}
}
