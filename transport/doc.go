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
// Each limit has a default (an exported constant) and an option whose doc
// gives its unit, what 0 means and the error a breach returns, for
// [errors.Is] with a sentinel and [errors.As] with a struct. Cancelling the
// request's context ends Do or a Read at once ([context.Canceled]). No
// error and no [Event] carries a credential of the request, and no redirect
// to another host (or from https to http) carries one on; [Redact] applies
// the same rule for code that adds a credential of its own (a Doer that
// signs requests). A Client is safe for concurrent use; each response body
// is for one reading goroutine. The README's transport section gives the
// depth.
package transport
