package llmstream

import (
	"reflect"
	"testing"
)

// Add sums every count, found by reflection, so a count added to Usage
// later cannot be left out of the sum.
func TestUsageAdd(t *testing.T) {
	for _, excludes := range []bool{false, true} {
		var a, b Usage
		va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
		for i := range va.NumField() {
			if va.Field(i).Kind() != reflect.Int {
				continue
			}
			va.Field(i).SetInt(int64(i + 1))
			vb.Field(i).SetInt(int64(100 * (i + 1)))
		}
		a.PromptExcludesCache, b.PromptExcludesCache = excludes, excludes
		a.Add(&b)
		a.Add(nil)
		for i := range va.NumField() {
			if va.Field(i).Kind() != reflect.Int {
				continue
			}
			if got, want := va.Field(i).Int(), int64(101*(i+1)); got != want {
				t.Errorf("excludes=%v: %s = %d after Add, want %d", excludes, va.Type().Field(i).Name, got, want)
			}
		}
		if a.PromptExcludesCache != excludes {
			t.Errorf("PromptExcludesCache = %v after adding alike usages, want %v", a.PromptExcludesCache, excludes)
		}
	}
}

// Usages that count the prompt differently (a run that moved from
// Anthropic to chat) sum to one whose InputTokens is every input token of
// both, whichever comes first; a zero Usage takes the first one's meaning.
func TestUsageAddMixedCache(t *testing.T) {
	anthropic := Usage{PromptTokens: 10, CachedTokens: 100, CacheWriteTokens: 1000, PromptExcludesCache: true}
	chat := Usage{PromptTokens: 20000, CachedTokens: 5000}
	want := anthropic.InputTokens() + chat.InputTokens()
	for _, order := range [][2]Usage{{anthropic, chat}, {chat, anthropic}} {
		var sum Usage
		sum.Add(&order[0])
		if sum != order[0] {
			t.Fatalf("zero + %+v = %+v", order[0], sum)
		}
		sum.Add(&order[1])
		if got := sum.InputTokens(); got != want {
			t.Errorf("InputTokens of %+v + %+v = %d, want %d", order[0], order[1], got, want)
		}
		if sum.PromptExcludesCache {
			t.Errorf("a mixed sum says its prompt leaves the cache out: %+v", sum)
		}
		if sum.CachedTokens != 5100 || sum.CacheWriteTokens != 1000 {
			t.Errorf("cache counts of the sum = %d, %d", sum.CachedTokens, sum.CacheWriteTokens)
		}
	}
}
