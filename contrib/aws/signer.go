package aws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
)

// Service is the SigV4 signing name of Bedrock's runtime API.
const Service = "bedrock"

// DefaultMaxBodyBytes is the limit on a request body a Signer reads to sign
// when no [WithMaxBodyBytes] is given: 32 MiB, room for a long conversation
// with images.
const DefaultMaxBodyBytes = 32 << 20

// ErrBodyTooLarge reports a request body over the limit: nothing is sent.
// The error returned wraps it and prints the limit.
var ErrBodyTooLarge = errors.New("aws: request body too large to sign")

// ErrCredentials reports that no credentials could be had: the provider's
// error is wrapped too.
var ErrCredentials = errors.New("aws: no credentials")

// ErrInvalidOption reports an option value that cannot be used, such as a
// negative [WithMaxBodyBytes]. New does not fail: every call of
// [Signer.Do] returns an [*OptionError] that unwraps to it, and nothing is
// sent.
var ErrInvalidOption = errors.New("aws: invalid option")

// OptionError is the error for an option value that cannot be used. It
// unwraps to [ErrInvalidOption].
type OptionError struct {
	// Option is the offending option as its String method prints it.
	Option string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the option and the reason.
func (e *OptionError) Error() string {
	return "aws: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// Signer is an [llmstream.Doer] that signs each request with SigV4 before
// handing it to the Doer it wraps. It is safe for concurrent use, as long as
// the wrapped Doer and the credentials provider are (the SDK's are).
//
// Retries: a Signer signs once per call of Do. If the wrapped Doer retries
// (a *transport.Client does), its retries carry the same signature, which
// AWS accepts for 5 minutes after it was made; past that a retry is
// refused with 403. For retries that may wait longer, wrap a Doer that
// does not retry (an *http.Client) and retry above the Signer.
type Signer struct {
	next   llmstream.Doer
	creds  sdkaws.CredentialsProvider
	region string
	signer *v4.Signer
	max    int64
	now    func() time.Time
	err    error // the first bad option, returned by every Do
}

// Option configures a [Signer].
type Option interface {
	String() string
	// apply sets its value in s, or reports why it cannot.
	apply(s *Signer) error
}

type maxBodyBytes int64

// WithMaxBodyBytes limits, in bytes, the request body a Signer reads to
// hash it; the default is [DefaultMaxBodyBytes], and 0 means the default. A
// larger body fails Do with [ErrBodyTooLarge] before anything is sent. A
// negative n is invalid: every Do fails with an [*OptionError] (errors.Is
// [ErrInvalidOption]).
func WithMaxBodyBytes(n int64) Option { return maxBodyBytes(n) }

func (o maxBodyBytes) apply(s *Signer) error {
	switch {
	case o < 0:
		return &OptionError{Option: o.String(), Reason: "the size must not be negative"}
	case o > 0:
		s.max = int64(o)
	}
	return nil
}

func (o maxBodyBytes) String() string { return fmt.Sprintf("aws.WithMaxBodyBytes(%d)", int64(o)) }

// New returns a Signer that signs for region with the credentials of
// creds (an aws.Config's Credentials, or credentials.NewStaticCredentialsProvider,
// or any provider; wrap it in aws.NewCredentialsCache to cache it) and
// sends through next. A nil next is http.DefaultClient.
func New(region string, creds sdkaws.CredentialsProvider, next llmstream.Doer, opts ...Option) *Signer {
	if next == nil {
		next = http.DefaultClient
	}
	s := &Signer{next: next, creds: creds, region: region, signer: v4.NewSigner(), max: DefaultMaxBodyBytes, now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(s); err != nil && s.err == nil {
			s.err = err
		}
	}
	return s
}

// NewDefault returns a Signer over the AWS default credential chain
// (environment, shared config and credentials files, SSO, web identity,
// container and instance roles), as config.LoadDefaultConfig finds it. An
// empty region takes the chain's (AWS_REGION, the profile). It fails when
// the configuration cannot be loaded or no region is known; the
// credentials themselves are fetched (and refreshed) by the first Do.
func NewDefault(ctx context.Context, region string, next llmstream.Doer, opts ...Option) (*Signer, error) {
	var load []func(*config.LoadOptions) error
	if region != "" {
		load = append(load, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("aws: loading the default configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("aws: no region: give one, or set AWS_REGION")
	}
	return New(cfg.Region, cfg.Credentials, next, opts...), nil
}

// Do signs a copy of req and sends it through the wrapped Doer; req itself
// is not changed, but its body is read (and closed). The copy's body can be
// read again (GetBody is set), so a retrying Doer can resend it.
//
// Errors: an [*OptionError] for a bad option; [ErrBodyTooLarge];
// [ErrCredentials] wrapping the provider's error; the body's read error; or
// the wrapped Doer's error (errors.Is sees its chain) with every credential
// of this request removed from its text by [transport.Redact].
func (s *Signer) Do(req *http.Request) (*http.Response, error) {
	if s.err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, s.err
	}
	ctx := req.Context()
	body, err := s.readBody(req)
	if err != nil {
		return nil, err
	}
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCredentials, transport.Redact(err, credentialSecrets(creds)...))
	}
	sum := sha256.Sum256(body)
	out := req.Clone(ctx)
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	if err := s.signer.SignHTTP(ctx, creds, out, hex.EncodeToString(sum[:]), Service, s.region, s.now()); err != nil {
		return nil, transport.Redact(fmt.Errorf("aws: signing: %w", err), credentialSecrets(creds)...)
	}
	resp, err := s.next.Do(out)
	if err != nil {
		secrets := append(credentialSecrets(creds), out.Header.Get("Authorization"), signature(out.Header.Get("Authorization")))
		return resp, transport.Redact(err, secrets...)
	}
	return resp, nil
}

// readBody reads and closes req's body, up to the limit.
func (s *Signer) readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	b, err := io.ReadAll(io.LimitReader(req.Body, s.max+1))
	if err != nil {
		return nil, fmt.Errorf("aws: reading the request body: %w", err)
	}
	if int64(len(b)) > s.max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, s.max)
	}
	return b, nil
}

func credentialSecrets(c sdkaws.Credentials) []string {
	return []string{c.SecretAccessKey, c.SessionToken}
}

// signature returns the Signature= part of a SigV4 Authorization value.
func signature(auth string) string {
	const key = "Signature="
	if i := bytes.Index([]byte(auth), []byte(key)); i >= 0 {
		return auth[i+len(key):]
	}
	return ""
}
