package agentcli

import (
	"bytes"
	"strings"
	"testing"
)

// TestOfflineKeyHints: with a provider's key in the environment the
// offline demo stays offline but says the command that uses the key,
// naming the variable and never its value; with none it says how to use a
// real model at all.
func TestOfflineKeyHints(t *testing.T) {
	const secret = "sk-hint-secret-123456"
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"none", nil, []string{"To use a real model: go run ./examples/agent --base-url https://api.openai.com/v1 --model gpt-4o-mini"}},
		{"openai", map[string]string{"OPENAI_API_KEY": secret}, []string{"OPENAI_API_KEY is set; to use it: go run ./examples/agent --model gpt-4o-mini"}},
		{"anthropic and bedrock", map[string]string{"ANTHROPIC_API_KEY": secret, "AWS_BEARER_TOKEN_BEDROCK": secret}, []string{
			"ANTHROPIC_API_KEY is set; to use it: go run ./examples/agent --dialect anthropic --model claude-sonnet-4-5",
			"AWS_BEARER_TOKEN_BEDROCK is set; to use it: go run ./examples/agent --dialect bedrock --model " + defaultBedrockModel}},
		{"google's name for the gemini key", map[string]string{"GOOGLE_API_KEY": secret}, []string{"GOOGLE_API_KEY is set; to use it: go run ./examples/agent --dialect gemini --model gemini-2.5-flash"}},
		{"a blank key is no key", map[string]string{"OPENAI_API_KEY": " "}, []string{"To use a real model:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--offline-delay", "0"}, &stdout, &stderr, envOf(tt.env), WithCommand("go run ./examples/agent"))
			out := stdout.String()
			if code != exitOK || !strings.Contains(out, "OFFLINE") {
				t.Fatalf("exit %d, stderr %q: not the offline demo\n%s", code, stderr.String(), out)
			}
			banner, _, _ := strings.Cut(out, "task: ")
			for _, w := range tt.want {
				if !strings.Contains(banner, w) {
					t.Errorf("banner lacks %q:\n%s", w, banner)
				}
			}
			if strings.Contains(out, secret) {
				t.Errorf("the key is in the output")
			}
		})
	}
}
