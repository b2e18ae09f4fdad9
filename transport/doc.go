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
// The body cap counts bytes handed to the caller: a body of exactly the cap
// reads to io.EOF, and the byte after it is never handed on. The low-speed
// rule counts only time the caller spends waiting in Read, so a slow consumer
// is not taken for a dead server. Until the response headers arrive, the rule
// is that they come within the window of each attempt's start. The connect
// timeout is one budget per new connection, shared by the TCP dial and the
// TLS handshake. The request context's cancellation ends Do or a Read at
// once, with an error matching [context.Canceled]; its deadline gives an
// error matching both [ErrTimeout] and [context.DeadlineExceeded].
//
// # Status
//
// The status is checked before any body is handed on: an answer other than
// 2xx is a [*StatusError] with StatusCode, Header and the body read up to
// [MaxErrorBodyBytes], never a stream.
//
// # Retries
//
// A failed attempt is retried (twice by default) only before Do returns:
// connection failures (dial, proxy, TLS handshake, connect timeout) and the
// answers 408, 409, 429 and 5xx (Anthropic's 529 among them), unless the
// server's "x-should-retry" header says otherwise ("false" stops the
// retries, "true" allows one whatever the status). The wait is the server's retry-after-ms or
// Retry-After (seconds or HTTP date), or with neither header the retryDelay
// of a google.rpc.RetryInfo detail in a JSON error body (as Gemini answers a
// 429: {"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo",
// "retryDelay":"7s"}]}}), up to [DefaultMaxRetryAfter], else an
// exponential backoff with jitter; the wait ends with the context. The
// request body is replayed through GetBody, or buffered when it has none.
// Once Do has returned a response, a failure is returned to the reader,
// never retried.
//
// # Secrets
//
// No error and no [Event] carries a credential of the request: the value of
// a header whose name marks one (Authorization, Proxy-Authorization,
// Api-Key, X-Api-Key, X-Goog-Api-Key, Cookie, any name with "key", "token",
// "secret", "auth", ...), the userinfo of the URL, or the value of a secret
// query parameter (key, api-key, api_key, token, sig, ...). The *url.Error
// values of net/http, which print the whole URL, are rewritten with the URL
// redacted; a proxy address that net/http cannot use is printed without its
// user and password; and a credential the server echoed is replaced by
// "REDACTED" in a [StatusError]'s Body and in every error text. Values
// shorter than 8 bytes are not treated as secrets.
//
// # Connections
//
// Each Client has its own pool of connections, speaks HTTP/2 where the server
// offers it, and honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY as
// http.DefaultTransport does. A Client is safe for concurrent use; the body
// of each response is for one reading goroutine, and may be closed from
// another.
package transport
