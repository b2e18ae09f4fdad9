package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// Scope is the OAuth scope Vertex AI needs.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// ErrToken reports that no token could be had: the token source's error
// (scrubbed of any token) is in the chain for errors.Is.
var ErrToken = errors.New("google: no OAuth token")

// Doer is an [llmstream.Doer] that adds a bearer token to each request. It
// is safe for concurrent use when its token source is (those of
// golang.org/x/oauth2 are). It asks the token source at every call, once
// per attempt of a retrying caller above it; a retrying Doer below it
// resends the same token, which stays valid for the rest of its lifetime.
type Doer struct {
	next llmstream.Doer
	ts   oauth2.TokenSource
}

// New returns a Doer that takes tokens from ts and sends through next. ts is
// wrapped in oauth2.ReuseTokenSource, so a token is reused until shortly
// before it expires and then refreshed. A nil next is http.DefaultClient.
func New(ts oauth2.TokenSource, next llmstream.Doer) *Doer {
	if next == nil {
		next = http.DefaultClient
	}
	return &Doer{next: next, ts: oauth2.ReuseTokenSource(nil, ts)}
}

// NewDefault returns a Doer over Application Default Credentials with the
// [Scope] cloud-platform (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// credentials, the metadata server), as google.FindDefaultCredentials finds
// them. It fails when none are found.
func NewDefault(ctx context.Context, next llmstream.Doer) (*Doer, error) {
	creds, err := google.FindDefaultCredentials(ctx, Scope)
	if err != nil {
		return nil, fmt.Errorf("google: finding default credentials: %w", err)
	}
	return New(creds.TokenSource, next), nil
}

// Do sets the Authorization header on a copy of req (req is not changed)
// and sends it through the wrapped Doer.
//
// Errors: [ErrToken], when the token source fails; or the wrapped Doer's
// error. Neither shows the token: its text has it removed, raw, JSON- or
// URL-escaped, and errors.Is sees the original chain (a cancelled context
// stays context.Canceled) but nothing hands out the original errors.
func (d *Doer) Do(req *http.Request) (*http.Response, error) {
	tok, err := d.ts.Token()
	if err != nil {
		secret := ""
		if tok != nil {
			secret = tok.AccessToken
		}
		return nil, fmt.Errorf("%w: %w", ErrToken, scrub(err, secret))
	}
	out := req.Clone(req.Context())
	tok.SetAuthHeader(out)
	resp, err := d.next.Do(out)
	if err != nil {
		return resp, scrub(err, tok.AccessToken, tok.RefreshToken)
	}
	return resp, nil
}

// scrub returns err with every secret removed from its text, raw, JSON- or
// URL-escaped. Secrets under 8 bytes are left alone: they cannot be told
// from ordinary text.
func scrub(err error, secrets ...string) error {
	msg := err.Error()
	clean := msg
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		j, _ := json.Marshal(s)
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), string(j[1 : len(j)-1]), strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`)} {
			clean = strings.ReplaceAll(clean, form, "[REDACTED]")
		}
	}
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrubbedError is an error whose text had tokens removed. It has no
// Unwrap: the errors of its chain may show them.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is reports whether target is in the chain of the original error.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }
