package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// Scope is the OAuth scope Vertex AI needs.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// ErrToken reports that no token could be had: the token source's error
// (its text cleaned by [transport.Redact]) is in the chain for errors.Is.
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
// error. Neither shows the token: [transport.Redact] removes it from the
// text, raw or escaped, and errors.Is sees the original chain (a cancelled
// context stays context.Canceled) but nothing hands out the original errors.
func (d *Doer) Do(req *http.Request) (*http.Response, error) {
	tok, err := d.ts.Token()
	if err != nil {
		secret := ""
		if tok != nil {
			secret = tok.AccessToken
		}
		return nil, fmt.Errorf("%w: %w", ErrToken, transport.Redact(err, secret))
	}
	out := req.Clone(req.Context())
	tok.SetAuthHeader(out)
	resp, err := d.next.Do(out)
	if err != nil {
		return resp, transport.Redact(err, tok.AccessToken, tok.RefreshToken)
	}
	return resp, nil
}
