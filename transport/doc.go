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
// No error and no [Event] carries a credential of the request: the value of
// a header whose name marks one (Authorization, Api-Key, X-Api-Key,
// X-Goog-Api-Key, Cookie, any name with "key", "token", "secret", "auth",
// ...), the URL's userinfo, or a secret query value (key, api-key, token,
// sig, ...). net/http's *url.Error has the URL redacted, a bad proxy
// address loses its user and password, and a credential the server echoed
// becomes "REDACTED" in a [StatusError]'s Body and every error text;
// values shorter than 8 bytes are not treated as secrets. Redirects are
// followed as by http.Client (at most 10, the body replayed, each counting
// against the same limits), except that one to another host name (a
// subdomain too) or from https to http drops every credential header. The
// request body is closed, as by http.Client, even on errors; to retry, it
// is replayed through GetBody, or buffered when it has none (up to
// [MaxBufferedRequestBytes]; a longer one disables retries). Each Client has its own connection pool, speaks HTTP/2
// where offered and honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY; it is
// safe for concurrent use, and each response body is for one reading
// goroutine.
package transport
