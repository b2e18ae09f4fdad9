package transport

import (
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "https://api.example.com/v1/chat/completions", "https://api.example.com/v1/chat/completions"},
		{"userinfo dropped", "https://bob:hunter22@api.example.com/v1", "https://api.example.com/v1"},
		{"key", "https://x.test/v1?key=AIzaSy123", "https://x.test/v1?key=REDACTED"},
		{"api-key kept apart from api-version", "https://x.test/?api-version=2024-06-01&api-key=abc", "https://x.test/?api-version=2024-06-01&api-key=REDACTED"},
		{"api_key and token", "https://x.test/?api_key=a&token=b&model=gpt", "https://x.test/?api_key=REDACTED&token=REDACTED&model=gpt"},
		{"case-insensitive", "https://x.test/?API-KEY=a&Access_Token=b", "https://x.test/?API-KEY=REDACTED&Access_Token=REDACTED"},
		{"Azure SAS signature", "https://x.test/?sv=2022&sig=abc%2Bdef", "https://x.test/?sv=2022&sig=REDACTED"},
		{"escaped name", "https://x.test/?api%2Dkey=abc", "https://x.test/?api%2Dkey=REDACTED"},
		{"repeated", "https://x.test/?key=a&key=b", "https://x.test/?key=REDACTED&key=REDACTED"},
		{"name without value", "https://x.test/?key&stream", "https://x.test/?key&stream"},
		{"empty value", "https://x.test/?key=", "https://x.test/?key=REDACTED"},
		{"semicolon separates too", "https://x.test/?model=gpt;api_key=abc&n=1", "https://x.test/?model=gpt;api_key=REDACTED&n=1"},
		{"semicolon in a plain value", "https://x.test/?q=a;b&key=c", "https://x.test/?q=a;b&key=REDACTED"},
		{"trailing separator kept", "https://x.test/?key=a&", "https://x.test/?key=REDACTED&"},
		{"fragment dropped", "https://x.test/p#token=abc", "https://x.test/p"},
		{"unparsable replaced whole", "http://[::1%zz/?key=abc", "REDACTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactURL(tt.in); got != tt.want {
				t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzRedactURL checks that a secret placed in any credential slot of any
// URL never survives redaction, and that redacting twice changes nothing.
func FuzzRedactURL(f *testing.F) {
	f.Add("https://api.example.com/v1?model=x", []byte("sk-123"))
	f.Add("http://127.0.0.1:8080/p?a=b&c", []byte{0xff, 0x00})
	f.Add("/relative?x=1#f", []byte("pw"))
	f.Add("http://[::1]:1/", []byte(""))
	f.Fuzz(func(t *testing.T, base string, seed []byte) {
		// A secret that cannot occur in the base by accident.
		secret := "Zq9SECRET" + hex.EncodeToString(seed) + "Zq9"
		u, err := url.Parse(base)
		if err != nil {
			return
		}
		u.User = url.UserPassword("user", secret)
		q := u.Query()
		q.Add("api-key", secret)
		q.Add("token", secret)
		u.RawQuery = q.Encode() + "&key=" + secret + ";sig=" + secret
		raw := u.String()
		got := redactURL(raw)
		if strings.Contains(got, secret) {
			t.Fatalf("redactURL(%q) = %q keeps the secret", raw, got)
		}
		// Idempotence holds for the URLs requests carry, with a scheme and
		// a host; url.URL.String reshapes some host-less forms such as
		// "//?q" on each round (testdata/fuzz/FuzzRedactURL/2029ab2073123423).
		if again := redactURL(got); u.Scheme != "" && u.Host != "" && again != got {
			t.Fatalf("redacting twice: %q then %q", got, again)
		}
	})
}

func TestRedactError(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	direct := &url.Error{Op: "Post", URL: "https://u:pw-secret@x.test/v1?key=k-secret", Err: dial}
	tests := []struct {
		name string
		in   error
		want string
	}{
		{"url.Error", direct, `Post "https://x.test/v1?key=REDACTED": dial tcp: connection refused`},
		{"wrapped url.Error", errors.Join(errors.New("outer"), direct), `Post "https://x.test/v1?key=REDACTED": dial tcp: connection refused`},
		{"no url.Error", dial, "dial tcp: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redactError(tt.in)
			if got.Error() != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			var op *net.OpError
			if !errors.As(got, &op) {
				t.Error("the cause left the chain")
			}
		})
	}
}

func TestRequestSecrets(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "https://u:password1234@x.test/?key=querykey123&model=gpt-4o-mini&short=1&a=1;token=semi%2Dtoken", nil)
	req.Header.Set("Authorization", "Bearer sk-abcdefgh")
	req.Header.Set("X-Api-Key", "anthropic-key-1")
	req.Header.Set("Api-Key", "tiny")
	got := strings.Join(requestSecrets(req), " | ")
	const want = "Bearer sk-abcdefgh | sk-abcdefgh | anthropic-key-1 | querykey123 | semi-token | password1234"
	if got != want {
		t.Errorf("requestSecrets = %q, want %q", got, want)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes of two-byte runes
	tests := []struct {
		name    string
		body    string
		secrets []string
		want    string
	}{
		{"empty", "", nil, ""},
		{"whitespace collapsed", "{\n  \"error\":\t\"bad\"\r\n}\n", nil, `{ "error": "bad" }`},
		{"control characters dropped", "a\x00b\x1bc", nil, "a b c"},
		{"secret blanked", `{"msg":"key sk-secret-1 is wrong"}`, []string{"sk-secret-1"}, `{"msg":"key REDACTED is wrong"}`},
		{"cut on a rune boundary", "x" + long, nil, "x" + strings.Repeat("é", 127) + "…"},
		{"one under the bound", strings.Repeat("a", errorExcerptBytes-1), nil, strings.Repeat("a", errorExcerptBytes-1)},
		{"at the bound", strings.Repeat("a", errorExcerptBytes), nil, strings.Repeat("a", errorExcerptBytes)},
		{"one over the bound", strings.Repeat("a", errorExcerptBytes+1), nil, strings.Repeat("a", errorExcerptBytes) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := excerpt([]byte(tt.body), tt.secrets); got != tt.want {
				t.Errorf("excerpt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedactUserinfo(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"none", "dial tcp: connection refused", "dial tcp: connection refused"},
		{"quoted proxy URL", `invalid proxy address "http://bob:pa55-word@proxy.test:3128 x": bad`, `invalid proxy address "http://REDACTED@proxy.test:3128 x": bad`},
		{"bare userinfo", `invalid proxy address "bob:pa55-word@proxy.test": bad`, `invalid proxy address "REDACTED@proxy.test": bad`},
		{"two", "a:b@x c:d@y", "REDACTED@x REDACTED@y"},
		{"lone at", "@ x", "@ x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactUserinfo(tt.in); got != tt.want {
				t.Errorf("redactUserinfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

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
