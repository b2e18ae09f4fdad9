package llmstream_test

import (
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestClientFacts: a Client says its dialect, model, base URL (without a
// credential) and the conventions' provider name, so a wrapper need not
// be told them again.
func TestClientFacts(t *testing.T) {
	const key = "sk-facts-0123456789"
	tests := []struct {
		name                     string
		opts                     []llmstream.ClientOption
		dialect                  llmstream.Dialect
		model, baseURL, provider string
	}{
		{"defaults", nil, llmstream.DialectChat, "", "https://api.openai.com/v1", "openai"},
		{"anthropic", opts(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithModel("claude")), llmstream.DialectAnthropic, "claude", llmstream.DefaultAnthropicBaseURL, "anthropic"},
		{"responses", opts(llmstream.WithDialect(llmstream.DialectResponses)), llmstream.DialectResponses, "", llmstream.DefaultResponsesBaseURL, "openai"},
		{"gemini", opts(llmstream.WithDialect(llmstream.DialectGemini)), llmstream.DialectGemini, "", llmstream.DefaultGeminiBaseURL, "gcp.gemini"},
		{"bedrock", opts(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL("https://bedrock-runtime.eu-west-1.amazonaws.com/")), llmstream.DialectBedrock, "", "https://bedrock-runtime.eu-west-1.amazonaws.com", "aws.bedrock"},
		{"vertex gemini", opts(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithVertex("p", "us-east5")), llmstream.DialectGemini, "", "https://us-east5-aiplatform.googleapis.com/v1", "gcp.vertex_ai"},
		{"vertex claude", opts(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithVertex("p", "global")), llmstream.DialectAnthropic, "", "https://aiplatform.googleapis.com/v1", "gcp.vertex_ai"},
		{"secrets in the URL", opts(llmstream.WithAPIKey(key), llmstream.WithBaseURL("https://user:pw-0123456789@x.test/v1/?key=AIzaSecret0123&x="+key+"#frag")), llmstream.DialectChat, "", "https://x.test/v1?key=REDACTED&x=REDACTED", "openai"},
		{"bad base URL", opts(llmstream.WithBaseURL("ftp://x.test")), llmstream.DialectChat, "", "", "openai"},
	}
	for _, tt := range tests {
		c := llmstream.NewClient(tt.opts...)
		if got := c.Dialect(); got != tt.dialect {
			t.Errorf("%s: Dialect %v, want %v", tt.name, got, tt.dialect)
		}
		if got := c.Model(); got != tt.model {
			t.Errorf("%s: Model %q, want %q", tt.name, got, tt.model)
		}
		if got := c.BaseURL(); got != tt.baseURL {
			t.Errorf("%s: BaseURL %q, want %q", tt.name, got, tt.baseURL)
		}
		if got := c.ProviderName(); got != tt.provider {
			t.Errorf("%s: ProviderName %q, want %q", tt.name, got, tt.provider)
		}
	}
	var zero llmstream.Client
	if zero.Dialect() != 0 || zero.Model() != "" || zero.BaseURL() != "" || zero.ProviderName() != "" {
		t.Errorf("zero Client: %v %q %q %q", zero.Dialect(), zero.Model(), zero.BaseURL(), zero.ProviderName())
	}
	bad := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectChat), llmstream.WithVertex("p", "l"))
	if bad.ProviderName() != "" || bad.BaseURL() != "" {
		t.Errorf("Vertex with chat: provider %q, base %q; want none (the Client cannot send)", bad.ProviderName(), bad.BaseURL())
	}
}

// TestInputTokens: the same request, cache included, counts the same
// input tokens in every dialect, whether the provider's prompt count holds
// the cache (chat, Responses, Gemini) or leaves it out (Anthropic,
// Bedrock).
func TestInputTokens(t *testing.T) {
	const prompt, read, write = 40, 8, 2
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses, llmstream.DialectGemini, llmstream.DialectBedrock} {
		// The server writes PromptTokens as the provider's prompt count.
		u := llmstream.Usage{PromptTokens: prompt, CompletionTokens: 5, CachedTokens: read, CacheWriteTokens: write}
		want := prompt // the count holds the cache
		if d == llmstream.DialectAnthropic || d == llmstream.DialectBedrock {
			want = prompt + read + write
		}
		srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hi", Usage: &u}))
		msg, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithDialect(d), llmstream.WithModel("m"), llmstream.WithIncludeUsage(true)).Stream(t.Context(), llmstream.Request{})
		if err != nil || msg.Usage == nil {
			t.Fatalf("%v: %v, usage %v", d, err, msg.Usage)
		}
		if got := msg.Usage.InputTokens(); got != want {
			t.Errorf("%v: InputTokens %d, want %d (%+v)", d, got, want, *msg.Usage)
		}
	}
	if got := (llmstream.Usage{PromptTokens: 10, CachedTokens: 4}).InputTokens(); got != 10 {
		t.Errorf("a hand-made Usage: InputTokens %d, want PromptTokens", got)
	}
}
