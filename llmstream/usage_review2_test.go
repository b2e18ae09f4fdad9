package llmstream_test

import (
	"math/rand/v2"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// Every grouping of four usages (the five binary trees), among them empty
// usages of either convention and bills of output only: the sums' bill and
// InputTokens agree.
func TestUsageAddEveryGrouping_review2(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	random := func() llmstream.Usage {
		if r.IntN(5) == 0 {
			return llmstream.Usage{PromptExcludesCache: r.IntN(2) == 0}
		}
		u := llmstream.Usage{PromptTokens: r.IntN(50), CompletionTokens: r.IntN(50), CachedTokens: r.IntN(20),
			CacheWriteTokens: r.IntN(20), PromptExcludesCache: r.IntN(2) == 0}
		switch r.IntN(4) {
		case 0:
			u.BilledCompletionTokens = 1 + r.IntN(9)
		case 1:
			u.BilledPromptTokens, u.BilledCompletionTokens = 1+r.IntN(99), r.IntN(9)
		}
		return u
	}
	add := func(a, b llmstream.Usage) llmstream.Usage { a.Add(&b); return a }
	for range 20000 {
		a, b, c, d := random(), random(), random(), random()
		sums := []llmstream.Usage{
			add(add(add(a, b), c), d),
			add(add(a, add(b, c)), d),
			add(add(a, b), add(c, d)),
			add(a, add(add(b, c), d)),
			add(a, add(b, add(c, d))),
		}
		for i, s := range sums[1:] {
			if s.InputTokens() != sums[0].InputTokens() || s.BilledPromptTokens != sums[0].BilledPromptTokens ||
				s.BilledCompletionTokens != sums[0].BilledCompletionTokens || s.CompletionTokens != sums[0].CompletionTokens {
				t.Fatalf("grouping %d of %+v %+v %+v %+v = %+v, first grouping %+v", i+1, a, b, c, d, s, sums[0])
			}
		}
	}
}
