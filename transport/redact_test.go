package transport

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/internal/redact"
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

// TestRedirectDropsCredentials: net/http drops only Authorization and
// cookies when a redirect leaves the host; the keys of Anthropic
// (x-api-key), Gemini (x-goog-api-key) and Azure (api-key) would go to the
// other host, and every credential would go in clear text on a redirect
// from https to http; and net/http's Referer carries the query's key.
func TestRedirectDropsCredentials(t *testing.T) {
	creds := http.Header{
		"Authorization":  {"Bearer sk-redirect-0001"},
		"X-Api-Key":      {"sk-ant-redirect-0002"},
		"X-Goog-Api-Key": {"AIza-redirect-0003"},
		"Api-Key":        {"azure-redirect-0004"},
		"X-Portal-Id":    {"marked-secret-0005"}, // named secret by the request's maker
	}
	var got http.Header
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer target.Close()
	targetHost := strings.Replace(target.URL, "127.0.0.1", "localhost", 1)
	tests := []struct {
		name, to string
		kept     bool
	}{
		{"same host", target.URL, true},
		{"another host", targetHost, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.to+"/next", http.StatusTemporaryRedirect)
			}))
			defer from.Close()
			c := New()
			defer c.CloseIdleConnections()
			ctx := redact.NewContext(t.Context(), redact.New("marked-secret-0005"))
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, from.URL+"?key=query-secret-0006", strings.NewReader("{}"))
			for k, v := range creds {
				req.Header[k] = v
			}
			req.Header.Set("X-Title", "kept-everywhere")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got.Get("X-Title") != "kept-everywhere" {
				t.Fatalf("the redirect did not reach the target: %v", got)
			}
			for k := range creds {
				if has := got.Get(k) != ""; has != tt.kept {
					t.Errorf("header %s reached the target: %v, want %v", k, has, tt.kept)
				}
			}
			// net/http sends the last URL, query and all, as the Referer.
			if has := strings.Contains(got.Get("Referer"), "query-secret-0006"); has != tt.kept {
				t.Errorf("the query key reached the target in the Referer: %v, want %v", has, tt.kept)
			}
		})
	}
}

func TestCheckRedirect(t *testing.T) {
	tests := []struct {
		name, from, to string
		kept           bool
	}{
		{"same host", "https://api.test/v1", "https://api.test/v2", true},
		{"another port", "https://api.test/v1", "https://api.test:8443/v1", true},
		{"http to https", "http://api.test/v1", "https://api.test/v1", true},
		{"https to http", "https://api.test/v1", "http://api.test/v1", false},
		{"a subdomain", "https://api.test/v1", "https://evil.api.test/v1", false},
		{"the parent domain", "https://eu.api.test/v1", "https://api.test/v1", false},
		{"host case", "https://API.test/v1", "https://api.TEST/v1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := httptest.NewRequest(http.MethodPost, tt.from, nil)
			req := httptest.NewRequest(http.MethodPost, tt.to, nil)
			req.Header.Set("X-Api-Key", "sk-ant-redirect-1")
			if err := checkRedirect(req, []*http.Request{first}); err != nil {
				t.Fatal(err)
			}
			if kept := req.Header.Get("X-Api-Key") != ""; kept != tt.kept {
				t.Errorf("key kept: %v, want %v", kept, tt.kept)
			}
		})
	}
	first := httptest.NewRequest(http.MethodPost, "https://api.test/", nil)
	req := httptest.NewRequest(http.MethodPost, "https://api.test/", nil)
	for _, n := range []int{9, 10, 11} {
		via := make([]*http.Request, n)
		for i := range via {
			via[i] = first
		}
		if err := checkRedirect(req, via); (err == nil) != (n < 10) {
			t.Errorf("redirect after %d: err = %v", n, err)
		}
	}
}
