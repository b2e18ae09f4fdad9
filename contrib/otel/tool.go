package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/airlock-go/airlock/agentloop"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// WrapTools returns copies of tools whose Run is traced: each call gets an
// INTERNAL span "execute_tool {name}" with gen_ai.tool.name, .description,
// .type ("function") and, under [Run], gen_ai.tool.call.id; with
// [WithContent], the arguments and result too. The span's context is the
// parent of whatever Run traces. A failed call has error.type and an Error
// status; a panic is recorded as error.type "tool_panic" and goes on up,
// to the loop that recovers it.
//
// Run takes no call id, so a tool learns it only under [Run], whose hooks
// hand each call's id to the wrapped tool that runs it (calls of the same
// tool with the same arguments are alike, and may swap ids when they run
// in parallel). Tools wrapped twice (by WrapTools and again by Run) get
// one span per call. The tools keep every other field.
func WrapTools(tools []agentloop.Tool, opts ...Option) []agentloop.Tool {
	cfg := newConfig(opts)
	t := toolTracer{tracer: cfg.tracerProvider.Tracer(instrumentationName), content: cfg.content}
	out := make([]agentloop.Tool, len(tools))
	for i, tool := range tools {
		out[i] = tool
		if tool.Run != nil {
			out[i].Run = t.wrap(tool)
		}
	}
	return out
}

type toolTracer struct {
	tracer  trace.Tracer
	content bool
}

// inToolSpan marks a context that is already inside a tool call's span.
type inToolSpan struct{}

func (t toolTracer) wrap(tool agentloop.Tool) func(context.Context, json.RawMessage) (string, error) {
	run, name, desc := tool.Run, tool.Name, tool.Description
	return func(ctx context.Context, args json.RawMessage) (out string, err error) {
		if ctx.Value(inToolSpan{}) != nil {
			return run(ctx, args)
		}
		attrs := []attribute.KeyValue{keyOperation.String(opExecuteTool), keyToolName.String(name), keyToolType.String("function")}
		if desc != "" {
			attrs = append(attrs, keyToolDescription.String(desc))
		}
		if calls, _ := ctx.Value(pendingKey{}).(*pendingCalls); calls != nil {
			if id := calls.take(name, args); id != "" {
				attrs = append(attrs, keyToolCallID.String(id))
			}
		}
		if t.content {
			attrs = append(attrs, keyToolArguments.String(string(args)))
		}
		ctx, span := t.tracer.Start(ctx, opExecuteTool+" "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		ctx = context.WithValue(ctx, inToolSpan{}, true)
		panicked := true
		defer func() {
			switch {
			case panicked:
				span.SetAttributes(keyErrorType.String("tool_panic"))
				span.SetStatus(codes.Error, "tool_panic")
			case err != nil:
				failSpan(span, err, t.content)
			case t.content:
				span.SetAttributes(keyToolResult.String(out))
			}
			span.End()
		}()
		out, err = run(ctx, args)
		panicked = false
		return out, err
	}
}

// pendingKey is the context key of a run's pendingCalls.
type pendingKey struct{}

// pendingCalls hands call ids from the loop's BeforeTool hook to the
// wrapped tool that runs the call, matched by tool name and arguments in
// the order the calls were announced.
type pendingCalls struct {
	mu  sync.Mutex
	ids map[string][]string
}

// callKey is a call's tool name and its arguments as the loop hands them
// to Run: trimmed of white space, "{}" when empty.
func callKey(name string, args []byte) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	return name + "\x00" + string(args)
}

func (p *pendingCalls) put(name, args, id string) {
	k := callKey(name, []byte(args))
	p.mu.Lock()
	p.ids[k] = append(p.ids[k], id)
	p.mu.Unlock()
}

// take removes and returns the first id announced for the call, "" if none.
func (p *pendingCalls) take(name string, args []byte) string {
	k := callKey(name, args)
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.ids[k]
	if len(ids) == 0 {
		return ""
	}
	if len(ids) == 1 {
		delete(p.ids, k)
	} else {
		p.ids[k] = ids[1:]
	}
	return ids[0]
}

// drop removes id if no tool took it (a call refused before it ran).
func (p *pendingCalls) drop(name, args, id string) {
	k := callKey(name, []byte(args))
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.ids[k]
	for i, v := range ids {
		if v == id {
			ids = append(ids[:i:i], ids[i+1:]...)
			break
		}
	}
	if len(ids) == 0 {
		delete(p.ids, k)
	} else {
		p.ids[k] = ids
	}
}
