package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/transport"
)

// TestRedactForms: each secret is hidden in every form a server or a
// library may print it in, and the text around it is kept.
func TestRedactForms(t *testing.T) {
	const secret = "tok/en+with=\"quote\"-9" // "/", "+", "=" and '"' each escape differently
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"raw", []string{secret}, "bad token " + secret + " here", "bad token REDACTED here"},
		{"JSON-escaped", []string{secret}, `{"token":"tok/en+with=\"quote\"-9"}`, `{"token":"REDACTED"}`},
		{"JSON-escaped with \\/", []string{secret}, `{"token":"tok\/en+with=\"quote\"-9"}`, `{"token":"REDACTED"}`},
		{"query-escaped", []string{secret}, "GET /?t=" + url.QueryEscape(secret), "GET /?t=REDACTED"},
		{"path-escaped", []string{secret}, "GET /" + url.PathEscape(secret), "GET /REDACTED"},
		{"one character \\u-escaped", []string{"sk-live-0123456789"}, `key "\u0073k-live-0123456789" refused`, `key "REDACTED" refused`},
		{"one byte %-escaped", []string{"sk-live-0123456789"}, "key=sk%2Dlive-0123456789 refused", "key=REDACTED refused"},
		{"the token of a Bearer value", []string{"Bearer ya29.token-value"}, "token ya29.token-value expired", "token REDACTED expired"},
		{"every secret given", []string{"first-secret-1", "second-secret-2"}, "first-secret-1 then second-secret-2", "REDACTED then REDACTED"},
		{"the longer of two that overlap", []string{"secret-value", "secret-value-longer"}, "secret-value-longer", "REDACTED"},
		// The length bound: one below, at, one above.
		{"7 bytes left alone", []string{"1234567"}, "id 1234567", "id 1234567"},
		{"8 bytes hidden", []string{"12345678"}, "id 12345678", "id REDACTED"},
		{"9 bytes hidden", []string{"123456789"}, "id 123456789", "id REDACTED"},
		{"7 bytes after trimming spaces left alone", []string{"  1234567  "}, "id 1234567", "id 1234567"},
		{"empty secrets", []string{"", ""}, "nothing to hide", "nothing to hide"},
		{"no secrets", nil, "nothing to hide", "nothing to hide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := transport.Redact(errors.New(tt.text), tt.secrets...)
			if got := err.Error(); got != tt.want {
				t.Errorf("Redact(%q, %q) = %q; want %q", tt.text, tt.secrets, got, tt.want)
			}
		})
	}
}

// TestRedactChain: the result answers errors.Is for the whole chain, but
// hands out none of its errors, whose text shows the secret.
func TestRedactChain(t *testing.T) {
	const secret = "sk-chain-secret-01"
	sentinel := errors.New("transport_test: sentinel")
	ue := &url.Error{Op: "Post", URL: "https://host.test/?key=" + secret, Err: context.Canceled}
	err := transport.Redact(fmt.Errorf("%w: %w", sentinel, ue), secret)
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the text shows the secret: %v", err)
	}
	if !errors.Is(err, sentinel) || !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is lost the chain of %v", err)
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("Unwrap hands out %v", errors.Unwrap(err))
	}
	var got *url.Error
	if errors.As(err, &got) {
		t.Errorf("errors.As hands out %v", got)
	}
}

// TestRedactUnchanged: an error without a secret in its text comes back as
// it is, chain and all; a nil error is nil.
func TestRedactUnchanged(t *testing.T) {
	if err := transport.Redact(nil, "sk-some-secret-01"); err != nil {
		t.Errorf("Redact(nil) = %v; want nil", err)
	}
	ue := &url.Error{Op: "Post", URL: "https://host.test/", Err: context.DeadlineExceeded}
	if err := transport.Redact(ue, "sk-absent-secret-01"); err != error(ue) {
		t.Errorf("Redact = %#v; want the error itself", err)
	}
}

// A Doer that adds its own credential keeps it out of the errors of the
// Doer it wraps.
func ExampleRedact() {
	token := "ya29.example-token"
	err := fmt.Errorf("post https://host.test/: server said %q is expired", "Bearer "+token)
	fmt.Println(transport.Redact(err, token))
	// Output:
	// post https://host.test/: server said "Bearer REDACTED" is expired
}
