// Package redact is the one place airlock keeps credentials out of text: a
// [Set] of the secret values one request carries, built from its headers,
// its URL and what the caller marked secret, and the functions that print
// URLs, bodies and errors without them. transport and llmstream use it for
// every error, event and log line they make, whatever HTTP client sent the
// request, so that there is one rule and one place to fix it.
package redact

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Mask replaces a secret wherever one would have been printed.
const Mask = "REDACTED"

// MinSecretBytes is the shortest value treated as a secret. Blanking "1" or
// "go" wherever it appears would garble every message and hide nothing
// worth hiding; real keys and tokens are far longer.
const MinSecretBytes = 8

// secretWords are the fragments that mark a header or query parameter name
// as carrying a credential: Authorization, Proxy-Authorization, Api-Key,
// X-Api-Key, X-Goog-Api-Key, Cookie, key=, api_key=, access_token=, sig=
// (Azure SAS), password=, and so on. A false positive only hides a value
// from an error message, so the list errs on the side of hiding.
var secretWords = [...]string{"key", "token", "secret", "password", "passwd", "auth", "sig", "credential", "session", "cookie"}

// secretNames are whole names that carry a credential although no secret
// word is in them: "code", the query parameter of an Azure Functions key
// (as a fragment it would hide "errorcode" and "encode").
var secretNames = [...]string{"code"}

// IsSecretName reports whether a header or query parameter named name
// carries a credential. Case is ignored.
func IsSecretName(name string) bool {
	name = strings.ToLower(name)
	if slices.Contains(secretNames[:], name) {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Set is the secret values of one request, and the forms in which a server
// might echo them (JSON-escaped, with or without "/" escaped as "\/",
// query-escaped, the token of an "Authorization: Bearer <token>" header
// alone, what a Basic one decodes to). The zero Set and a nil *Set hold
// nothing. A Set is never changed once built, so it may be shared by
// goroutines.
type Set struct {
	values []string // longest first, so a longer secret is replaced before one it contains
	raws   []string // the values as sent, unescaped: looked for in the text's decoded reading
}

// New returns a Set of values and the forms they may be echoed in. Values
// shorter than [MinSecretBytes], after trimming spaces, are left out.
func New(values ...string) *Set {
	var s Set
	for _, v := range values {
		s.add(v)
	}
	s.sort()
	return &s
}

// With returns a Set holding the values of s and of o. Either may be nil.
func (s *Set) With(o *Set) *Set {
	switch {
	case s.Empty():
		return o
	case o.Empty():
		return s
	}
	out := &Set{values: slices.Concat(s.values, o.values), raws: slices.Concat(s.raws, o.raws)}
	out.sort()
	return out
}

// Empty reports whether s holds no secret.
func (s *Set) Empty() bool { return s == nil || len(s.values) == 0 }

func (s *Set) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < MinSecretBytes {
		return
	}
	s.push(v)
	if !slices.Contains(s.raws, v) {
		s.raws = append(s.raws, v)
	}
	if scheme, cred, ok := strings.Cut(v, " "); ok && !strings.ContainsAny(scheme, "\"'") {
		s.add(cred) // "Bearer sk-..." → the bare token too
		if strings.EqualFold(scheme, "Basic") {
			// A server may print what it decoded: "user:password", or
			// the password alone.
			if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
				s.add(string(dec))
				if _, pass, ok := strings.Cut(string(dec), ":"); ok {
					s.add(pass)
				}
			}
		}
	}
	if b, err := json.Marshal(v); err == nil {
		text := string(b[1 : len(b)-1]) // as a JSON string's text: "/" and "+" stay, "<" becomes \u003c
		s.push(text)
		s.push(strings.ReplaceAll(text, "/", `\/`)) // as PHP and some Java and Ruby encoders write it
	}
	s.push(url.QueryEscape(v))
	s.push(url.PathEscape(v))
}

func (s *Set) push(v string) {
	if len(v) >= MinSecretBytes && !slices.Contains(s.values, v) {
		s.values = append(s.values, v)
	}
}

func (s *Set) sort() {
	longestFirst := func(a, b string) int { return len(b) - len(a) }
	slices.SortStableFunc(s.values, longestFirst)
	s.values = slices.Compact(s.values)
	slices.SortStableFunc(s.raws, longestFirst)
	s.raws = slices.Compact(s.raws)
}

// String returns text with every secret of s replaced by [Mask]: as is, in
// the forms of [Set], and with any of its characters JSON- or URL-escaped
// ("\u0073k-...", "sk%2Dlive%2D..."), the whole escaped stretch replaced.
// It costs O(len(text)) per secret.
func (s *Set) String(text string) string {
	if s.Empty() {
		return text
	}
	for _, v := range s.values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Mask)
		}
	}
	text, _ = s.maskDecoded(text)
	return text
}

// Bytes returns b with every secret of s replaced by [Mask]: b itself when
// it holds none, else a new slice.
func (s *Set) Bytes(b []byte) []byte {
	if s.Empty() {
		return b
	}
	text := string(b)
	if clean := s.String(text); clean != text {
		return []byte(clean)
	}
	return b
}

// Head is [Set.Bytes] for b that is the start of a longer text, such as
// an error body read up to a bound: besides every whole secret being
// replaced by [Mask], an end of b that is the start of a secret (whose
// rest lay past the cut) is dropped, however short, so no part of a secret
// shows and the text never grows. b itself is returned when nothing
// changes, else a new slice.
//
// The start may be escaped ("sk%2Dli", "\u0073k-"), and an escape itself
// may be cut ("sk%2"): those are dropped too.
func (s *Set) Head(b []byte) []byte {
	if s.Empty() {
		return b
	}
	// Cut first, in b as it came: masking first may take bytes that, read
	// another way, end the text with a secret's start. Masking what is
	// left may leave another such end, cut too.
	c := s.headCut(b)
	masked := s.Bytes(b[:len(b)-c])
	c2 := s.headCut(masked)
	if c == 0 && c2 == 0 {
		return masked
	}
	return slices.Clone(masked[:len(masked)-c2])
}

// headCut is how many bytes at the end of b begin a secret.
func (s *Set) headCut(b []byte) int {
	cut := s.headCutDecoded(string(b))
	for _, v := range s.values {
		for k := min(len(v)-1, len(b)); k > cut; k-- {
			if string(b[len(b)-k:]) == v[:k] {
				cut = k
				break
			}
		}
	}
	return cut
}

// Tail is [Set.Head] for b that is the end of a longer text, such as the
// last bytes of a tool call's arguments: every whole secret is replaced by
// [Mask], and a start of b that is the end of a secret (whose start lay
// before the cut), as is or escaped, and what is left of an escape the cut
// went through, is dropped, so no part of a secret shows. b itself is
// returned when nothing changes, else a new slice.
func (s *Set) Tail(b []byte) []byte {
	if s.Empty() {
		return b
	}
	// As in Head: cut first, then mask, then cut what masking left.
	c := s.tailCut(b)
	masked := s.Bytes(b[c:])
	c2 := s.tailCut(masked)
	if c == 0 && c2 == 0 {
		return masked
	}
	return slices.Clone(masked[c2:])
}

// tailCut is how many bytes at the start of b end a secret.
func (s *Set) tailCut(b []byte) int {
	cut := s.tailCutDecoded(string(b))
	for _, v := range s.values {
		for k := min(len(v)-1, len(b)); k > cut; k-- {
			if string(b[:k]) == v[len(v)-k:] {
				cut = k
				break
			}
		}
	}
	return cut
}

// Contains reports whether text holds a secret of s.
func (s *Set) Contains(text string) bool {
	if s.Empty() {
		return false
	}
	for _, v := range s.values {
		if strings.Contains(text, v) {
			return true
		}
	}
	_, found := s.maskDecoded(text)
	return found
}

// FromRequest returns the secrets req carries: the values of its headers
// whose names mark a credential ([IsSecretName]), the values of its secret
// query parameters, the user and password of its URL (and the
// basic-authentication token net/http makes of them), and the Set its
// context holds
// ([NewContext]). A nil req holds none.
func FromRequest(req *http.Request) *Set {
	if req == nil {
		return nil
	}
	var s Set
	for name, vals := range req.Header {
		if IsSecretName(name) {
			for _, v := range vals {
				s.add(v)
			}
		}
	}
	if u := req.URL; u != nil {
		for q := u.RawQuery; q != ""; {
			var param string
			param, _, q = nextParam(q)
			if rawName, rawValue, ok := strings.Cut(param, "="); ok && IsSecretName(unescape(rawName)) {
				s.add(unescape(rawValue))
				s.add(rawValue)
			}
		}
		if u.User != nil {
			// The user may be the credential ("https://<token>@host", or
			// GitHub's "<token>:x-oauth-basic"), and net/http sends
			// userinfo as basic authentication, with or without a password.
			p, _ := u.User.Password()
			s.add(u.User.Username())
			s.add(p)
			s.add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p)))
		}
	}
	s.sort()
	return FromContext(req.Context()).With(&s)
}

type contextKey struct{}

// NewContext returns ctx carrying s, so that whatever sends a request made
// with it (transport's Client) also redacts the values the request's maker
// knows to be secret but the headers do not show as such.
func NewContext(ctx context.Context, s *Set) context.Context {
	if s.Empty() {
		return ctx
	}
	return context.WithValue(ctx, contextKey{}, s.With(FromContext(ctx)))
}

// FromContext returns the Set ctx carries, or nil.
func FromContext(ctx context.Context) *Set {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(contextKey{}).(*Set)
	return s
}
