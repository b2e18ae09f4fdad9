package otel

import (
	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// failSpan marks span failed by err: error.type and an Error status whose
// description is the error's text only when contents are recorded (an
// error may quote them), else the error.type again.
func failSpan(span trace.Span, err error, content bool) {
	desc := errorType(err)
	span.SetAttributes(keyErrorType.String(desc))
	if content {
		desc = err.Error()
	}
	span.SetStatus(codes.Error, desc)
}

// errorType is err's error.type: the name of its [llmstream.KindOf], one
// to one, and the conventions' "_OTHER" for [llmstream.ErrorUnknown].
func errorType(err error) string {
	if k := llmstream.KindOf(err); k != llmstream.ErrorUnknown {
		return k.String()
	}
	return "_OTHER"
}
