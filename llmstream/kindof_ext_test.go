package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
)

// TestKindOfStreams: every way a real stream fails, in every dialect, gets
// its one kind, and the kind says whether to retry as ErrInterrupted and
// APIError.Retryable do.
func TestKindOfStreams(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "one two three four", ToolCalls: []llmstreamtest.Call{{Name: "f", Arguments: `{"a":1}`}}}
	fault := func(f llmstreamtest.Fault) llmstreamtest.Turn {
		t := turn
		t.Fault = f
		return t
	}
	stall := fault(llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 6})
	noRetry := transport.WithRetry(0, 0, 0)
	tests := []struct {
		name string
		turn llmstreamtest.Turn
		opts []llmstream.ClientOption
		ctx  func(context.Context) (context.Context, context.CancelFunc)
		want llmstream.ErrorKind
	}{
		{"cut", fault(llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 6}), nil, nil, llmstream.ErrorInterrupted},
		{"truncated", fault(llmstreamtest.Fault{Kind: llmstreamtest.FaultTruncate, After: 6}), nil, nil, llmstream.ErrorInterrupted},
		{"low speed", stall, opts(llmstream.WithHTTPClient(transport.New(noRetry, transport.WithLowSpeed(1, 100*time.Millisecond)))), nil, llmstream.ErrorStalled},
		{"idle", stall, opts(llmstream.WithIdleTimeout(100 * time.Millisecond)), nil, llmstream.ErrorStalled},
		{"idle, *http.Client", stall, opts(llmstream.WithIdleTimeout(100*time.Millisecond), llmstream.WithHTTPClient(&http.Client{})), nil, llmstream.ErrorStalled},
		{"total timeout", stall, opts(llmstream.WithHTTPClient(transport.New(noRetry, transport.WithTimeout(150*time.Millisecond)))), nil, llmstream.ErrorTimeout},
		{"cancel", stall, nil, func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, llmstream.ErrorCanceled},
		{"deadline", stall, nil, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}, llmstream.ErrorDeadlineExceeded},
		{"deadline, *http.Client", stall, opts(llmstream.WithHTTPClient(&http.Client{})), func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}, llmstream.ErrorDeadlineExceeded},
		{"rate limited", fault(llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 429}), opts(llmstream.WithHTTPClient(transport.New(noRetry))), nil, llmstream.ErrorRateLimited},
		{"malformed", fault(llmstreamtest.Fault{Kind: llmstreamtest.FaultMalformed, After: 2}), nil, nil, llmstream.ErrorBadResponse},
		{"callback", turn, opts(llmstream.WithOnDelta(func(llmstream.Delta) error { return errStop })), nil, llmstream.ErrorAborted},
		{"callback cancels", turn, opts(llmstream.WithOnDelta(func(llmstream.Delta) error { return context.Canceled })), nil, llmstream.ErrorAborted},
		{"event too large", turn, opts(llmstream.WithSSEOptions(sse.WithMaxEventSize(16))), nil, llmstream.ErrorLimit},
		{"too many calls", llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "f", Arguments: `{}`}, {Name: "g", Arguments: `{}`}}}, opts(llmstream.WithToolCallOptions(toolcall.WithMaxCalls(1))), nil, llmstream.ErrorLimit},
		{"arguments too large", llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "f", Arguments: `{"a":"0123456789012345678901234567890123456789"}`}}}, opts(llmstream.WithToolCallOptions(toolcall.WithMaxArgumentBytes(8))), nil, llmstream.ErrorLimit},
		{"stream too large", turn, opts(llmstream.WithHTTPClient(transport.New(noRetry, transport.WithMaxStreamBytes(64)))), nil, llmstream.ErrorLimit},
	}
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses, llmstream.DialectGemini, llmstream.DialectBedrock} {
		for _, tt := range tests {
			t.Run(d.String()+"/"+tt.name, func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(tt.turn))
				ctx := t.Context()
				if tt.ctx != nil {
					var cancel context.CancelFunc
					ctx, cancel = tt.ctx(ctx)
					defer cancel()
				}
				o := append(opts(llmstream.WithBaseURL(srv.URL), llmstream.WithDialect(d), llmstream.WithModel("m")), tt.opts...)
				_, err := llmstream.NewClient(o...).Stream(ctx, llmstream.Request{})
				want := tt.want
				switch {
				case d == llmstream.DialectBedrock && tt.name == "malformed":
					// A frame that fails its CRC broke in transit.
					want = llmstream.ErrorInterrupted
				}
				if got := llmstream.KindOf(err); got != want {
					t.Fatalf("KindOf(%v) = %v, want %v", err, got, want)
				}
				var api *llmstream.APIError
				retry := errors.Is(err, llmstream.ErrInterrupted) || errors.As(err, &api) && api.Retryable()
				if got := want.Retryable(); got != retry {
					t.Errorf("%v.Retryable() = %v; ErrInterrupted or APIError.Retryable says %v (%v)", want, got, retry, err)
				}
			})
		}
	}
}

// TestKindOfLocal: the errors made before anything is sent, and those of
// no stream, get their kind.
func TestKindOfLocal(t *testing.T) {
	refused := func() error {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, err = llmstream.NewClient(llmstream.WithBaseURL("http://"+addr), llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0)))).Stream(t.Context(), llmstream.Request{})
		return err
	}()
	stream := func(o ...llmstream.ClientOption) error {
		_, err := llmstream.NewClient(o...).Stream(t.Context(), llmstream.Request{})
		return err
	}
	var zero llmstream.Client
	_, zeroErr := zero.Stream(t.Context(), llmstream.Request{})
	tests := []struct {
		name string
		err  error
		want llmstream.ErrorKind
	}{
		{"nil", nil, llmstream.ErrorUnknown},
		{"plain", errors.New("x"), llmstream.ErrorUnknown},
		{"refused", refused, llmstream.ErrorConnection},
		{"bad arguments", streamTurn(t, llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "f", Arguments: `{"a":`}}}), llmstream.ErrorInvalidToolCalls},
		{"overloaded event", streamTurn(t, llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, Type: "overloaded_error"}}), llmstream.ErrorOverloaded},
		{"bad base URL", stream(llmstream.WithBaseURL("ftp://x")), llmstream.ErrorInvalidRequest},
		{"zero client", zeroErr, llmstream.ErrorMisuse},
		{"bad option", stream(llmstream.WithBaseURL("http://127.0.0.1:1"), llmstream.WithHTTPClient(transport.New(transport.WithMaxStreamBytes(-1)))), llmstream.ErrorMisuse},
		{"proxy 502", &transport.StatusError{StatusCode: 502}, llmstream.ErrorServer},
		{"proxy 429", fmt.Errorf("x: %w", &transport.StatusError{StatusCode: 429}), llmstream.ErrorRateLimited},
		{"proxy 418", &transport.StatusError{StatusCode: 418}, llmstream.ErrorUnknown},
		{"frame CRC", fmt.Errorf("x: %w", eventstream.ErrBadMessageCRC), llmstream.ErrorBadResponse},
		{"frame too large", eventstream.ErrFrameTooLarge, llmstream.ErrorLimit},
		{"headers too large", eventstream.ErrHeadersTooLarge, llmstream.ErrorLimit},
		{"out of order", &llmstream.EventError{Err: llmstream.ErrOutOfOrder}, llmstream.ErrorBadResponse},
		{"not an event stream", &llmstream.ContentTypeError{StatusCode: 200}, llmstream.ErrorBadResponse},
		{"closed sse reader", sse.ErrClosed, llmstream.ErrorMisuse},
		{"kind carried", fmt.Errorf("x: %w", kinded{llmstream.ErrorTool, context.Canceled}), llmstream.ErrorTool},
		{"kind carried over an APIError", kinded{llmstream.ErrorLimit, &llmstream.APIError{Kind: llmstream.ErrorServer}}, llmstream.ErrorLimit},
		{"APIError over a cancel", errors.Join(context.Canceled, &llmstream.APIError{Kind: llmstream.ErrorOverloaded}), llmstream.ErrorOverloaded},
	}
	for _, tt := range tests {
		if got := llmstream.KindOf(tt.err); got != tt.want {
			t.Errorf("%s: KindOf(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// streamTurn is the error of a chat stream of turn.
func streamTurn(t *testing.T, turn llmstreamtest.Turn) error {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(turn))
	_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL)).Stream(t.Context(), llmstream.Request{})
	return err
}

// kinded is an error of a package above llmstream that names its kind.
type kinded struct {
	kind llmstream.ErrorKind
	err  error
}

func (k kinded) Error() string             { return k.err.Error() }
func (k kinded) Unwrap() error             { return k.err }
func (k kinded) Kind() llmstream.ErrorKind { return k.kind }

// TestErrorKindNames: every kind has its own name, the old ones kept theirs
// and their values, and a value past the last prints its number.
func TestErrorKindNames(t *testing.T) {
	old := []string{"unknown", "rate_limited", "overloaded", "authentication", "permission", "invalid_request", "context_length", "not_found", "content_filtered", "server_error"}
	for i, name := range old {
		if got := llmstream.ErrorKind(i).String(); got != name {
			t.Errorf("ErrorKind(%d) = %q, want %q", i, got, name)
		}
	}
	seen := map[string]llmstream.ErrorKind{}
	k := llmstream.ErrorKind(0)
	for ; k < 255; k++ {
		name := k.String()
		if name == fmt.Sprintf("ErrorKind(%d)", k) {
			break
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("%d and %d are both %q", prev, k, name)
		}
		seen[name] = k
	}
	if k != llmstream.ErrorTool+1 {
		t.Errorf("the named kinds end at %d, want after ErrorTool (%d)", k, llmstream.ErrorTool)
	}
}
