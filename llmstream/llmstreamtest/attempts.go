package llmstreamtest

import (
	"strings"
	"sync"
)

// Attempts returns a responder for [WithResponder] that serves one turn
// over several attempts, as a model behind a failing connection would:
// attempt i (from 0) gets t with faults[i], and the attempts after the
// last fault get t clean. A request whose conversation ends with an
// assistant message is a continuation (a prefill): it gets the rest of
// t's text after that message's text, t's calls and usage, and no
// reasoning (a model continuing a prefill does not think); when t's text
// does not start with the prefill, it gets t whole, as a model that
// ignores a prefill would.
//
// The responder is safe for concurrent use; it counts every request it
// is given as an attempt.
func Attempts(t Turn, faults ...Fault) func(Request) Turn {
	t = t.clone()
	faults = append([]Fault(nil), faults...)
	var mu sync.Mutex
	n := 0
	return func(r Request) Turn {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		out := t.clone()
		if k := len(r.Messages); k > 0 && r.Messages[k-1].Role == "assistant" {
			if rest, ok := strings.CutPrefix(t.Text, r.Messages[k-1].Content); ok {
				out.Text, out.Reasoning, out.Signature = rest, "", ""
			}
		}
		if i < len(faults) {
			out.Fault = faults[i]
		}
		return out
	}
}
