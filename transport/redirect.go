package transport

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/airlock-go/airlock/internal/redact"
)

// maxRedirects is http.Client's own bound on redirects.
const maxRedirects = 10

// checkRedirect is the Client's redirect policy: http.Client's (at most 10
// redirects), except that the request's credentials go only where they
// were meant to. net/http drops Authorization and cookies when a redirect
// leaves the host, but passes on every other header: the keys of
// Anthropic (x-api-key), Gemini (x-goog-api-key) and Azure (api-key) would
// reach whatever host a redirect names, and the Referer net/http adds is
// the last URL with its query, a "key=" included. So every header that
// carries a credential (by its name, or by a value holding a secret of the
// first request: its secret headers and query values, its userinfo, what
// its maker marked secret) is dropped when a redirect goes to another host
// name, a subdomain included, or from https to http, where it would travel
// in clear text.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("transport: stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	if strings.EqualFold(req.URL.Hostname(), first.Hostname()) && (req.URL.Scheme == "https" || first.Scheme != "https") {
		return nil
	}
	secrets := redact.FromRequest(via[0])
	for name, vals := range req.Header {
		if redact.IsSecretName(name) || slices.ContainsFunc(vals, secrets.Contains) {
			delete(req.Header, name)
		}
	}
	return nil
}
