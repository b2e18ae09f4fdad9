package llmstream

import "testing"

// TestAddUsage checks the sum of two attempts' usage, billed fields
// mixed: where one bills its steps, the other's plain counts are its bill.
func TestAddUsage(t *testing.T) {
	tests := []struct {
		name      string
		a, b, sum Usage
	}{
		{"plain", Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4, CachedTokens: 2},
			Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7, ReasoningTokens: 1, CacheWriteTokens: 3},
			Usage{PromptTokens: 8, CompletionTokens: 3, TotalTokens: 11, CachedTokens: 2, ReasoningTokens: 1, CacheWriteTokens: 3}},
		{"one billed", Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4},
			Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7, BilledPromptTokens: 20, BilledCompletionTokens: 9},
			Usage{PromptTokens: 8, CompletionTokens: 3, TotalTokens: 11, BilledPromptTokens: 23, BilledCompletionTokens: 10}},
		{"cache out and in", Usage{PromptTokens: 3, CachedTokens: 10, PromptExcludesCache: true}, Usage{PromptTokens: 12, CachedTokens: 10},
			Usage{PromptTokens: 25, CachedTokens: 20}},
		{"cache out both", Usage{PromptTokens: 3, CachedTokens: 10, PromptExcludesCache: true}, Usage{PromptTokens: 2, CacheWriteTokens: 5, PromptExcludesCache: true},
			Usage{PromptTokens: 5, CachedTokens: 10, CacheWriteTokens: 5, PromptExcludesCache: true}},
		{"both billed", Usage{BilledPromptTokens: 1, BilledCompletionTokens: 2}, Usage{BilledPromptTokens: 3, BilledCompletionTokens: 4},
			Usage{BilledPromptTokens: 4, BilledCompletionTokens: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &failoverRun{}
			a, b := tt.a, tt.b
			run.addUsage(nil)
			run.addUsage(&a)
			if run.usage != &a {
				t.Fatal("the first report was copied")
			}
			run.addUsage(&b)
			if *run.usage != tt.sum || a != tt.a {
				t.Fatalf("sum %+v (first now %+v), want %+v with the first untouched", *run.usage, a, tt.sum)
			}
		})
	}
}

// TestThinkingAsked checks the request's settings over the client's
// defaults: what the request sets wins, what it leaves unset comes from
// the defaults.
func TestThinkingAsked(t *testing.T) {
	zero, some := 0, 2048
	tests := []struct {
		name string
		r, d *Request
		want bool
	}{
		{"nothing", &Request{}, nil, false},
		{"budget", &Request{ThinkingBudget: &some}, nil, true},
		{"budget 0", &Request{ThinkingBudget: &zero}, nil, false},
		{"effort", &Request{ReasoningEffort: "low"}, nil, true},
		{"effort none", &Request{ReasoningEffort: "none"}, nil, false},
		{"defaults' budget", &Request{}, &Request{ThinkingBudget: &some}, true},
		{"request's 0 over the defaults' budget", &Request{ThinkingBudget: &zero}, &Request{ThinkingBudget: &some}, false},
		{"request's none over the defaults' effort", &Request{ReasoningEffort: "none"}, &Request{ReasoningEffort: "high"}, false},
		{"Extra thinking", &Request{Extra: map[string]any{"thinking": map[string]any{"type": "enabled"}}}, nil, true},
		{"defaults' Bedrock fields", &Request{}, &Request{Extra: map[string]any{"additionalModelRequestFields": map[string]any{}}}, true},
	}
	for _, tt := range tests {
		if got := thinkingAsked(tt.r, tt.d); got != tt.want {
			t.Errorf("%s: thinkingAsked = %v, want %v", tt.name, got, tt.want)
		}
	}
}
