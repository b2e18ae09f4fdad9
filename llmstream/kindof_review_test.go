package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// TestReviewKindOfDialTimeout: a dial that ran out of its own time is
// not the caller's deadline, though the net package makes its "i/o
// timeout" match context.DeadlineExceeded: bare, it is a connection
// failure; as the transport's connect timeout, a timeout. Both are
// retried by a Failover. The caller's own deadline stays its kind.
func TestReviewKindOfDialTimeout(t *testing.T) {
	_, dialErr := (&net.Dialer{Timeout: time.Nanosecond}).Dial("tcp", "10.255.255.1:80")
	if dialErr == nil || !errors.Is(dialErr, context.DeadlineExceeded) {
		t.Skipf("this Go's dial timeout %v does not match DeadlineExceeded", dialErr)
	}
	wrapped := &url.Error{Op: "Post", URL: "https://example.invalid", Err: dialErr}
	tests := []struct {
		err  error
		want llmstream.ErrorKind
	}{
		{dialErr, llmstream.ErrorConnection},
		{wrapped, llmstream.ErrorConnection},
		{&transport.TimeoutError{Limit: transport.LimitConnect, After: time.Second, Err: wrapped}, llmstream.ErrorTimeout},
		{&transport.TimeoutError{Limit: transport.LimitContext, Err: context.DeadlineExceeded}, llmstream.ErrorDeadlineExceeded},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), llmstream.ErrorDeadlineExceeded},
		{errors.Join(dialErr, context.DeadlineExceeded), llmstream.ErrorDeadlineExceeded},
		{&transport.TimeoutError{Limit: transport.LimitTotal, After: time.Second}, llmstream.ErrorTimeout},
	}
	for _, tt := range tests {
		if got := llmstream.KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	calls := 0
	m := streamerFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
		calls++
		if calls == 1 {
			return llmstream.Message{}, tests[2].err
		}
		return llmstream.Message{Role: "assistant", Content: "ok"}, nil
	})
	got, err := (&llmstream.Failover{Models: []llmstream.Streamer{m}, Backoff: -1}).Stream(context.Background(), llmstream.Request{})
	if err != nil || got.Content != "ok" {
		t.Fatalf("a connect timeout was not retried: %q, %v after %d calls", got.Content, err, calls)
	}
}

// TestReviewKindOfOrder: an error matching several sentinels takes the
// first in the documented order.
func TestReviewKindOfOrder(t *testing.T) {
	tests := []struct {
		err  error
		want llmstream.ErrorKind
	}{
		{errors.Join(llmstream.ErrInterrupted, llmstream.ErrAborted), llmstream.ErrorAborted},
		{errors.Join(context.Canceled, llmstream.ErrIdleTimeout), llmstream.ErrorStalled},
		{errors.Join(llmstream.ErrInterrupted, context.Canceled), llmstream.ErrorCanceled},
		{errors.Join(llmstream.ErrInterrupted, transport.ErrTimeout), llmstream.ErrorTimeout},
		{errors.Join(context.DeadlineExceeded, transport.ErrTimeout), llmstream.ErrorDeadlineExceeded},
		{errors.Join(context.Canceled, &llmstream.APIError{Kind: llmstream.ErrorRateLimited}), llmstream.ErrorRateLimited},
		{&transport.StatusError{StatusCode: 429}, llmstream.ErrorRateLimited},
		{nil, llmstream.ErrorUnknown},
		{errors.New("x"), llmstream.ErrorUnknown},
	}
	for _, tt := range tests {
		if got := llmstream.KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
