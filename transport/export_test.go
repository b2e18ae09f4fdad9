package transport

import (
	"context"
	"net"
)

// PipeListener is the in-memory network of the tests that run in a
// testing/synctest bubble; see pipeListener.
type PipeListener = pipeListener

// NewPipeListener returns a PipeListener that accepts what its DialContext
// dials.
func NewPipeListener() *PipeListener { return newPipeListener() }

// UseDial makes c's TCP connections with dial, under c's connect budget.
func UseDial(c *Client, dial func(ctx context.Context, network, addr string) (net.Conn, error)) {
	c.useDial(dial)
}
