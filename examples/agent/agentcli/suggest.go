package agentcli

import "strings"

// nearest returns the candidate a mistyped name most likely meant, for a
// "did you mean": one equal to it but for case and - against _, or else the
// closest by edit distance (a letter inserted, deleted, replaced, or two
// neighbours swapped): none for names of up to 2 letters, at most 1 for up
// to 4 and 2 for longer ones. Ties go to the earlier candidate; "" when none
// is close enough.
func nearest(name string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	n := norm(name)
	limit := 2
	switch {
	case len(n) <= 2:
		limit = 0
	case len(n) <= 4:
		limit = 1
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		d := editDistance(n, norm(c))
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// byte by byte: the fewest insertions, deletions, replacements and swaps of
// two neighbours that turn a into b, no substring edited twice.
func editDistance(a, b string) int {
	// Three rows of the table: two back (for swaps), one back, this one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
