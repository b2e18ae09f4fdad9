package llmstream_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// The leak matrix: a server that echoes every credential the request
// carried, in every place an answer can hold text, to a client of every
// dialect built every way, with the credential in every place a request
// can carry one. No error
// text, no field of an error, no transport event may show it.

// leakSecret is the credential; its tail is unlikely anywhere by accident.
const leakSecret = "sk-LEAK-7f3a9c2e5b1d"

// echoes are the places an answer can repeat the request's credentials.
var echoes = []struct {
	name  string
	serve func(w http.ResponseWriter, echo string)
}{
	{"text body", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "bad credentials: "+echo)
	}},
	{"JSON error fields", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": "bad: " + echo, "type": echo, "param": echo, "code": echo}})
	}},
	{"JSON error, no known shape", func(w http.ResponseWriter, echo string) {
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]string{"detail": echo})
	}},
	{"in-stream error", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": echo, "type": echo, "code": echo, "param": echo}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}},
	{"error event", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "overloaded_error", "message": echo}})
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", b)
	}},
	{"error: line", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"code": 500, "message": echo})
		fmt.Fprintf(w, "error: %s\n\ndata: [DONE]\n\n", b)
	}},
	{"malformed event", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\": %s\n\n", echo)
	}},
	{"HTML 200", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><body>Sign in. Your token: "+echo+"</body></html>")
	}},
	{"JSON with \\/", func(w http.ResponseWriter, echo string) {
		// PHP, and some Java and Ruby encoders, write "/" as "\/".
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		b, _ := json.Marshal(map[string]string{"detail": echo})
		w.Write(bytes.ReplaceAll(b, []byte("/"), []byte(`\/`)))
	}},
	{"Responses failed", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"type": "response.failed", "response": map[string]any{"error": map[string]string{"code": echo, "message": echo}}})
		fmt.Fprintf(w, "event: response.failed\ndata: %s\n\n", b)
	}},
	{"Gemini error body", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 429, "message": echo, "status": echo, "details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0s"}}}})
	}},
	{"bad JSON completion", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[`+echo)
	}},
}

// echoForms are the ways a server may write the credential it echoes:
// as is, or with plain characters escaped — a JSON \u escape of a letter,
// %XX of the dashes — which the README promises to catch too.
var echoForms = []struct {
	name   string
	encode func(string) string
}{
	{"as is", func(s string) string { return s }},
	{"JSON-escaped letter", func(s string) string { return `\u0073` + s[1:] }},
	{"URL-escaped dashes", func(s string) string { return strings.ReplaceAll(s, "-", "%2D") }},
}

// formWriter writes what the handler writes with the credential in form.
type formWriter struct {
	http.ResponseWriter
	encode func(string) string
}

func (w formWriter) Write(p []byte) (int, error) {
	_, err := w.ResponseWriter.Write(bytes.ReplaceAll(p, []byte(leakSecret), []byte(w.encode(leakSecret))))
	return len(p), err
}

func (w formWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// escapeRE matches one JSON escape or URL %XX.
var escapeRE = regexp.MustCompile(`\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}`)

// unescapeAll decodes every \uXXXX and %XX of s.
func unescapeAll(s string) string {
	return escapeRE.ReplaceAllStringFunc(s, func(e string) string {
		if e[0] == '%' {
			b, _ := strconv.ParseUint(e[1:], 16, 8)
			return string([]byte{byte(b)})
		}
		r, _ := strconv.ParseUint(e[2:], 16, 16)
		return string(rune(r))
	})
}

// credentials are the places a request can carry one.
var credentials = []struct {
	name string
	opts func(base string) (string, []llmstream.ClientOption)
}{
	{"WithAPIKey", func(b string) (string, []llmstream.ClientOption) { return b, opts(llmstream.WithAPIKey(leakSecret)) }},
	{"Authorization", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("Authorization", "Bearer "+leakSecret))
	}},
	{"Proxy-Authorization", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("Proxy-Authorization", "Basic "+leakSecret))
	}},
	{"Api-Key", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("Api-Key", leakSecret))
	}},
	{"X-Api-Key", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("X-Api-Key", leakSecret))
	}},
	{"X-Goog-Api-Key", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("X-Goog-Api-Key", leakSecret))
	}},
	{"a header of any name", func(b string) (string, []llmstream.ClientOption) {
		return b, opts(llmstream.WithHeader("X-Portal-Id", leakSecret))
	}},
	{"query key", func(b string) (string, []llmstream.ClientOption) { return b + "?key=" + leakSecret, nil }},
	{"query api-key", func(b string) (string, []llmstream.ClientOption) {
		return b + "?api-version=1&api-key=" + leakSecret, nil
	}},
	{"query api_key", func(b string) (string, []llmstream.ClientOption) { return b + "?api_key=" + leakSecret, nil }},
	{"query token", func(b string) (string, []llmstream.ClientOption) { return b + "?token=" + leakSecret, nil }},
	{"query sig", func(b string) (string, []llmstream.ClientOption) { return b + "?sv=2024&sig=" + leakSecret, nil }},
	{"query sig with / and +", func(b string) (string, []llmstream.ClientOption) {
		return b + "?sv=2024&sig=" + url.QueryEscape("a/b+"+leakSecret), nil
	}},
	{"userinfo", func(b string) (string, []llmstream.ClientOption) {
		return strings.Replace(b, "http://", "http://user:"+leakSecret+"@", 1), nil
	}},
	{"userinfo, a token alone", func(b string) (string, []llmstream.ClientOption) {
		return strings.Replace(b, "http://", "http://"+leakSecret+"@", 1), nil
	}},
}

// basicLeaks are the userinfo credentials as net/http sends them.
var basicLeaks = []string{
	base64.StdEncoding.EncodeToString([]byte("user:" + leakSecret)),
	base64.StdEncoding.EncodeToString([]byte(leakSecret + ":")),
}

func opts(o ...llmstream.ClientOption) []llmstream.ClientOption { return o }

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// eventLog collects a transport's observer events.
type eventLog struct {
	mu     sync.Mutex
	events []transport.Event
}

func (l *eventLog) add(e transport.Event) { l.mu.Lock(); l.events = append(l.events, e); l.mu.Unlock() }

// echoServer answers each request with the echo its first path element
// names, repeating every header value and the raw query and userinfo, the
// credential in the form of echoForms its second path element names (as is
// when it names none).
func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode, echo := echoOf(r)
		if path := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/"); len(path) > 1 {
			form, _ := url.PathUnescape(path[1])
			for _, f := range echoForms {
				if f.name == form {
					w = formWriter{w, f.encode}
				}
			}
		}
		for _, e := range echoes {
			if e.name == mode {
				e.serve(w, echo)
				return
			}
		}
		http.Error(w, "unknown echo "+mode, http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// echoOf is the echo mode a request's first path element names and the
// text that repeats every header value, the raw query and the userinfo.
func echoOf(r *http.Request) (mode, echo string) {
	var parts []string
	for k, vs := range r.Header {
		parts = append(parts, k+": "+strings.Join(vs, ","))
	}
	sort.Strings(parts)
	parts = append(parts, "query: "+r.URL.RawQuery)
	if u, p, ok := r.BasicAuth(); ok {
		parts = append(parts, "basic: "+u+":"+p)
	}
	mode, _ = url.PathUnescape(strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")[0])
	return mode, strings.Join(parts, "; ")
}

func TestNoCredentialLeaks(t *testing.T) {
	srv := echoServer(t)
	constructions := []struct {
		name string
		doer func(log *eventLog) llmstream.Doer // nil: the default
	}{
		{"default", nil},
		{"transport.New", func(log *eventLog) llmstream.Doer {
			return transport.New(transport.WithRetry(0, 0, 0), transport.WithObserver(log.add))
		}},
		{"*http.Client", func(*eventLog) llmstream.Doer { return &http.Client{} }},
		{"custom Doer", func(*eventLog) llmstream.Doer {
			return doerFunc(func(r *http.Request) (*http.Response, error) { return http.DefaultTransport.RoundTrip(r) })
		}},
	}
	cases, leaks := 0, 0
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses, llmstream.DialectGemini} {
		for _, e := range echoes {
			for _, form := range echoForms {
				for _, c := range constructions {
					for _, cred := range credentials {
						name := d.String() + "/" + e.name + "/" + form.name + "/" + c.name + "/" + cred.name
						t.Run(name, func(t *testing.T) {
							cases++
							log := &eventLog{}
							base, o := cred.opts(srv.URL + "/" + url.PathEscape(e.name) + "/" + url.PathEscape(form.name) + "/v1")
							o = append(o, llmstream.WithBaseURL(base), llmstream.WithDialect(d))
							if c.doer != nil {
								o = append(o, llmstream.WithHTTPClient(c.doer(log)))
							}
							_, err := llmstream.NewClient(o...).Stream(t.Context(), llmstream.Request{Model: "m"})
							if err == nil {
								t.Fatal("no error")
							}
							if where := leakIn(err, log); where != "" {
								leaks++
								t.Errorf("the credential leaks in %s: %v", where, err)
							}
						})
					}
				}
			}
		}
	}
	t.Logf("leak matrix: %d cases, %d leaks", cases, leaks)
}

// leakIn says where err or the logged events show the credential, "" when
// nowhere.
func leakIn(err error, log *eventLog) string {
	texts := map[string]string{
		"Error()": err.Error(),
		"%v":      fmt.Sprintf("%v", err),
		"%+v":     fmt.Sprintf("%+v", err),
	}
	var api *llmstream.APIError
	if errors.As(err, &api) {
		texts["APIError fields"] = strings.Join([]string{api.Message, api.Type, api.Code, api.Param}, " ")
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		texts["StatusError.Body"] = string(se.Body)
	}
	var ee *llmstream.EventError
	if errors.As(err, &ee) {
		texts["EventError.Data"] = string(ee.Data)
	}
	var ce *llmstream.ContentTypeError
	if errors.As(err, &ce) {
		texts["ContentTypeError"] = ce.URL + " " + ce.Excerpt
	}
	log.mu.Lock()
	for i, ev := range log.events {
		texts[fmt.Sprintf("event %d", i)] = ev.String() + " " + ev.URL
	}
	log.mu.Unlock()
	for where, text := range texts {
		for _, leak := range append([]string{leakSecret, url.QueryEscape(leakSecret)}, basicLeaks...) {
			if strings.Contains(text, leak) || strings.Contains(unescapeAll(text), leak) {
				return where
			}
		}
	}
	return ""
}

// TestWithSecretsCoversTheCallersClient: a credential the caller's own HTTP
// client adds is unknown to the Client until WithSecrets names it.
func TestWithSecretsCoversTheCallersClient(t *testing.T) {
	srv := echoServer(t)
	addsKey := doerFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("X-Vendor-Id", leakSecret) // a name that does not say it is a credential
		return http.DefaultTransport.RoundTrip(r)
	})
	base := llmstream.WithBaseURL(srv.URL + "/" + url.PathEscape("text body") + "/v1")
	_, err := llmstream.NewClient(base, llmstream.WithHTTPClient(addsKey)).Stream(t.Context(), llmstream.Request{})
	if !strings.Contains(err.Error(), leakSecret) {
		t.Fatalf("without WithSecrets: err = %v; the test does not reach the credential", err)
	}
	_, err = llmstream.NewClient(base, llmstream.WithHTTPClient(addsKey), llmstream.WithSecrets(leakSecret)).Stream(t.Context(), llmstream.Request{})
	if where := leakIn(err, &eventLog{}); where != "" {
		t.Errorf("with WithSecrets the credential leaks in %s: %v", where, err)
	}
	if s := llmstream.WithSecrets(leakSecret).String(); strings.Contains(s, leakSecret) {
		t.Errorf("the option prints the secret: %s", s)
	}
}

// TestNotEventStreamCutSecret: the excerpt of a page that is not an event
// stream shows no part of a credential, wherever the page's bytes that the
// excerpt shows end.
func TestNotEventStreamCutSecret(t *testing.T) {
	for pad := 0; pad < 700; pad++ {
		page := strings.Repeat("x", pad) + " " + leakSecret + " " + strings.Repeat("y", 700)
		d := doerFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: io.NopCloser(strings.NewReader(page)), Request: r}, nil
		})
		_, err := llmstream.NewClient(llmstream.WithHTTPClient(d), llmstream.WithAPIKey(leakSecret)).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrNotEventStream) {
			t.Fatalf("err = %v", err)
		}
		if text := err.Error(); strings.Contains(text, leakSecret[:2]) {
			t.Fatalf("padding %d: the start of the key shows: %s", pad, text[strings.Index(text, leakSecret[:2]):])
		}
	}
}

// TestProxyPasswordWhateverTheDoer: net/http prints a proxy address it
// cannot use whole, password included (HTTPS_PROXY with a typo); the
// Client keeps it out whatever HTTP client it was given.
func TestProxyPasswordWhateverTheDoer(t *testing.T) {
	const password = "pa55-word-1234"
	cause := errors.New(`invalid proxy address "http://bob:` + password + `@proxy.test:3128 x": invalid character " " in host name`)
	hc := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return nil, cause }}}
	_, err := llmstream.NewClient(llmstream.WithHTTPClient(hc), llmstream.WithBaseURL("http://127.0.0.1:1/v1")).Stream(t.Context(), llmstream.Request{})
	if err == nil || !errors.Is(err, cause) {
		t.Fatalf("err = %v; want the cause in the chain", err)
	}
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err)} {
		if strings.Contains(text, password) || !strings.Contains(text, "invalid proxy address") {
			t.Errorf("err = %s; want the reason without the password", text)
		}
	}
}

// TestClientPrintsNoCredential: a Client printed in a log, by itself or as
// a field of the caller's own struct, in any verb, shows no credential.
func TestClientPrintsNoCredential(t *testing.T) {
	c := llmstream.NewClient(llmstream.WithAPIKey(leakSecret), llmstream.WithHeader("Api-Key", leakSecret),
		llmstream.WithBaseURL("https://user:"+leakSecret+"@api.example.com/v1?key="+leakSecret), llmstream.WithModel("m1"))
	type agent struct {
		Name   string
		Client llmstream.Client
		Ptr    *llmstream.Client
	}
	// fmt cannot call String on an unexported field: it prints what the
	// Client holds, which shows only addresses in the verbs of a log line.
	type hidden struct {
		client llmstream.Client
		ptr    *llmstream.Client
	}
	cases := []struct {
		v     any
		verbs []string
	}{
		{c, []string{"%v", "%+v", "%#v", "%s"}},
		{*c, []string{"%v", "%+v", "%#v", "%s"}},
		{agent{"a", *c, c}, []string{"%v", "%+v", "%#v", "%s"}},
		{llmstream.Client{}, []string{"%v", "%+v", "%#v", "%s"}},
		{hidden{*c, c}, []string{"%v", "%+v", "%#v"}},
	}
	for _, tc := range cases {
		for _, verb := range tc.verbs {
			if got := fmt.Sprintf(verb, tc.v); strings.Contains(got, leakSecret) || strings.Contains(got, url.QueryEscape(leakSecret)) {
				t.Errorf("%s of %T shows the key: %s", verb, tc.v, got)
			}
		}
	}
	if got, want := fmt.Sprint(c), `llmstream.Client(chat https://api.example.com/v1?key=REDACTED model="m1")`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

// addsToken is an HTTP client of the caller's that adds a credential to
// each request as it sends it, as golang.org/x/oauth2's Transport does
// with a token it refreshes: a value WithSecrets cannot name in advance.
type addsToken struct{ token string }

func (a addsToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestCallersTransportToken: a credential the caller's own transport added
// is kept out of the error of an HTTP error answer or of a page that is
// not an event stream, since the response says what request was sent.
func TestCallersTransportToken(t *testing.T) {
	srv := echoServer(t)
	for _, echo := range []string{"text body", "JSON error fields", "HTML 200"} {
		hc := &http.Client{Transport: addsToken{leakSecret}}
		_, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/"+url.PathEscape(echo)+"/v1"), llmstream.WithHTTPClient(hc)).Stream(t.Context(), llmstream.Request{})
		if err == nil {
			t.Fatalf("%s: no error", echo)
		}
		if where := leakIn(err, &eventLog{}); where != "" {
			t.Errorf("%s: the token leaks in %s: %v", echo, where, err)
		}
	}
}

// rebuildingDoer answers 401 with a body that echoes what it is given, and
// hands back a request it built anew, as a Doer that signs requests might:
// none of the client's credentials are in it.
type rebuildingDoer struct{ body string }

func (d rebuildingDoer) Do(req *http.Request) (*http.Response, error) {
	sent, _ := http.NewRequest(req.Method, req.URL.String(), nil)
	return &http.Response{StatusCode: 401, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(d.body)), Request: sent}, nil
}

// TestSecretsWhenTheDoerRebuildsTheRequest: the client's own secrets are
// hidden in an error answer whatever request the Doer says it sent.
func TestSecretsWhenTheDoerRebuildsTheRequest(t *testing.T) {
	const key, marked = "sk-apikey-0123456789", "proxy-secret-0123456789"
	for _, ct := range []string{"application/json", "text/html"} {
		d := rebuildingDoer{`{"error":{"message":"bad ` + marked + ` ` + key + `","type":"x"}}`}
		c := llmstream.NewClient(llmstream.WithBaseURL("https://example.invalid/v1"), llmstream.WithAPIKey(key), llmstream.WithSecrets(marked),
			llmstream.WithHTTPClient(doerFunc(func(r *http.Request) (*http.Response, error) {
				resp, err := d.Do(r)
				if ct != "application/json" { // a 2xx that is no event stream
					resp.StatusCode, resp.Header = 200, http.Header{"Content-Type": {ct}}
				}
				return resp, err
			})))
		_, err := c.Stream(t.Context(), llmstream.Request{})
		if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), marked) {
			t.Errorf("%s: %v", ct, err)
		}
	}
}
