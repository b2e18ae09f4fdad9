package transport

import (
	"net/http"
	"net/url"

	"github.com/airlock-go/airlock/internal/redact"
)

// redactProxy wraps a proxy function so that its errors, which net/http
// returns inside a *url.Error, print no proxy credentials. The cause stays
// reachable for errors.Is and errors.As.
func redactProxy(fn func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	if fn == nil {
		return nil
	}
	return func(r *http.Request) (*url.URL, error) {
		u, err := fn(r)
		if err != nil {
			return nil, redact.Rewrite(err, "proxy: "+redact.Userinfo(err.Error()))
		}
		return u, nil
	}
}
