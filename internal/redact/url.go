package redact

import (
	"net/url"
	"strings"
)

// URL returns raw with its userinfo and fragment dropped and the value of
// every secret query parameter replaced by [Mask], so the text still shows
// which parameters were sent. Of a raw that does not parse (a typo in a
// configuration, say) only what cannot hold a credential is kept: the query
// and fragment go, and so does everything from "://" to the last '@' of the
// host part.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return unparsed(raw)
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery = query(u.RawQuery)
	return u.String()
}

// unparsed is URL for text url.Parse refuses. What comes before a "://"
// is taken for a scheme, mangled or not, unless it holds a '/': then the
// "://" is in the path (as in "//user:pw@host/a://b"), and the authority
// starts after the leading "//", if any.
func unparsed(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	scheme, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 && !strings.Contains(s[:i], "/") {
		scheme, rest = s[:i+3], s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		scheme, rest = "//", s[2:]
	}
	host := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host = rest[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		rest = Mask + rest[i:]
	}
	return scheme + rest
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
