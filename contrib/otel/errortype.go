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
	failSpanKind(span, llmstream.KindOf(err), err, content)
}

// failSpanKind is failSpan with the kind known, for a failure with no
// error value (a panic).
func failSpanKind(span trace.Span, k llmstream.ErrorKind, err error, content bool) {
	et := errorType(k)
	span.SetAttributes(keyErrorType.String(et))
	desc := et
	if content && err != nil {
		desc = err.Error()
	}
	span.SetStatus(codes.Error, desc)
}

// errorTypeOther is the conventions' error.type for an error of no known kind.
const errorTypeOther = "_OTHER"

// errorType is the error.type of an error of kind k: the kind's name, one
// to one, and the conventions' "_OTHER" for [llmstream.ErrorUnknown].
func errorType(k llmstream.ErrorKind) string {
	if k == llmstream.ErrorUnknown {
		return errorTypeOther
	}
	return k.String()
}
