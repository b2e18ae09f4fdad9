package mcp

import (
	"context"
	"errors"
	"testing"
)

func TestRedact(t *testing.T) {
	cause := errors.New("dial tok-1: refused; tok-1 again; tok-22")
	err := redact(cause, []string{"tok-1", "tok-22"})
	if got, want := err.Error(), "dial [REDACTED]: refused; [REDACTED] again; [REDACTED]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Error("the chain was lost")
	}
	if err := redact(context.Canceled, []string{"tok-1"}); err != context.Canceled {
		t.Errorf("a text with no secret changed: %v", err)
	}
	if redact(nil, []string{"x"}) != nil {
		t.Error("nil became an error")
	}
}
