package agentloop

import "context"

// callKey is the context key under which the loop puts the Call a
// Tool.Run answers.
type callKey struct{}

// CallFromContext returns the call a Tool's Run function answers, when
// ctx is (or derives from) the context the loop handed that Run: its
// turn, index, id, tool name and arguments as the model sent them. The
// loop sets it for every call it runs, in parallel or not, so a tool or
// a wrapper around one (a tracer, a logger, an audit trail) can name the
// call it serves without matching names and arguments. ok is false for
// any other context, e.g. when Run is called directly.
func CallFromContext(ctx context.Context) (c Call, ok bool) {
	c, ok = ctx.Value(callKey{}).(Call)
	return c, ok
}
