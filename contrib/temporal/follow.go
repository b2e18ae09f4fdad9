package temporal

import (
	"context"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/airlock-go/airlock/llmstream"
	"go.temporal.io/sdk/activity"
)

// Delta is one piece of a model turn as it streams, with the run it
// belongs to. Deltas are for display: the turn's message in history is the
// result.
type Delta struct {
	// WorkflowID is the run's workflow id, the key to follow it by.
	WorkflowID string
	// Turn is the 1-based model turn of the run.
	Turn int
	// Attempt is Temporal's attempt of this turn, from 1.
	Attempt int
	// Reset, set on the first Delta of a retried attempt (and carrying no
	// piece), tells a follower to drop the text it shows for this turn: the
	// attempt before failed and the turn streams again from the start.
	Reset bool
	// Delta is the piece (zero when Reset is set).
	Delta llmstream.Delta
}

// Progress is a model turn's heartbeat: the text so far, for a caller that
// polls rather than subscribes ([Run.Progress]). It reaches the server late:
// the SDK sends an activity's heartbeats at most every 0.8 ×
// Options.HeartbeatTimeout (and worker.Options.MaxHeartbeatThrottleInterval),
// so a follower that wants every word subscribes on the worker instead.
type Progress struct {
	Turn    int
	Attempt int
	// Text is the answer text so far, at most the first [MaxProgressBytes]
	// bytes of it.
	Text string
	// Deltas counts the deltas received in this attempt.
	Deltas int
}

// MaxProgressBytes bounds Progress.Text: a heartbeat is a payload the
// server keeps, not a transcript.
const MaxProgressBytes = 16 << 10

// follower returns the delta callback of one attempt of a model turn: it
// hands each delta to the Agent's OnDelta and keeps the heartbeat's
// Progress up to date.
func (a *activities) follower(ctx context.Context, b *beat, turn int) func(llmstream.Delta) {
	info := activity.GetInfo(ctx)
	attempt := int(info.Attempt)
	id := info.WorkflowExecution.ID
	onDelta := a.agent.OnDelta
	if onDelta != nil && attempt > 1 {
		onDelta(Delta{WorkflowID: id, Turn: turn, Attempt: attempt, Reset: true})
	}
	p := Progress{Turn: turn, Attempt: attempt}
	b.set(p)
	return func(d llmstream.Delta) {
		p.Deltas++
		if d.Kind == llmstream.DeltaText && len(p.Text) < MaxProgressBytes {
			p.Text += cutText(d.Text, MaxProgressBytes-len(p.Text))
		}
		b.set(p)
		if onDelta != nil {
			onDelta(Delta{WorkflowID: id, Turn: turn, Attempt: attempt, Delta: d})
		}
	}
}

// Relay hands the deltas a worker streams to the followers of each run, in
// the worker's process: set Agent.OnDelta to Relay.Publish and call
// Relay.Follow from the code that serves the UI. A run whose turns stream
// on another worker is not seen here; publish from OnDelta to a bus of your
// own to follow runs across workers. The zero Relay is ready to use and
// safe for concurrent use.
type Relay struct {
	mu        sync.Mutex
	followers map[string][]*follower
}

type follower struct{ fn func(Delta) }

// Publish hands d to every follower of d.WorkflowID, in the order they
// began following, on the caller's goroutine.
func (r *Relay) Publish(d Delta) {
	r.mu.Lock()
	fs := r.followers[d.WorkflowID]
	r.mu.Unlock()
	for _, f := range fs {
		f.fn(d)
	}
}

// Follow calls fn with every Delta published for workflowID from now
// until stop is called; stop may be called more than once. fn runs on the
// publishing activity's goroutine: it must be quick and must not call back
// into the Relay.
func (r *Relay) Follow(workflowID string, fn func(Delta)) (stop func()) {
	f := &follower{fn: fn}
	r.mu.Lock()
	if r.followers == nil {
		r.followers = make(map[string][]*follower)
	}
	// A new slice each time, so Publish may range over the old one unlocked.
	r.followers[workflowID] = append(slices.Clip(r.followers[workflowID]), f)
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			kept := slices.DeleteFunc(slices.Clone(r.followers[workflowID]), func(g *follower) bool { return g == f })
			if len(kept) == 0 {
				delete(r.followers, workflowID)
			} else {
				r.followers[workflowID] = kept
			}
		})
	}
}

// cutText returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 sequence.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
