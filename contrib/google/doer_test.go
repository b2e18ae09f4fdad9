package google

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeSource hands out numbered tokens that live for ttl.
type fakeSource struct {
	mu    sync.Mutex
	n     int
	ttl   time.Duration
	err   error
	calls int
}

func (f *fakeSource) Token() (*oauth2.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	f.n++
	return &oauth2.Token{AccessToken: "ya29.token-" + strings.Repeat("x", f.n) + "/secret+value", TokenType: "Bearer", Expiry: time.Now().Add(f.ttl)}, nil
}

func authServer(t *testing.T) (*httptest.Server, func() string) {
	var mu sync.Mutex
	var last string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.Header.Get("Authorization")
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() string { mu.Lock(); defer mu.Unlock(); return last }
}

func send(t *testing.T, d *Doer, url string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader("{}"))
	resp, err := d.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if req.Header.Get("Authorization") != "" {
		t.Fatal("the caller's request was changed")
	}
}

func TestTokenReusedAndRefreshed(t *testing.T) {
	srv, last := authServer(t)
	long := &fakeSource{ttl: time.Hour}
	d := New(long, srv.Client())
	send(t, d, srv.URL)
	first := last()
	send(t, d, srv.URL)
	if first != "Bearer ya29.token-x/secret+value" || last() != first || long.calls != 1 {
		t.Errorf("a live token: sent %q then %q, %d fetches; want one token, reused", first, last(), long.calls)
	}
	// A token about to expire (within oauth2's 10-second margin) is replaced.
	short := &fakeSource{ttl: 5 * time.Second}
	d = New(short, srv.Client())
	send(t, d, srv.URL)
	send(t, d, srv.URL)
	if last() != "Bearer ya29.token-xx/secret+value" || short.calls != 2 {
		t.Errorf("an expiring token: sent %q after %d fetches; want the second token", last(), short.calls)
	}
}

func TestNoTokenInErrors(t *testing.T) {
	// The server echoes the Authorization header into an invalid redirect,
	// which net/http quotes in its error.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://[bad "+r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	d := New(&fakeSource{ttl: time.Hour}, srv.Client())
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	_, err := d.Do(req)
	if err == nil || !strings.Contains(err.Error(), "REDACTED") {
		t.Fatalf("%v: the echo did not reach the error, so this test proves nothing", err)
	}
	if strings.Contains(err.Error(), "ya29.") || errors.Unwrap(err) != nil {
		t.Errorf("the error shows the token or hands out its cause: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if _, err := d.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled request: %v, want context.Canceled", err)
	}
}

func TestTokenSourceError(t *testing.T) {
	boom := errors.New("metadata server unreachable")
	d := New(&fakeSource{err: boom}, http.DefaultClient)
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1", nil)
	if _, err := d.Do(req); !errors.Is(err, ErrToken) || !errors.Is(err, boom) {
		t.Errorf("%v, want ErrToken and the source's error", err)
	}
}

func TestDefaultCredentialsFromFile(t *testing.T) {
	// An authorized-user credentials file, as gcloud writes one; its token
	// endpoint is a local server, so nothing leaves the machine.
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"ya29.from-file-token","token_type":"Bearer","expires_in":3600}`)
	}))
	defer tokenSrv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "adc.json")
	json := `{"type":"authorized_user","client_id":"id.apps.googleusercontent.com","client_secret":"client-secret","refresh_token":"refresh-token-value","token_uri":"` + tokenSrv.URL + `"}`
	if err := os.WriteFile(file, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)
	srv, last := authServer(t)
	d, err := NewDefault(context.WithValue(t.Context(), oauth2.HTTPClient, tokenSrv.Client()), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	send(t, d, srv.URL)
	if last() != "Bearer ya29.from-file-token" {
		t.Errorf("sent %q", last())
	}
	tokenSrv.CloseClientConnections()
}

// blockedSource hands out a token only when the test releases it, and
// counts its calls.
type blockedSource struct {
	release chan struct{}
	mu      sync.Mutex
	calls   int
}

func (b *blockedSource) Token() (*oauth2.Token, error) {
	b.mu.Lock()
	b.calls++
	b.mu.Unlock()
	<-b.release
	return &oauth2.Token{AccessToken: "ya29.late-token-value", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// TestDeadlineWhileFetching: a request whose deadline passes while the
// token is fetched returns with the deadline, not when the token source
// does (the source is released only after Do returned, so Do cannot have
// waited for it); calls waiting meanwhile share the one fetch, whose
// token then serves the next call.
func TestDeadlineWhileFetching(t *testing.T) {
	srv, last := authServer(t)
	src := &blockedSource{release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(src.release)
		}
	}
	t.Cleanup(release) // a failed test must not leave the fetch blocked
	d := New(src, srv.Client())
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
			_, err := d.Do(req)
			errs <- err
		}()
	}
	for range 3 {
		var err error
		select {
		case err = <-errs:
		case <-time.After(10 * time.Second): // far past the deadline: Do waits for the source
			release()
			err = <-errs
			t.Fatalf("Do returned only when the token source did: %v", err)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrToken) {
			t.Fatalf("Do: %v; want ErrToken and the deadline", err)
		}
	}
	if ctx.Err() == nil {
		t.Fatal("Do returned before the deadline")
	}
	release()
	send(t, d, srv.URL)
	send(t, d, srv.URL)
	if src.calls != 1 || last() != "Bearer ya29.late-token-value" {
		t.Errorf("%d fetches, sent %q; want one fetch shared by every call", src.calls, last())
	}
}

// TestCancelledBeforeFetch: a request already cancelled asks no token.
func TestCancelledBeforeFetch(t *testing.T) {
	src := &blockedSource{release: make(chan struct{})}
	defer close(src.release)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1", nil)
	if _, err := New(src, nil).Do(req); !errors.Is(err, context.Canceled) || src.calls != 0 {
		t.Errorf("%v after %d fetches; want context.Canceled and none", err, src.calls)
	}
}
