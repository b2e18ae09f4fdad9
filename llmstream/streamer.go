package llmstream

import "context"

// Streamer is one streaming model call: what [*Client] does, and what
// wrappers of a Client (tracing, failover, a scripted model in a test)
// take and return, so they stack. agentloop's Model has the same method.
//
// Stream sends the request and returns one materialized message, or an
// error. An implementation states its own concurrency; a [*Client] is safe
// for concurrent use.
type Streamer interface {
	Stream(ctx context.Context, r Request) (Message, error)
}

var _ Streamer = (*Client)(nil)
