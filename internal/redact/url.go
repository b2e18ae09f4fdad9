package redact

import (
	"net/url"
	"strings"
)

// URL returns raw with its userinfo and fragment dropped and the value of
// every secret query parameter replaced by [Mask], so the text still shows
// which parameters were sent. A raw that does not parse is replaced whole:
// it cannot be shown safely.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Mask
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery = query(u.RawQuery)
	return u.String()
}

// query rewrites a raw query in place of order and encoding, replacing only
// secret values.
func query(q string) string {
	var b strings.Builder
	for q != "" {
		param, sep, rest := nextParam(q)
		if rawName, _, hasValue := strings.Cut(param, "="); hasValue && IsSecretName(unescape(rawName)) {
			param = rawName + "=" + Mask
		}
		b.WriteString(param)
		b.WriteString(sep)
		q = rest
	}
	return b.String()
}

// nextParam cuts the first parameter off a raw query: the parameter, the
// separator after it ("" at the end) and the rest. Parameters are split at
// ';' as well as '&': url.ParseQuery refuses a ';' (dropping the pair), but
// some servers take it as a separator, so "a=1;key=..." must not pass as
// one harmless parameter "a".
func nextParam(q string) (param, sep, rest string) {
	if i := strings.IndexAny(q, "&;"); i >= 0 {
		return q[:i], q[i : i+1], q[i+1:]
	}
	return q, "", ""
}

// unescape returns s with its query escapes decoded, or s itself when they
// do not decode.
func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// Userinfo blanks the user and password before every '@' in s: the text of
// an error about an unusable proxy address (HTTPS_PROXY set to
// "http://user:pass@host:port" with a typo, say) prints that address whole.
// The span blanked runs back from the '@' to a space, quote, slash or the
// start; a false positive only hides part of a message.
func Userinfo(s string) string {
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
			b.WriteString(Mask)
		}
		b.WriteByte('@')
		s = s[at+1:]
	}
}
