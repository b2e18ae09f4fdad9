package agentcli

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// What a message may show of a value that is, or may hold, a secret.
// URLs go through internal/redact, the rule every error of the SDK uses.

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
