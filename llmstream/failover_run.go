package llmstream

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// failoverRun is one call of a Failover: where it is in its models, what
// the caller was shown, and what the attempts were billed. It lives in
// runPool between calls.
type failoverRun struct {
	f       *Failover
	onDelta func(Delta) error // the caller's, nil for none
	fn      func(Delta) error // run.delta, made once per pooled run

	// Since the stream began or the last DeltaRestart: whether the caller
	// was shown anything, and anything other than text.
	shown, other bool
	// textBytes counts the text the current attempt sent, before the
	// splice drops any of it.
	textBytes int
	// prefix is the text shown so far, which a continuation carries on;
	// skip is its trailing whitespace that the continuation's text must
	// not repeat, skipping whether the continuation's text is still
	// being matched against it.
	prefix, skip string
	skipping     bool
	held         string // the start of a rune skipRepeated waits to match

	usage     *Usage
	usageOwn  bool   // usage was made here, so it may be added to
	noPrefill []bool // models that refused a continuation, made on the first refusal
}

// start readies a pooled run for a call.
func (run *failoverRun) start(f *Failover, onDelta func(Delta) error) {
	run.f, run.onDelta = f, onDelta
}

// step is where the next attempt goes: the model, its try (from 0), and
// whether it continues the text shown.
type step struct {
	model, try int
	continues  bool
}

// loop makes attempts until one answers, one fails for good, the attempts
// run out or ctx ends.
func (run *failoverRun) loop(ctx context.Context, r Request) (Message, error) {
	f := run.f
	per := f.attempts()
	at := step{}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return run.shownMessage(Message{Role: "assistant"}), err
		}
		m := f.Models[at.model]
		id := identify(m, &r)
		req := r
		if at.continues {
			req.Messages = prefilled(r.Messages, trimSpaceEnd(run.prefix))
		}
		run.textBytes = 0
		msg, err := m.Stream(ctx, req)
		run.addUsage(msg.Usage)
		a := Attempt{Number: n, Model: at.model, Name: id.name, Dialect: id.dialect, Continued: at.continues, Err: err, Usage: msg.Usage}
		if err == nil {
			if msg.Model == "" {
				msg.Model = id.name // a Streamer that names none: the model asked
			}
			if err := run.flushHeld(); err != nil {
				err = fmt.Errorf("%w: %w", ErrAborted, err)
				run.giveUp(ctx, a, err)
				return run.shownMessage(run.answer(msg, at.continues)), err
			}
			out := run.answer(msg, at.continues)
			a.Next = AttemptAnswered
			run.report(ctx, a)
			return out, nil
		}
		raw := len(msg.Content)
		if at.continues {
			msg.Content = run.spliced(msg.Content)
		}
		if at.continues && prefillRefused(err) && !run.refused(at.model) {
			// Not counted: the model cannot continue, which says nothing of
			// its health. Once per model, so the attempts stay bounded.
			run.refuse(at.model)
			at.continues = false
			a.Next = AttemptRestart
			if err := run.restart(); err != nil {
				run.giveUp(ctx, a, err)
				return Message{Role: "assistant", Usage: run.usage}, err
			}
			run.report(ctx, a)
			continue
		}
		next, wait, ok := run.next(ctx, at, per, err)
		if ferr := run.flushHeld(); ferr != nil {
			ferr = fmt.Errorf("%w: %w", ErrAborted, ferr)
			run.giveUp(ctx, a, ferr)
			return run.shownMessage(msg), ferr
		}
		if !ok {
			a.Next = AttemptGiveUp
			run.report(ctx, a)
			if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
				// The caller ended the call while the attempt failed: a
				// Streamer that did not watch ctx says only its own
				// failure, and the caller must still see its cancellation.
				err = fmt.Errorf("%w: %w", cerr, err)
			}
			return run.shownMessage(msg), err
		}
		nid := identify(f.Models[next.model], &r)
		next.continues = run.continuable(&msg, raw, nid, next.model)
		a.Next, a.Wait = AttemptRestart, wait
		var seamErr error
		if next.continues {
			a.Next = AttemptContinue
			seamErr = run.resume(msg.Content)
		} else {
			seamErr = run.restart()
			msg.Content = ""
		}
		if seamErr != nil {
			run.giveUp(ctx, a, seamErr)
			return run.shownMessage(msg), seamErr
		}
		run.report(ctx, a)
		if !sleep(ctx, wait) {
			return run.shownMessage(msg), ctx.Err()
		}
		at = next
	}
}

// next is where the attempt after a failed one goes and how long to wait
// first; ok is false when there is none: the failure is not worth
// retrying, or the attempts are spent. A model whose server asks for a
// wait over MaxWait is left for the next at once.
func (run *failoverRun) next(ctx context.Context, at step, per int, err error) (step, time.Duration, bool) {
	if !worthRetrying(ctx, err) {
		return step{}, 0, false
	}
	f := run.f
	limit := f.maxWait()
	wait, asked := serverWait(err)
	if !asked {
		// MaxWait caps the Failover's own backoff; only a server's wait
		// over it moves on.
		wait = f.backoff(at.try + 1)
		if limit >= 0 {
			wait = min(wait, limit)
		}
	}
	if at.try+1 < per && (limit < 0 || wait <= limit) {
		return step{model: at.model, try: at.try + 1}, wait, true
	}
	if at.model+1 < len(f.Models) {
		return step{model: at.model + 1}, 0, true
	}
	return step{}, 0, false
}

// giveUp tells OnAttempt that the call ends after a, with err, because
// the caller's callback refused a delta the Failover sent (a seam or
// text held back): the attempt's own error, if any, stays in a.Err.
func (run *failoverRun) giveUp(ctx context.Context, a Attempt, err error) {
	if a.Err == nil {
		a.Err = err
	}
	a.Next = AttemptGiveUp
	run.report(ctx, a)
}

// report tells OnAttempt.
func (run *failoverRun) report(ctx context.Context, a Attempt) {
	if h := run.f.OnAttempt; h != nil {
		h(ctx, a)
	}
}

// shownMessage is a failed call's message: m with the text as shown and
// the usage of every attempt, for display only.
func (run *failoverRun) shownMessage(m Message) Message {
	m.ToolCalls = nil
	m.Usage = run.usage
	return m
}

// refused reports whether model i refused a continuation in this call.
func (run *failoverRun) refused(i int) bool { return i < len(run.noPrefill) && run.noPrefill[i] }

func (run *failoverRun) refuse(i int) {
	if run.noPrefill == nil {
		run.noPrefill = make([]bool, len(run.f.Models))
	}
	run.noPrefill[i] = true
}

// restart ends what was shown: a DeltaRestart when the caller saw
// anything, and the text carried on is dropped.
func (run *failoverRun) restart() error {
	run.prefix, run.skip, run.skipping, run.held = "", "", false, ""
	if !run.shown {
		return nil
	}
	run.shown, run.other = false, false
	return run.seam(DeltaRestart)
}

// resume readies a continuation of text, the text shown so far: a
// DeltaResume when the caller saw anything.
func (run *failoverRun) resume(text string) error {
	run.prefix = text
	run.skip = text[len(trimSpaceEnd(text)):]
	run.skipping = run.skip != ""
	if !run.shown {
		return nil
	}
	return run.seam(DeltaResume)
}

// seam sends a seam delta to the caller; an error from it aborts the call,
// as any callback error does.
func (run *failoverRun) seam(k DeltaKind) error {
	if run.onDelta == nil {
		return nil
	}
	if err := run.onDelta(Delta{Kind: k}); err != nil {
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	return nil
}

// delta passes an attempt's delta on to the caller, noting what was shown,
// and drops the whitespace a continuation repeats at the splice.
func (run *failoverRun) delta(d Delta) error {
	switch d.Kind {
	case DeltaText:
		run.textBytes += len(d.Text)
		if run.skipping {
			d.Text = run.skipRepeated(d.Text)
			if d.Text == "" {
				return nil
			}
		}
	default:
		// Text still held stays held: the text that completes its rune may
		// come after this delta, and the Message's text joins them.
		run.other = true
	}
	run.shown = true
	return run.onDelta(d)
}

// addUsage adds u to the call's usage; the first report is kept as it is,
// so a call that answers at once costs nothing here.
func (run *failoverRun) addUsage(u *Usage) {
	switch {
	case u == nil:
		return
	case run.usage == nil:
		run.usage = u
		return
	case !run.usageOwn:
		sum := *run.usage
		run.usage, run.usageOwn = &sum, true
	}
	run.usage.Add(u)
}
