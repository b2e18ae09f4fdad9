package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is what the tools of one [Tools] list share: the session, the
// configuration, and the first connection failure.
type server struct {
	name    string
	session *sdk.ClientSession
	config  config

	mu     sync.Mutex
	broken error // ErrConnection wrapping the first failure, naming its tool
}

// caller returns the Run function of the server's tool named tool.
func (s *server) caller(tool string) func(context.Context, json.RawMessage) (string, error) {
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		out, err := s.call(ctx, tool, args)
		if err == nil {
			return out, nil
		}
		// The names in the error came from the server too.
		var rec *agentloop.RecoverableError
		if errors.As(err, &rec) {
			return "", agentloop.Recoverable(transport.Redact(rec.Err, s.config.secrets...))
		}
		return "", transport.Redact(err, s.config.secrets...)
	}
}

func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	fail := func(err error) error {
		return &CallError{Server: s.name, Tool: tool, Err: transport.Redact(err, s.config.secrets...)}
	}
	s.mu.Lock()
	broken := s.broken // a connection failure of an earlier call
	s.mu.Unlock()
	if broken != nil {
		return "", fail(broken)
	}
	res, err := s.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	var wire *jsonrpc.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		// Cut by the loop's timeout or a cancelled run, not the server's
		// fault: the connection may serve the next call.
		return "", fail(context.Cause(ctx))
	case errors.As(err, &wire) && !errors.Is(err, sdk.ErrConnectionClosed):
		// The server answered: it is alive.
		if wire.Code == jsonrpc.CodeInvalidParams {
			return "", agentloop.Recoverable(fail(err))
		}
		return "", fail(err)
	case !errors.Is(err, sdk.ErrConnectionClosed) && s.session.Ping(ctx, nil) == nil:
		// An answer came that the SDK could not read (a content type it
		// does not know): the server is alive and this call alone failed.
		return "", agentloop.Recoverable(fail(fmt.Errorf("%w: %w", ErrBadResult, err)))
	case ctx.Err() != nil:
		return "", fail(context.Cause(ctx)) // ended while the ping waited
	default:
		// No answer: the SDK's closed connection, or the transport's own
		// error (a closed pipe, a dead process) when the failure is seen
		// first by this call.
		return "", fail(s.fail(tool, err))
	}
	out := render(res, s.config.maxOutputBytes)
	if res.IsError {
		return "", agentloop.Recoverable(fail(fmt.Errorf("%w: %s", ErrToolFailed, out)))
	}
	return out, nil
}

// fail records a connection failure of a call to tool and returns it; the
// first one recorded stays.
func (s *server) fail(tool string, cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken == nil {
		s.broken = fmt.Errorf("%w (call of %q): %w", ErrConnection, tool, cause)
	}
	return s.broken
}
