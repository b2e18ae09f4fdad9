package otel

import (
	"context"
	"encoding/json"

	"github.com/airlock-go/airlock/agentloop"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// WrapTools returns copies of tools whose Run is traced: each call gets an
// INTERNAL span "execute_tool {name}" with gen_ai.tool.name, .description,
// .type ("function") and, when an agentloop.Loop runs it, the call's
// gen_ai.tool.call.id (from [agentloop.CallFromContext]); with
// [WithContent], the arguments and result too. The span's context is the
// parent of whatever Run traces. A failed call has error.type and an Error
// status; a panic is recorded as error.type "tool" and goes on up,
// to the loop that recovers it.
//
// Tools wrapped twice (by WrapTools and again by Run) get one span per
// call. The tools keep every other field.
func WrapTools(tools []agentloop.Tool, opts ...Option) []agentloop.Tool {
	cfg := newConfig(nil, opts)
	tracer := cfg.tracerProvider.Tracer(instrumentationName)
	out := make([]agentloop.Tool, len(tools))
	for i, tool := range tools {
		out[i] = tool
		if tool.Run != nil {
			out[i] = traced(tracer, cfg.content, tool)
		}
	}
	return out
}

// inToolSpan marks a context that is already inside a tool call's span.
type inToolSpan struct{}

// traced returns tool with its Run in a span.
func traced(tracer trace.Tracer, content bool, tool agentloop.Tool) agentloop.Tool {
	run, name, desc := tool.Run, tool.Name, tool.Description
	tool.Run = func(ctx context.Context, args json.RawMessage) (out string, err error) {
		if ctx.Value(inToolSpan{}) != nil {
			return run(ctx, args)
		}
		attrs := []attribute.KeyValue{keyOperation.String(opExecuteTool), keyToolName.String(name), keyToolType.String("function")}
		if desc != "" {
			attrs = append(attrs, keyToolDescription.String(desc))
		}
		if c, ok := agentloop.CallFromContext(ctx); ok && c.ID != "" {
			attrs = append(attrs, keyToolCallID.String(c.ID))
		}
		if content {
			attrs = append(attrs, keyToolArguments.String(string(args)))
		}
		ctx, span := tracer.Start(ctx, opExecuteTool+" "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		ctx = context.WithValue(ctx, inToolSpan{}, true)
		panicked := true
		defer func() {
			switch {
			case panicked:
				failSpan(span, &agentloop.ToolError{Name: name, Err: agentloop.ErrToolPanic}, false)
			case err != nil:
				failSpan(span, err, content)
			case content:
				span.SetAttributes(keyToolResult.String(out))
			}
			span.End()
		}()
		out, err = run(ctx, args)
		panicked = false
		return out, err
	}
	return tool
}
