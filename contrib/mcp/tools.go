package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/transport"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools lists every tool the session's server offers, following the
// server's pages, and returns them as agentloop tools in the server's
// order, with [WithFilter]'s choice applied (see the package doc for what
// each field holds). The returned tools call the server through session
// until it is closed; they are safe for concurrent use, and share one
// record of a failed connection (see [ErrConnection]).
//
// Errors: the SDK's error for a failed listing (wrapped, so errors.Is
// finds context errors), [ErrTooManyTools], a [*CollisionError], or an
// input schema that cannot be encoded as JSON. Nothing is returned with an
// error. Error texts mask the [WithSecrets] values.
func Tools(ctx context.Context, session *sdk.ClientSession, opts ...Option) ([]agentloop.Tool, error) {
	c := newConfig(opts)
	if c.err != nil {
		return nil, c.err
	}
	tools, err := list(ctx, session, c)
	return tools, transport.Redact(err, c.secrets...)
}

func list(ctx context.Context, session *sdk.ClientSession, c config) ([]agentloop.Tool, error) {
	if session == nil {
		return nil, fmt.Errorf("mcp: Tools was given a nil session")
	}
	srv := &server{name: serverName(session), session: session, config: c}
	owner := make(map[string]string, len(c.taken)) // offered name → server's name, "" if taken
	for _, n := range c.taken {
		owner[n] = ""
	}
	var out []agentloop.Tool
	listed := 0
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: listing tools: %w", srv.name, err)
		}
		listed++
		if c.maxTools >= 0 && listed > c.maxTools {
			return nil, fmt.Errorf("%w: server %q listed more than %d", ErrTooManyTools, srv.name, c.maxTools)
		}
		if c.filter != nil && !c.filter(t) {
			continue
		}
		name := c.prefix + t.Name
		if other, ok := owner[name]; ok {
			return nil, &CollisionError{Server: srv.name, Name: name, Tool: t.Name, Other: other}
		}
		owner[name] = t.Name
		var schema json.RawMessage
		if t.InputSchema != nil {
			if schema, err = json.Marshal(t.InputSchema); err != nil {
				return nil, fmt.Errorf("mcp: server %q: tool %q: input schema: %w", srv.name, t.Name, err)
			}
		}
		out = append(out, agentloop.Tool{
			Name:          name,
			Description:   t.Description,
			Parameters:    schema,
			NeedsApproval: c.needsApproval(t),
			Run:           srv.caller(t.Name),
		})
	}
	return out, nil
}

// serverName is the name the server gave in its initialize answer, cut
// short since it comes from the server.
func serverName(s *sdk.ClientSession) string {
	const max = 64
	r := s.InitializeResult()
	if r == nil || r.ServerInfo == nil || r.ServerInfo.Name == "" {
		return "unnamed"
	}
	n := r.ServerInfo.Name
	if len(n) > max {
		b := boundedText{max: max}
		b.write(n)
		n = b.b.String() + "..."
	}
	return n
}
