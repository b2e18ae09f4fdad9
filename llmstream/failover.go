package llmstream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Defaults of a [Failover]'s zero fields.
const (
	// DefaultFailoverAttempts is how many times a Failover whose Attempts
	// is 0 tries each model in one call.
	DefaultFailoverAttempts = 2
	// DefaultFailoverBackoff is the first wait between two attempts of one
	// model when Backoff is 0; it doubles with each attempt.
	DefaultFailoverBackoff = 500 * time.Millisecond
	// DefaultFailoverMaxWait is the longest wait between attempts when
	// MaxWait is 0.
	DefaultFailoverMaxWait = 10 * time.Second
)

// Failover is a [Streamer] that does not break with its stream: it wraps
// one or more models, retries a call that failed for a reason worth
// retrying, continues a stream cut after its text had begun where the
// dialect can, and else starts it over, on the same model or the next.
// The README's "Failover" section has the rules in a table.
//
// What moves on to another attempt: a stream that broke ([ErrInterrupted]:
// cut, truncated), stalled (idle past [WithIdleTimeout]) or ran past the
// transport's time limit; a server that could not be reached; a
// provider's rate-limit, overloaded or server error, in the stream or as
// an HTTP answer once the transport's own retries are spent
// ([APIError.Retryable], and an HTTP error of no provider's shape whose
// *transport.StatusError says Retryable). It classifies by [KindOf].
// Nothing else does: a bad request, authentication, permission, content
// policy, context length, bad tool calls, a bad response, the callback's
// abort, and the caller's own cancellation or deadline are returned at
// once, and no attempt starts once ctx has ended.
//
// Continue or restart: when the broken attempt had shown text and nothing
// else (no reasoning, no refusal, no tool call begun), and the next
// attempt's model speaks a dialect that continues an assistant turn
// (Anthropic's Messages API, or Bedrock's Converse for an Anthropic model,
// with no thinking asked for, since both refuse a prefill with extended
// thinking), the next request ends with the text so far as the assistant's
// message, its trailing whitespace cut (Anthropic refuses a prefill that
// ends in whitespace), and the answer is spliced on: one Message, the text
// never doubled (the continuation's leading whitespace that the text shown
// already has is dropped). A model that refuses the prefill (newer Claude
// models answer 400) is asked again from scratch, once per model, and is
// not counted as an attempt. Otherwise the next attempt starts over.
// A Failover knows a [*Client]'s dialect; a Streamer of any other type that
// has a Dialect() Dialect method says its own, and one with neither is
// always restarted.
//
// The seam: when Request.OnDelta is set, it receives a [DeltaRestart]
// before a restart that voids something it was shown, and a [DeltaResume]
// before a continuation, so that applying the deltas with their seams
// gives exactly the final Message's text, reasoning and calls. A
// client's own [WithOnDelta] callback (used when the request sets none)
// gets each attempt's deltas and no seam.
//
// The Message returned is the answering attempt's (with a continuation,
// spliced onto the text before it), with two changes: its Usage is the sum
// of every attempt's usage the providers reported (the broken ones'
// included, which were billed too; nil when none reported any), and its
// calls are that attempt's own, never a call of a discarded one. Its
// Model says which model answered: the answering Streamer's
// Message.Model, else that attempt's [Attempt.Name]; with a continuation,
// the model that wrote the end. With an error, the message is
// the last attempt's text as shown (for display only) and the error is the
// last attempt's, or the caller's context error.
//
// The zero value of every field but Models is a sensible default. A
// Failover is safe for concurrent use when its Models are; its fields must
// not change while a call is running. A Streamer it wraps must not call
// Request.OnDelta after its Stream returned.
type Failover struct {
	// Models are tried in order: each up to Attempts times, then the next.
	// A Failover with none fails every call with [ErrMisuse].
	Models []Streamer
	// Attempts is how many times each model is tried in one call, a
	// continuation counting as one: 0 means [DefaultFailoverAttempts];
	// negative means once. The whole call makes at most
	// len(Models)·Attempts attempts, plus one per model whose prefill was
	// refused.
	Attempts int
	// Backoff is the wait before the second attempt of a model, doubling
	// before each later one, with up to half of it taken off at random:
	// 0 means [DefaultFailoverBackoff]; negative means no wait. A server's
	// wait (Retry-After, retry-after-ms, Google's RetryInfo) replaces it.
	// Moving on to the next model does not wait.
	Backoff time.Duration
	// MaxWait caps every wait: 0 means [DefaultFailoverMaxWait]; negative
	// means no cap. A server asking for a longer wait than MaxWait makes
	// the Failover move on to the next model at once (or, on the last,
	// return the error).
	MaxWait time.Duration
	// OnAttempt, when set, is called after every attempt, on the calling
	// goroutine, with the context of the call: what was tried, how it
	// ended, and what comes next. contrib/otel records attempts as span
	// events through it.
	OnAttempt func(context.Context, Attempt)
}

var _ Streamer = (*Failover)(nil)

// errNoModels is what every call of a Failover without Models returns.
var errNoModels = fmt.Errorf("%w: Failover with no Models", ErrMisuse)

// Stream sends r to the models in turn until one answers, by the rules in
// the type's documentation. It returns the answering attempt's message, or
// the last error; the caller's cancellation ends it at once, with the
// context's error in the chain.
func (f *Failover) Stream(ctx context.Context, r Request) (Message, error) {
	if len(f.Models) == 0 {
		return Message{}, errNoModels
	}
	run := runPool.Get().(*failoverRun)
	defer run.release()
	run.start(f, r.OnDelta)
	if r.OnDelta != nil {
		r.OnDelta = run.fn
	}
	return run.loop(ctx, r)
}

// runPool keeps failoverRuns, each with its delta callback made once: a
// call with a callback then costs no allocation of its own.
var runPool = sync.Pool{New: func() any {
	run := &failoverRun{}
	run.fn = run.delta
	return run
}}

// release resets the run and puts it back; nothing of the call is kept.
func (run *failoverRun) release() {
	fn := run.fn
	*run = failoverRun{fn: fn}
	runPool.Put(run)
}

// attempts is how many times each model is tried.
func (f *Failover) attempts() int {
	switch {
	case f.Attempts == 0:
		return DefaultFailoverAttempts
	case f.Attempts < 0:
		return 1
	}
	return f.Attempts
}

// backoff is the wait before try (from 1: the second attempt of a model
// waits backoff(1)), jittered down by up to half.
func (f *Failover) backoff(try int) time.Duration {
	b := f.Backoff
	switch {
	case b < 0:
		return 0
	case b == 0:
		b = DefaultFailoverBackoff
	}
	for i := 1; i < try && b < time.Hour; i++ {
		b *= 2
	}
	half := b / 2
	return half + time.Duration(rand.Int64N(int64(b-half)+1))
}

// maxWait is the longest wait honoured, negative for none.
func (f *Failover) maxWait() time.Duration {
	if f.MaxWait == 0 {
		return DefaultFailoverMaxWait
	}
	return f.MaxWait
}

// sleep waits d or until ctx ends, whichever is first; false means ctx
// ended.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
