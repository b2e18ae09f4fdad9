package transport

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// redacted replaces a secret wherever one would have been printed.
const redacted = "REDACTED"

// secretParamWords are the fragments that mark a query parameter's value as a
// credential: key, api-key, api_key, apikey, access_token, sig (Azure SAS),
// password, and so on. A false positive only hides a value from an error
// message, so the list errs on the side of hiding.
var secretParamWords = [...]string{"key", "token", "secret", "password", "passwd", "auth", "sig", "credential", "session"}

// isSecretParam reports whether a query parameter named name carries a
// credential.
func isSecretParam(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretParamWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactURL returns raw with its userinfo and fragment dropped and the value
// of every secret query parameter replaced by REDACTED. A raw that does not
// parse is replaced whole: it cannot be shown safely.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redacted
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery = redactQuery(u.RawQuery)
	return u.String()
}

// redactQuery rewrites a raw query in place of order and encoding, replacing
// only secret values, so the result still shows which parameters were sent.
// Parameters are split at ';' as well as '&': url.ParseQuery refuses a ';'
// (dropping the pair), but some servers take it as a separator, so
// "a=1;key=..." must not pass as one harmless parameter "a".
func redactQuery(q string) string {
	var b strings.Builder
	for q != "" {
		param, sep, rest := q, "", ""
		if i := strings.IndexAny(q, querySeparators); i >= 0 {
			param, sep, rest = q[:i], q[i:i+1], q[i+1:]
		}
		if rawName, _, hasValue := strings.Cut(param, "="); hasValue && isSecretParam(unescape(rawName)) {
			param = rawName + "=" + redacted
		}
		b.WriteString(param)
		b.WriteString(sep)
		q = rest
	}
	return b.String()
}

// querySeparators are the bytes that may end a query parameter.
const querySeparators = "&;"

// unescape returns s with its query escapes decoded, or s itself when they
// do not decode.
func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// redactError removes from err the secrets that Go's HTTP client prints: a
// *url.Error carries the full request URL, and its Error method prints it.
// The chain is otherwise kept, so errors.Is and errors.As still see the
// cause.
func redactError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	safe := &url.Error{Op: ue.Op, URL: redactURL(ue.URL), Err: ue.Err}
	if ue == err {
		return safe
	}
	// The url.Error sits deeper in a chain we did not build; fall back to a
	// text that cannot leak, keeping the cause reachable.
	return &redactedError{msg: safe.Error(), err: ue.Err}
}

// redactedError is an error whose text has been cleaned of secrets while its
// cause stays reachable through Unwrap.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// requestSecrets lists the credentials req carries — the values of its
// authentication headers and secret query parameters — so that an error
// body echoing one can be blanked out. Values shorter than 8 bytes are
// skipped: blanking "1" everywhere would garble the text and hide nothing
// worth hiding.
func requestSecrets(req *http.Request) []string {
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= 8 {
			out = append(out, v)
		}
	}
	for _, h := range [...]string{"Authorization", "Proxy-Authorization", "Api-Key", "X-Api-Key", "X-Goog-Api-Key", "Cookie"} {
		for _, v := range req.Header.Values(h) {
			add(v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				add(cred) // "Bearer sk-..." → also the bare token
			}
		}
	}
	if req.URL != nil {
		// Split as redactQuery splits; URL.Query would drop a pair
		// joined by ';'.
		for _, param := range strings.FieldsFunc(req.URL.RawQuery, func(r rune) bool { return strings.ContainsRune(querySeparators, r) }) {
			if rawName, rawValue, hasValue := strings.Cut(param, "="); hasValue && isSecretParam(unescape(rawName)) {
				add(unescape(rawValue))
			}
		}
		if req.URL.User != nil {
			if p, ok := req.URL.User.Password(); ok {
				add(p)
			}
		}
	}
	return out
}

// redactUserinfo blanks the user and password before every '@' in s: the
// text of an error about an unusable proxy address (HTTPS_PROXY set to
// "http://user:pass@host:port" with a typo, say) prints that address whole.
// The span blanked runs back from the '@' to a space, quote, slash or the
// start; a false positive only hides part of a message.
func redactUserinfo(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	for {
		at := strings.IndexByte(s, '@')
		if at < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := strings.LastIndexAny(s[:at], " \t\"'`/<>") + 1
		b.WriteString(s[:start])
		if start < at {
			b.WriteString(redacted)
		}
		b.WriteByte('@')
		s = s[at+1:]
	}
}

// redactProxy wraps a proxy function so that its errors, which net/http
// returns inside a *url.Error, print no proxy credentials. The cause stays
// reachable for errors.Is and errors.As.
func redactProxy(fn func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	if fn == nil {
		return nil
	}
	return func(r *http.Request) (*url.URL, error) {
		u, err := fn(r)
		if err != nil {
			return nil, &redactedError{msg: "proxy: " + redactUserinfo(err.Error()), err: err}
		}
		return u, nil
	}
}
