package agentcli

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
