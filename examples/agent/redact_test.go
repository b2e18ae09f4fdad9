package main

import "testing"

func TestRedactSecret(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"short", `"…" (5 characters)`},
		{"fifteen-chars-x", `"…" (15 characters)`},
		{"sixteen-chars-xy", `"six…" (16 characters)`},
		{"sk-proj-0123456789abcdef", `"sk-…" (24 characters)`},
		{"ключ-0123456789abcdef", `"клю…" (21 characters)`},
		{"\x1b[2J0123456789abcdef", `"\x1b[2…" (20 characters)`},
	} {
		if got := redactSecret(tc.in); got != tc.want {
			t.Errorf("redactSecret(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"https://user:pw@h.test/v1", "https://user:xxxxx@h.test/v1"},
		{"https://h.test/v1?key=AIza123&alt=sse", "https://h.test/v1?alt=xxxxx&key=xxxxx"},
		{"h.test/v1?key=AIza123", "h.test/v1?key=xxxxx"},
		// Text url.Parse refuses: all between :// and the last @ of the
		// host part goes, and the query.
		{"http://u:pw@h\x7f/v1?key=1", "http://xxxxx@h\x7f/v1"},
		{"http://h\x7f/a@b", "http://h\x7f/a@b"},
		{"u:pw@h\x7f", "xxxxx@h\x7f"},
	} {
		if got := redactURL(tc.in); got != tc.want {
			t.Errorf("redactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
