package llmstream

import (
	"context"
	"errors"
	"net"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
)

// KindOf names the kind of err, any error airlock returns, so that a
// retry policy, a tracer or a durable host switches on one value instead
// of listing sentinels (in the spirit of connect-go's CodeOf). It looks
// down err's chain and decides in this order:
//
//   - an error with a method Kind() ErrorKind gives its own kind: so do
//     the errors of packages above this one (agentloop's limit and tool
//     errors), which this package cannot import;
//   - a provider's [*APIError] gives its Kind;
//   - [ErrAborted], then the stall of [ErrIdleTimeout] or
//     transport.ErrStalled, then the caller's [context.Canceled] and
//     [context.DeadlineExceeded] (not the net package's "i/o timeout"
//     of a dial, which matches it too: that is a connection failing),
//     then transport.ErrTimeout, then [ErrInterrupted];
//   - the answer, size, tool-call and misuse sentinels listed on each kind;
//   - an HTTP error answer of no provider's shape (*transport.StatusError)
//     by its status, as an APIError's status is read;
//   - any other net.Error is [ErrorConnection];
//
// and [ErrorUnknown] for the rest, nil included. KindOf only reads the
// chain: it never changes err.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ErrorUnknown
	}
	var kinded interface{ Kind() ErrorKind }
	if errors.As(err, &kinded) {
		return kinded.Kind()
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.Kind
	}
	for _, s := range sentinelKinds {
		if s.err == context.DeadlineExceeded {
			if callerDeadline(err) {
				return s.kind
			}
			continue
		}
		if errors.Is(err, s.err) {
			return s.kind
		}
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		return statusKind(se.StatusCode)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return ErrorConnection
	}
	return ErrorUnknown
}

// sentinelKinds are the sentinels KindOf knows, in the order it tries
// them: the most specific first, since an error may match several (an
// idle timeout is a cancelled context too, a truncated stream an
// interrupted one, a total timeout mid-body an interrupted one).
var sentinelKinds = [...]struct {
	err  error
	kind ErrorKind
}{
	{ErrAborted, ErrorAborted},
	{ErrIdleTimeout, ErrorStalled},
	{transport.ErrStalled, ErrorStalled},
	{context.Canceled, ErrorCanceled},
	{transport.ErrBodyClosed, ErrorCanceled}, // the caller closed the body
	{context.DeadlineExceeded, ErrorDeadlineExceeded},
	{transport.ErrTimeout, ErrorTimeout},
	{ErrInterrupted, ErrorInterrupted},

	{sse.ErrEventTooLarge, ErrorLimit},
	{eventstream.ErrFrameTooLarge, ErrorLimit},
	{eventstream.ErrHeadersTooLarge, ErrorLimit},
	{transport.ErrStreamTooLarge, ErrorLimit},
	{toolcall.ErrTooManyCalls, ErrorLimit},
	{toolcall.ErrArgumentsTooLarge, ErrorLimit},

	{ErrBadEvent, ErrorBadResponse},
	{ErrNotEventStream, ErrorBadResponse},
	{eventstream.ErrBadLength, ErrorBadResponse},
	{eventstream.ErrBadPreludeCRC, ErrorBadResponse},
	{eventstream.ErrBadMessageCRC, ErrorBadResponse},
	{eventstream.ErrBadHeader, ErrorBadResponse},
	{eventstream.ErrTruncated, ErrorInterrupted},
	{sse.ErrBadReadCount, ErrorBadResponse},
	{eventstream.ErrBadReadCount, ErrorBadResponse},

	{toolcall.ErrInvalidArguments, ErrorInvalidToolCalls},
	{toolcall.ErrInvalidIndex, ErrorInvalidToolCalls},
	{toolcall.ErrInvalidExtra, ErrorInvalidToolCalls},

	{ErrInvalidRequest, ErrorInvalidRequest},
	{ErrMisuse, ErrorMisuse},
	{transport.ErrMisuse, ErrorMisuse},
	{transport.ErrInvalidOption, ErrorMisuse},
	{sse.ErrInvalidOption, ErrorMisuse},
	{sse.ErrNoSource, ErrorMisuse},
	{sse.ErrClosed, ErrorMisuse},
	{eventstream.ErrInvalidOption, ErrorMisuse},
	{eventstream.ErrNoSource, ErrorMisuse},
	{eventstream.ErrClosed, ErrorMisuse},
}

// callerDeadline reports [context.DeadlineExceeded] in err's chain
// outside any *net.OpError, whose "i/o timeout" matches it too (see KindOf).
func callerDeadline(err error) bool {
	for err != nil {
		if err == context.DeadlineExceeded {
			return true
		}
		if _, ok := err.(*net.OpError); ok {
			return false
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(context.DeadlineExceeded) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if callerDeadline(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
