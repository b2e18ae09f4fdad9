package agentcli

import "testing"

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"model", "model", 0},
		{"modle", "model", 1},  // swap
		{"mdel", "model", 1},   // insert
		{"modeel", "model", 1}, // delete
		{"morel", "model", 1},  // replace
		{"timout", "timeout", 1},
		{"ca", "abc", 3}, // OSA: no editing a swapped pair again
		{"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	keys := []string{"base_url", "api_key", "model", "workspace", "max_turns", "max_total_tool_calls", "timeout", "tool_timeout", "e"}
	for _, tc := range []struct{ name, want string }{
		{"modle", "model"},
		{"base-url", "base_url"},
		{"BASE_URL", "base_url"},
		{"api-key", "api_key"},
		{"apikey", "api_key"},
		{"max_turn", "max_turns"},
		{"max-turn", "max_turns"},
		{"timout", "timeout"},
		{"tool-timout", "tool_timeout"},
		{"workspce", "workspace"},
		{"modelx", "model"},
		// Too far, or too short to guess from.
		{"colour", ""},
		{"xyz", ""},
		{"mod", ""},
		{"f", ""},
		{"", ""},
		{"E", "e"},
	} {
		if got := nearest(tc.name, keys); got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
