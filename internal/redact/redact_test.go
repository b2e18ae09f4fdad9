package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
		{"an Azure Functions key", "https://f.test/api/v1?code=abc&errorcode=7&encode=utf8", "https://f.test/api/v1?code=REDACTED&errorcode=7&encode=utf8"},
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
		{"unparsable: query dropped", "http://[::1%zz/?key=abc", "http://[::1%zz/"},
		{"unparsable: userinfo blanked", "http://u:pw@h\x7f/v1?key=1", "http://REDACTED@h\x7f/v1"},
		{"unparsable: an @ in the path stays", "http://h\x7f/a@b", "http://h\x7f/a@b"},
		{"unparsable without a scheme", "u:pw@h\x7f", "REDACTED@h\x7f"},
		{"unparsable: a quote in front", `"http://localhost:8080/v1`, `"http://localhost:8080/v1`},
		{"unparsable: a \"://\" in the path is no scheme's", "//u:pw-secret@h\x7f/a://b", "//REDACTED@h\x7f/a://b"},
		{"unparsable: a mangled scheme is still one", "ht tp://u:pw-secret@h\x7f/", "ht tp://REDACTED@h\x7f/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzURL checks that a secret placed in any credential slot of any
// URL never survives redaction, and that redacting twice changes nothing.
func FuzzURL(f *testing.F) {
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
		got := URL(raw)
		if strings.Contains(got, secret) {
			t.Fatalf("URL(%q) = %q keeps the secret", raw, got)
		}
		// Idempotence holds for the URLs requests carry, with a scheme and
		// a host; url.URL.String reshapes some host-less forms such as
		// "//?q" on each round (testdata/fuzz/FuzzURL/2029ab2073123423).
		if again := URL(got); u.Scheme != "" && u.Host != "" && again != got {
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
		{"wrapped url.Error", errors.Join(errors.New("outer"), direct), "outer\n" + `Post "https://x.test/v1?key=REDACTED": dial tcp: connection refused`},
		{"no url.Error", dial, "dial tcp: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Error(tt.in, nil)
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

func TestFromRequest(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "https://u:password1234@x.test/?key=querykey123&model=gpt-4o-mini&short=1&a=1;token=semi%2Dtoken", nil)
	req.Header.Set("Authorization", "Bearer sk-abcdefgh")
	req.Header.Set("X-Api-Key", "anthropic-key-1")
	req.Header.Set("X-Goog-Api-Key", "AIzaSyGoogleKey")
	req.Header.Set("Api-Key", "tiny")
	req.Header.Set("X-Title", "not-a-secret-title")
	req = req.WithContext(NewContext(req.Context(), New("marked-by-maker")))
	s := FromRequest(req)
	for _, secret := range []string{"Bearer sk-abcdefgh", "sk-abcdefgh", "anthropic-key-1", "AIzaSyGoogleKey", "querykey123", "semi-token", "semi%2Dtoken", "password1234", "marked-by-maker"} {
		if got := s.String("a " + secret + " b"); got != "a REDACTED b" {
			t.Errorf("String(%q) = %q; want it replaced", secret, got)
		}
	}
	for _, kept := range []string{"tiny", "not-a-secret-title", "gpt-4o-mini"} {
		if s.Contains(kept) {
			t.Errorf("%q is treated as a secret", kept)
		}
	}
	if FromRequest(nil) != nil {
		t.Error("FromRequest(nil) is not nil")
	}
}

func TestSetForms(t *testing.T) {
	const key = `sk-a/b+c"d<e>`
	s := New(key)
	tests := []struct{ name, in string }{
		{"as is", "x " + key + " y"},
		{"JSON-escaped", `{"m":"x sk-a/b+c\"d\u003ce\u003e y"}`},
		{"query-escaped", "x sk-a%2Fb%2Bc%22d%3Ce%3E y"},
		{"path-escaped", "x sk-a%2Fb+c%22d%3Ce%3E y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.String(tt.in)
			if !strings.Contains(got, Mask) || strings.Contains(got, "sk-a") {
				t.Errorf("String(%q) = %q; want the key replaced", tt.in, got)
			}
		})
	}
}

func TestMinSecretBytes(t *testing.T) {
	for _, n := range []int{MinSecretBytes - 1, MinSecretBytes, MinSecretBytes + 1} {
		v := strings.Repeat("k", n)
		got := New(v).String("[" + v + "]")
		if want := n >= MinSecretBytes; (got == "["+Mask+"]") != want {
			t.Errorf("a %d-byte value: String = %q; replaced = %v, want %v", n, got, !want, want)
		}
	}
	// Spaces around a value are not part of it.
	if got := New("  padded-key  ").String("padded-key"); got != Mask {
		t.Errorf("String = %q; want the trimmed value replaced", got)
	}
}

func TestSetLongestFirst(t *testing.T) {
	// A secret inside another must not leave the longer one's remainder.
	s := New("abcdefgh", "abcdefgh-ijklmnop")
	if got := s.String("abcdefgh-ijklmnop"); got != Mask {
		t.Errorf("String = %q, want %q", got, Mask)
	}
	var nilSet *Set
	if got := nilSet.String("abcdefgh"); got != "abcdefgh" || !nilSet.Empty() || nilSet.Contains("x") {
		t.Errorf("a nil Set changed the text: %q", got)
	}
	if got := nilSet.With(s).String("abcdefgh"); got != Mask {
		t.Errorf("nil.With(s) lost s: %q", got)
	}
	if got := s.With(New("zzzzzzzz")).String("abcdefgh zzzzzzzz"); got != Mask+" "+Mask {
		t.Errorf("With lost a value: %q", got)
	}
	b := []byte("no secret here")
	if got := s.Bytes(b); &got[0] != &b[0] {
		t.Error("Bytes copied a slice that held no secret")
	}
	if got := s.Bytes([]byte("key abcdefgh")); string(got) != "key "+Mask {
		t.Errorf("Bytes = %q", got)
	}
}

func TestContextSets(t *testing.T) {
	ctx := NewContext(t.Context(), New("first-secret"))
	ctx = NewContext(ctx, New("second-secret"))
	got := FromContext(ctx).String("first-secret second-secret")
	if got != Mask+" "+Mask {
		t.Errorf("nested contexts: %q", got)
	}
	if NewContext(t.Context(), nil) != t.Context() {
		t.Error("an empty Set changed the context")
	}
}

func TestErrorSecrets(t *testing.T) {
	cause := errors.New("server said: bad key sk-leaky-12345")
	err := Error(fmt.Errorf("llmstream: %w", cause), New("sk-leaky-12345"))
	if strings.Contains(err.Error(), "sk-leaky") || !errors.Is(err, cause) {
		t.Errorf("Error = %v; want the key replaced and the cause kept", err)
	}
	if clean := errors.New("nothing to hide"); Error(clean, New("sk-leaky-12345")) != clean {
		t.Error("an error without a secret was wrapped")
	}
	if Error(nil, nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	// A url.Error deep in a chain keeps the outer text around its redacted form.
	deep := fmt.Errorf("outer: %w", &url.Error{Op: "Post", URL: "https://x.test/?key=k-secret-1", Err: io.ErrUnexpectedEOF})
	got := Error(deep, nil)
	if want := `outer: Post "https://x.test/?key=REDACTED": unexpected EOF`; got.Error() != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if !errors.Is(got, io.ErrUnexpectedEOF) {
		t.Error("the cause left the chain")
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
		{"one under the bound", strings.Repeat("a", ExcerptBytes-1), nil, strings.Repeat("a", ExcerptBytes-1)},
		{"at the bound", strings.Repeat("a", ExcerptBytes), nil, strings.Repeat("a", ExcerptBytes)},
		{"one over the bound", strings.Repeat("a", ExcerptBytes+1), nil, strings.Repeat("a", ExcerptBytes) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Excerpt([]byte(tt.body), ExcerptBytes, New(tt.secrets...)); got != tt.want {
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
			if got := Userinfo(tt.in); got != tt.want {
				t.Errorf("Userinfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSet checks that a secret placed anywhere in any text, in any of the
// forms a server echoes, never survives String or Excerpt, and that text
// without it is left alone.
func FuzzSet(f *testing.F) {
	f.Add("error: ", " is wrong", []byte("sk-abc/def+ghi"), uint8(0))
	f.Add(`{"message":"`, `"}`, []byte("AIza\x00Sy<key>&x=1"), uint8(1))
	f.Add("", "", []byte("12345678"), uint8(2))
	f.Add(`{"sig":"`, `"}`, []byte("a/b+c/d=="), uint8(4))
	f.Fuzz(func(t *testing.T, before, after string, seed []byte, form uint8) {
		secret := string(seed)
		trimmed := strings.TrimSpace(secret)
		if len(trimmed) < MinSecretBytes || strings.Contains(Mask, trimmed) || strings.Contains(trimmed, Mask) {
			return // too short to be one, or hidden by the mask check below
		}
		secret = strings.TrimSpace(secret)
		s := New(secret)
		echoed := secret
		switch form % 5 {
		case 1:
			b, _ := json.Marshal(secret)
			echoed = string(b[1 : len(b)-1])
		case 4:
			b, _ := json.Marshal(secret)
			echoed = strings.ReplaceAll(string(b[1:len(b)-1]), "/", `\/`)
		case 2:
			echoed = url.QueryEscape(secret)
		case 3:
			echoed = url.PathEscape(secret)
		}
		text := before + echoed + after
		// The mask and the text beside it may spell the secret again
		// ("0REDACTED0000000" holds "D0000000"), which tells nothing of
		// it: the secret must not be in any stretch between masks.
		keeps := func(out string) bool {
			for _, part := range strings.Split(out, Mask) {
				if strings.Contains(part, echoed) {
					return true
				}
			}
			return false
		}
		if got := s.String(text); keeps(got) {
			t.Fatalf("String(%q) = %q keeps the secret", text, got)
		}
		if got := Excerpt([]byte(text), 1<<20, s); keeps(got) {
			t.Fatalf("Excerpt(%q) = %q keeps the secret", text, got)
		}
		// Cut anywhere inside the echo, the text shows no start of it:
		// Head drops a tail that holds at least what was cut.
		for i := 1; i < len(echoed); i++ {
			text := before + echoed[:i]
			if s.Contains(text) {
				continue // a whole secret is masked: checked above
			}
			got := string(s.Head([]byte(text)))
			if !strings.HasPrefix(text, got) || !strings.HasSuffix(text[len(got):], echoed[:i]) {
				t.Fatalf("Head(%q) = %q shows the start of the secret", text, got)
			}
		}
		if !strings.Contains(before+after, secret) && !s.Contains(before) && s.String(before) != before {
			t.Fatalf("String changed %q, which holds no secret", before)
		}
	})
}

// TestSetSlashEscaped: PHP, and Java and Ruby libraries, write "/" as "\/"
// in JSON strings; an Azure SAS signature or a base64 key echoed that way
// is still the secret.
func TestSetSlashEscaped(t *testing.T) {
	s := New("sig/abc+def/ghij==")
	if got := s.String(`{"detail":"sig\/abc+def\/ghij== is expired"}`); strings.Contains(got, "abc") {
		t.Errorf("String = %q; want the key replaced", got)
	}
}

func TestFromRequestUserinfo(t *testing.T) {
	basic := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, url string
		secrets   []string
	}{
		// A token may sit in the user part alone: net/http sends it as
		// basic authentication with an empty password.
		{"user alone", "https://tok-user-only-123@x.test/v1", []string{"tok-user-only-123", basic("tok-user-only-123:")}},
		// GitHub's old form: the token as the user, a fixed password.
		{"token as user", "https://tok-user-1234567:x-oauth-basic@x.test/v1", []string{"tok-user-1234567", basic("tok-user-1234567:x-oauth-basic")}},
		{"password", "https://user:password1234@x.test/v1", []string{"password1234", basic("user:password1234")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, tt.url, nil)
			s := FromRequest(req)
			for _, secret := range tt.secrets {
				if got := s.String("a " + secret + " b"); got != "a "+Mask+" b" {
					t.Errorf("String(%q) = %q; want it replaced", secret, got)
				}
			}
		})
	}
}

// TestSetHead: the start of a longer text may end in the first bytes of a
// secret whose rest was cut off; those bytes are a secret's too.
func TestSetHead(t *testing.T) {
	const key = "sk-cut-/0123456789"
	s := New(key)
	tests := []struct{ name, in, want string }{
		{"no secret", "bad request", "bad request"},
		{"whole secret", "bad " + key, "bad " + Mask},
		{"cut after one byte", "bad s", "bad "},
		{"cut one byte short", "bad " + key[:len(key)-1], "bad "},
		{"cut in the query-escaped form", "q=sk-cut-%2F0", "q="},
		{"a secret's start inside the text is no secret", "sk-cut- ok", "sk-cut- ok"},
		{"whole, then cut", key + " " + key[:6], Mask + " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			if got := s.Head(in); string(got) != tt.want {
				t.Errorf("Head(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if string(in) != tt.in {
				t.Errorf("Head changed its argument to %q", in)
			}
		})
	}
	var none *Set
	if got := none.Head([]byte("s")); string(got) != "s" {
		t.Errorf("a nil Set changed the text: %q", got)
	}
}

// TestErrorURLErrorInPlace: a *url.Error deep in a chain is cleaned where
// it stands, so errors.As does not hand out its raw URL, and the text of
// a proxy address net/http could not use loses its password.
func TestErrorURLErrorInPlace(t *testing.T) {
	proxy := errors.New(`invalid proxy address "http://bob:pa55-word-1234@proxy.test x": bad host`)
	ue := &url.Error{Op: "Post", URL: "https://x.test/?key=k-secret-1", Err: proxy}
	err := Error(fmt.Errorf("llmstream: %w", ue), nil)
	want := `llmstream: Post "https://x.test/?key=REDACTED": invalid proxy address "http://REDACTED@proxy.test x": bad host`
	if err.Error() != want {
		t.Errorf("Error = %q, want %q", err, want)
	}
	var got *url.Error
	if !errors.As(err, &got) || got.URL != "https://x.test/?key=REDACTED" || strings.Contains(got.Error(), "pa55") || !errors.Is(err, proxy) {
		t.Errorf("the url.Error in the chain: %v (URL %q)", got, got.URL)
	}
	// Cleaning again changes nothing.
	if again := Error(err, nil); again.Error() != want {
		t.Errorf("again: %q", again)
	}
}

// TestSetBasicDecoded: a server may print the basic-authentication
// credentials it decoded ("user alice:..."), not the header's base64.
func TestSetBasicDecoded(t *testing.T) {
	s := New("Basic " + base64.StdEncoding.EncodeToString([]byte("alice:wonderland-pass")))
	for _, text := range []string{"bad login alice:wonderland-pass", "bad password wonderland-pass"} {
		if got := s.String(text); strings.Contains(got, "wonderland") {
			t.Errorf("String(%q) = %q; want the password replaced", text, got)
		}
	}
}

// TestErrorSharedURLError: a url.Error without a secret that a Doer hands
// to every goroutine is only read, so concurrent calls do not race.
func TestErrorSharedURLError(t *testing.T) {
	shared := &url.Error{Op: "Post", URL: "https://x.test/v1", Err: io.ErrUnexpectedEOF}
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 100 {
				Error(fmt.Errorf("llmstream: %w", shared), New("sk-not-in-it-123"))
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// wrapped is an error that wraps another, one level of a chain.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrap: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

// TestErrorChainDepth: a *url.Error is cleaned in place down to
// maxChainDepth wrappers, and a chain deeper than that, or one that loops,
// ends the walk instead of running on.
func TestErrorChainDepth(t *testing.T) {
	for _, tc := range []struct {
		depth   int
		cleaned bool
	}{
		{maxChainDepth - 1, true},
		{maxChainDepth, true},
		{maxChainDepth + 1, false},
	} {
		ue := &url.Error{Op: "Post", URL: "https://x.test/?key=k-secret-1", Err: errors.New("refused")}
		var err error = ue
		for range tc.depth {
			err = &wrapped{err}
		}
		Error(err, nil)
		if got := ue.URL == "https://x.test/?key=REDACTED"; got != tc.cleaned {
			t.Errorf("a url.Error under %d wrappers: URL %q, cleaned %v, want %v", tc.depth, ue.URL, got, tc.cleaned)
		}
	}
	loop := &loopError{}
	loop.next = loop
	Error(loop, nil) // returns
}

// loopError wraps itself.
type loopError struct{ next error }

func (l *loopError) Error() string { return "loop" }
func (l *loopError) Unwrap() error { return l.next }
