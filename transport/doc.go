// Package transport makes one streaming HTTP exchange with the limits a
// long-lived LLM stream needs: a total timeout, a connect timeout, a
// low-speed rule, a cap on the body, verified TLS, and retries that happen
// only before the caller has seen a byte.
//
// [Client.Do] has the shape of [http.Client.Do], so code that sends requests
// through a one-method interface takes a [*Client] or an [*http.Client]:
//
//	c := transport.New(transport.WithTimeout(0)) // a reasoning model may think for minutes
//	resp, err := c.Do(req)
//	if err != nil { ... }        // *StatusError for a non-2xx answer, with its body
//	defer resp.Body.Close()      // releases the connection and every timer
//	io.Copy(dst, resp.Body)      // the limits apply while reading
//
// # Limits
//
// Each limit has a default (an exported constant) and an option; every breach
// is an error that keeps its cause, for [errors.Is] with a sentinel and
// [errors.As] with a struct:
//
//	limit       default                        option               breach
//	total       60 s (0 = none)                WithTimeout          ErrTimeout, *TimeoutError{Limit: "total"}
//	connect     10 s for dial + TLS (0 = none) WithConnectTimeout   ErrTimeout, *TimeoutError{Limit: "connect"}
//	low speed   under 1 B/s over 30 s          WithLowSpeed         ErrStalled, *StalledError
//	body size   100 MiB (0 = none)             WithMaxStreamBytes   ErrStreamTooLarge, *StreamTooLargeError
//	retries     2 (0 = none)                   WithRetry            the last attempt's error
//	server wait 30 s                           WithMaxRetryAfter    the answer's *StatusError
//
// The cap counts bytes handed to the caller (exactly the cap is allowed);
// the low-speed rule counts only time spent waiting in Read, so a slow
// consumer is not taken for a dead server; the connect timeout is one
// budget for the dial and the TLS handshake. Cancelling the request's
// context ends Do or a Read at once ([context.Canceled]); its deadline
// gives [ErrTimeout] and [context.DeadlineExceeded].
//
// Only 2xx answers are handed on; any other is a [*StatusError] with its
// body. A failed attempt is retried only before Do returns — connection
// failures and the answers 408, 409, 429 and 5xx, as the server's
// "x-should-retry" allows — after the server's wait (retry-after-ms,
// Retry-After, or a google.rpc.RetryInfo retryDelay in a JSON error body)
// up to [DefaultMaxRetryAfter], else an exponential backoff with jitter.
// Once a body has been handed on, nothing is retried.
//
// # Secrets and connections
//
// No error and no [Event] carries a credential of the request, and no
// redirect to another host (or from https to http) carries one on (see
// [Client.Do]); [Redact] applies the same rule for code that adds a
// credential of its own, such as a Doer that signs requests. Each Client
// has its own connection pool, speaks HTTP/2 where offered and honours
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY; it is safe for concurrent use, and
// each response body is for one reading goroutine.
package transport
