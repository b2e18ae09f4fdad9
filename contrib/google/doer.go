package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

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
// is safe for concurrent use. It asks for a token at every call, once per
// attempt of a retrying caller above it; a retrying Doer below it resends
// the same token, which stays valid for the rest of its lifetime.
//
// A token source takes no context, so the Doer fetches on a goroutine of
// its own while the call waits for the token or for the request's context,
// whichever comes first: a deadline holds while a token is fetched. One
// fetch runs at a time, shared by the calls that wait for it; one that
// outlives the call that started it goes on until the token source
// returns, and its token serves the next call.
type Doer struct {
	next llmstream.Doer
	ts   oauth2.TokenSource

	mu    sync.Mutex
	last  *oauth2.Token // the last token fetched, used while Valid
	fetch *fetch        // the fetch in flight, nil when none
}

// fetch is one call of the token source, shared by the calls waiting for
// it; tok and err are set before done is closed.
type fetch struct {
	done chan struct{}
	tok  *oauth2.Token
	err  error
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
// Errors: [ErrToken], when the token source fails or the request's
// context ends before a token came (then errors.Is finds the context's
// error too); or the wrapped Doer's error. Neither shows the token: [transport.Redact] removes it from the
// text, raw or escaped, and errors.Is sees the original chain (a cancelled
// context stays context.Canceled) but nothing hands out the original errors.
func (d *Doer) Do(req *http.Request) (*http.Response, error) {
	tok, err := d.token(req.Context())
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

// token returns a valid token: the last one, else the result of a fetch
// (joining the one in flight), or the context's error if it ends first.
func (d *Doer) token(ctx context.Context) (*oauth2.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	d.mu.Lock()
	if d.last.Valid() {
		tok := d.last
		d.mu.Unlock()
		return tok, nil
	}
	f := d.fetch
	if f == nil {
		f = &fetch{done: make(chan struct{})}
		d.fetch = f
		go d.run(f)
	}
	d.mu.Unlock()
	select {
	case <-f.done:
		return f.tok, f.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// run calls the token source for f and keeps a good token for later calls.
func (d *Doer) run(f *fetch) {
	f.tok, f.err = d.ts.Token()
	if f.tok == nil && f.err == nil {
		f.err = errors.New("google: the token source returned no token")
	}
	d.mu.Lock()
	if f.err == nil {
		d.last = f.tok
	}
	d.fetch = nil
	d.mu.Unlock()
	close(f.done)
}
