package temporal

import "github.com/airlock-go/airlock/agentloop"

// needsApproval reports whether calls of t wait for a person. Until
// agentloop has Tool.NeedsApproval, a tool asks for it with a Description
// that starts with "[approve]" — interim, for the tests; replaced at the
// merge of the agentloop rewrite.
func needsApproval(t agentloop.Tool) bool {
	return len(t.Description) >= 9 && t.Description[:9] == "[approve]"
}
