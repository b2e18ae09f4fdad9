package llmstreamtest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestOptionError: an invalid option fails every request with an
// *OptionError naming the option, matching ErrInvalidOption and the
// deprecated ErrBadOption alike; a valid one at its edge does not.
func TestOptionError(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string // the error text; "" for a valid option
	}{
		{"unknown flavour", WithFlavor(flavorEnd), "llmstreamtest: invalid option llmstreamtest.WithFlavor(Flavor(7)): the flavor is unknown (request 1)"},
		{"body limit -1", WithMaxRequestBytes(-1), "llmstreamtest: invalid option llmstreamtest.WithMaxRequestBytes(-1): the size must not be negative (request 1)"},
		{"body limit 0, the default", WithMaxRequestBytes(0), ""},
		{"zero flavour, OpenAI", WithFlavor(0), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(tt.opt, WithTurns(Turn{Text: "hi"}))
			defer srv.Close()
			resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := srv.Requests()[0].Err
			if tt.want == "" {
				if got != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d, Err %v; want a served request", resp.StatusCode, got)
				}
				return
			}
			var oe *OptionError
			if !errors.Is(got, ErrInvalidOption) || !errors.Is(got, ErrBadOption) || !errors.As(got, &oe) || got.Error() != tt.want {
				t.Errorf("Err = %v, want an *OptionError matching ErrInvalidOption and ErrBadOption saying %q", got, tt.want)
			}
		})
	}
}
