package aws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

const (
	testKeyID  = "AKIDEXAMPLE0000000001"
	testSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	testToken  = "FQoGZXIvYXdzEXAMPLE/token+with/slashes=="
)

var staticCreds = credentials.NewStaticCredentialsProvider(testKeyID, testSecret, testToken)

// capture is a server that keeps the last request's headers and body.
type capture struct {
	srv   *httptest.Server
	hdr   http.Header
	body  []byte
	calls atomic.Int32
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.calls.Add(1)
		c.hdr = r.Header.Clone()
		c.body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func post(t *testing.T, s *Signer, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/model/anthropic.claude/converse-stream", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

var authShape = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=` + testKeyID + `/20250102/eu-west-1/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`)

func TestSignatureVerifies(t *testing.T) {
	c := newCapture(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New("eu-west-1", staticCreds, c.srv.Client())
	s.now = func() time.Time { return at }
	body := `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`
	post(t, s, c.srv.URL, body)
	auth := c.hdr.Get("Authorization")
	if !authShape.MatchString(auth) {
		t.Fatalf("Authorization %q has not the SigV4 shape", auth)
	}
	if c.hdr.Get("X-Amz-Date") != "20250102T030405Z" || c.hdr.Get("X-Amz-Security-Token") != testToken || string(c.body) != body {
		t.Fatalf("headers %v, body %q", c.hdr, c.body)
	}
	// Recompute the signature, as the service would, from what arrived.
	req, _ := http.NewRequest(http.MethodPost, c.srv.URL+"/model/anthropic.claude/converse-stream", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256([]byte(body))
	creds, _ := staticCreds.Retrieve(context.Background())
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "bedrock", "eu-west-1", at); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Authorization"); got != auth {
		t.Errorf("recomputed\n%s\nsent\n%s", got, auth)
	}
	// Another body, another signature.
	post(t, s, c.srv.URL, body+" ")
	if c.hdr.Get("Authorization") == auth {
		t.Error("the signature does not depend on the body")
	}
}

func TestDefaultChainFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_SESSION_TOKEN", testToken)
	t.Setenv("AWS_REGION", "ap-south-1")
	c := newCapture(t)
	s, err := NewDefault(t.Context(), "", c.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	post(t, s, c.srv.URL, "{}")
	if auth := c.hdr.Get("Authorization"); !strings.Contains(auth, "Credential="+testKeyID+"/") || !strings.Contains(auth, "/ap-south-1/bedrock/aws4_request") {
		t.Errorf("Authorization %q: not the environment's key and region", auth)
	}
	if c.hdr.Get("X-Amz-Security-Token") != testToken {
		t.Errorf("session token %q", c.hdr.Get("X-Amz-Security-Token"))
	}
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	if _, err := NewDefault(t.Context(), "", nil); err == nil {
		t.Error("no region: no error")
	}
}

// A server that echoes the credentials into an invalid redirect makes
// net/http's error quote them; the Signer's error must not.
func TestNoCredentialInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://[bad "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Amz-Security-Token"))
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	s := New("us-east-1", staticCreds, srv.Client())
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader("{}"))
	_, err := s.Do(req)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "REDACTED") {
		t.Fatalf("the server's echo did not reach the error, so this test proves nothing: %v", err)
	}
	for _, secret := range []string{testToken, "Signature=", testSecret} {
		if strings.Contains(msg, secret) && secret != "Signature=" {
			t.Errorf("the error shows %q: %v", secret, err)
		}
	}
	if regexp.MustCompile(`[0-9a-f]{64}`).MatchString(msg) {
		t.Errorf("the error shows the signature: %v", err)
	}
	if errors.Unwrap(err) != nil {
		t.Error("the error hands out its unredacted cause")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
	if _, err := s.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled request: %v, want context.Canceled", err)
	}
}

func TestBodyLimit(t *testing.T) {
	c := newCapture(t)
	s := New("us-east-1", staticCreds, c.srv.Client(), WithMaxBodyBytes(10))
	for _, n := range []int{9, 10} {
		post(t, s, c.srv.URL, strings.Repeat("x", n))
		if len(c.body) != n {
			t.Fatalf("a %d-byte body arrived as %d bytes", n, len(c.body))
		}
	}
	calls := c.calls.Load()
	req, _ := http.NewRequest(http.MethodPost, c.srv.URL, strings.NewReader(strings.Repeat("x", 11)))
	if _, err := s.Do(req); !errors.Is(err, ErrBodyTooLarge) || !strings.Contains(err.Error(), "10 bytes") {
		t.Errorf("an 11-byte body: %v, want ErrBodyTooLarge naming the limit", err)
	}
	if c.calls.Load() != calls {
		t.Error("an oversized request was sent")
	}
}

// doerFunc adapts a function to llmstream.Doer.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryableBodyAndCallerRequestUntouched(t *testing.T) {
	var bodies []string
	next := doerFunc(func(r *http.Request) (*http.Response, error) {
		for range 2 { // a retrying Doer rewinds with GetBody
			rc, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			b, _ := io.ReadAll(rc)
			bodies = append(bodies, string(b))
		}
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	req, _ := http.NewRequest(http.MethodPost, "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream", bytes.NewReader([]byte("payload")))
	if _, err := New("us-east-1", staticCreds, next).Do(req); err != nil {
		t.Fatal(err)
	}
	if strings.Join(bodies, ",") != "payload,payload" {
		t.Errorf("bodies %q", bodies)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("the caller's request was signed in place")
	}
}

type failingProvider struct{}

func (failingProvider) Retrieve(context.Context) (sdkaws.Credentials, error) {
	return sdkaws.Credentials{}, errors.New("no profile")
}

func TestCredentialsError(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1", strings.NewReader("{}"))
	_, err := New("us-east-1", failingProvider{}, doerFunc(func(*http.Request) (*http.Response, error) {
		t.Error("sent without credentials")
		return nil, os.ErrInvalid
	})).Do(req)
	if !errors.Is(err, ErrCredentials) {
		t.Errorf("%v, want ErrCredentials", err)
	}
}

// TestBodyLimitOption: the limit at 0 is the default, at 1 one byte; a
// negative one is an *OptionError from every Do, and nothing is sent.
func TestBodyLimitOption(t *testing.T) {
	c := newCapture(t)
	if s := New("us-east-1", staticCreds, c.srv.Client(), WithMaxBodyBytes(0)); s.max != DefaultMaxBodyBytes {
		t.Errorf("WithMaxBodyBytes(0): limit %d, want the default", s.max)
	}
	one := New("us-east-1", staticCreds, c.srv.Client(), WithMaxBodyBytes(1))
	post(t, one, c.srv.URL, "x")
	bad := New("us-east-1", staticCreds, c.srv.Client(), WithMaxBodyBytes(-1))
	calls := c.calls.Load()
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, c.srv.URL, strings.NewReader("x"))
		_, err := bad.Do(req)
		var oe *OptionError
		if !errors.Is(err, ErrInvalidOption) || !errors.As(err, &oe) || err.Error() != "aws: invalid option aws.WithMaxBodyBytes(-1): the size must not be negative" {
			t.Errorf("WithMaxBodyBytes(-1): %v, want an *OptionError naming it", err)
		}
	}
	if c.calls.Load() != calls {
		t.Error("a request was sent with a bad option")
	}
}
