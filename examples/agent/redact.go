package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a message may show of a value that is, or may hold, a secret.

// redactSecret shows a secret in a message without giving it away: quoted,
// its first three characters when it has 16 or more (enough to tell an
// "sk-" key from a "Bearer ..." header pasted whole, too few to matter),
// and its length.
func redactSecret(s string) string {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return `""`
	}
	shown := ""
	if n >= 16 {
		k := 0
		for i := range s {
			if k == 3 {
				shown = s[:i]
				break
			}
			k++
		}
	}
	return fmt.Sprintf("%s (%s)", strconv.Quote(shown+"…"), plural(n, "character"))
}

// redactURL hides what in a URL may be a secret: the password, and the
// values of the query (some servers take the key as ?key=...). Text that
// does not parse loses everything between "://" and the last "@" of its
// host part, and its whole query.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"xxxxx"}
			}
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	rest := s
	scheme := ""
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = s[:i+3], s[i+3:]
	}
	host := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host = rest[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		rest = "xxxxx" + rest[i:]
	}
	return scheme + rest
}
