package transport

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDoProxyErrorKeepsSecrets: a proxy address that does not parse is
// printed by net/http's proxy lookup, password included.
func TestDoProxyErrorKeepsSecrets(t *testing.T) {
	cause := errors.New(`invalid proxy address "http://bob:pa55-word-1234@proxy.test:3128 x": invalid character " " in host name`)
	c := New(WithProxy(func(*http.Request) (*url.URL, error) { return nil, cause }))
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
	_, err := c.Do(req)
	if err == nil || strings.Contains(err.Error(), "pa55-word-1234") || !errors.Is(err, cause) {
		t.Fatalf("err = %v; want the cause in the chain and no password in the text", err)
	}
	if !strings.Contains(err.Error(), "invalid proxy address") {
		t.Errorf("err = %v; the reason was lost", err)
	}
}
