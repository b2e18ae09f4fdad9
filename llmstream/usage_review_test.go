package llmstream_test

import (
	"math/rand/v2"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestReviewUsageAddSums: over random usages of both cache conventions,
// with and without billed counts, summed in any grouping: InputTokens of
// the sum is the sum of InputTokens, every other count adds, and the bill
// is each one's bill; Add(nil) changes nothing; u.Add(u) doubles.
func TestReviewUsageAddSums(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	random := func() *llmstream.Usage {
		u := &llmstream.Usage{PromptTokens: r.IntN(100), CompletionTokens: r.IntN(100), TotalTokens: r.IntN(200),
			CachedTokens: r.IntN(50), CacheWriteTokens: r.IntN(50), ReasoningTokens: r.IntN(30), PromptExcludesCache: r.IntN(2) == 0}
		if r.IntN(3) == 0 {
			u.BilledPromptTokens, u.BilledCompletionTokens = 1+r.IntN(300), r.IntN(300)
		}
		return u
	}
	bill := func(u *llmstream.Usage) (int, int) {
		if u.BilledPromptTokens != 0 || u.BilledCompletionTokens != 0 {
			return u.BilledPromptTokens, u.BilledCompletionTokens
		}
		return u.InputTokens(), u.CompletionTokens
	}
	for range 5000 {
		us := []*llmstream.Usage{random(), random(), random()}
		var left llmstream.Usage // ((0+a)+b)+c
		for _, u := range us {
			left.Add(u)
		}
		bc := *us[1] // a+(b+c)
		bc.Add(us[2])
		right := *us[0]
		right.Add(&bc)
		in, out, cached, reasoning, bp, bcomp := 0, 0, 0, 0, 0, 0
		billed := false
		for _, u := range us {
			in += u.InputTokens()
			out += u.CompletionTokens
			cached += u.CachedTokens
			reasoning += u.ReasoningTokens
			p, c := bill(u)
			bp, bcomp = bp+p, bcomp+c
			billed = billed || u.BilledPromptTokens != 0 || u.BilledCompletionTokens != 0
		}
		for name, s := range map[string]llmstream.Usage{"left": left, "right": right} {
			if s.InputTokens() != in || s.CompletionTokens != out || s.CachedTokens != cached || s.ReasoningTokens != reasoning {
				t.Fatalf("%s sum of %+v %+v %+v = %+v: input %d want %d", name, *us[0], *us[1], *us[2], s, s.InputTokens(), in)
			}
			if billed && (s.BilledPromptTokens != bp || s.BilledCompletionTokens != bcomp) {
				t.Fatalf("%s sum of %+v %+v %+v: bill %d/%d, want %d/%d", name, *us[0], *us[1], *us[2], s.BilledPromptTokens, s.BilledCompletionTokens, bp, bcomp)
			}
		}
		before := left
		left.Add(nil)
		if left != before {
			t.Fatal("Add(nil) changed the sum")
		}
		u := *us[0]
		u.Add(&u)
		if u.InputTokens() != 2*us[0].InputTokens() || u.CompletionTokens != 2*us[0].CompletionTokens {
			t.Fatalf("u.Add(u) of %+v = %+v", *us[0], u)
		}
	}
}

// TestReviewUsageAddBillGrouping: the bill of a sum does not depend on
// how the usages were grouped, even when their cache conventions differ
// (it did: an unbilled usage billed its PromptTokens, which a sum that
// turned to the convention holding the cache had changed).
func TestReviewUsageAddBillGrouping(t *testing.T) {
	a := llmstream.Usage{PromptTokens: 1, BilledPromptTokens: 10, BilledCompletionTokens: 1, PromptExcludesCache: true}
	b := llmstream.Usage{PromptTokens: 5}
	c := llmstream.Usage{PromptTokens: 5, CachedTokens: 3, PromptExcludesCache: true}
	left := a
	left.Add(&b)
	left.Add(&c)
	bc := b
	bc.Add(&c)
	right := a
	right.Add(&bc)
	if left.BilledPromptTokens != right.BilledPromptTokens {
		t.Fatalf("(a+b)+c bills %d, a+(b+c) %d", left.BilledPromptTokens, right.BilledPromptTokens)
	}
}
