package agentcli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

func TestDialectSetting(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		dialect   llmstream.Dialect
		key       string
		model     string
		wantError string
	}{
		{"default chat", nil, map[string]string{"OPENAI_API_KEY": "sk-openai-1"}, llmstream.DialectChat, "sk-openai-1", defaultModel, ""},
		{"flag", []string{"--dialect", "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1", "OPENAI_API_KEY": "sk-openai-1"}, llmstream.DialectAnthropic, "sk-ant-1", defaultAnthropicModel, ""},
		{"from the Anthropic base URL", []string{"--base-url", "https://api.anthropic.com/v1"}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}, llmstream.DialectAnthropic, "sk-ant-1", defaultAnthropicModel, ""},
		{"from the Gemini base URL", []string{"--base-url", "https://generativelanguage.googleapis.com/v1beta"}, map[string]string{"GOOGLE_API_KEY": "AIza-google-1"}, llmstream.DialectGemini, "AIza-google-1", defaultGeminiModel, ""},
		{"GEMINI_API_KEY before GOOGLE_API_KEY", []string{"--dialect", "gemini"}, map[string]string{"GEMINI_API_KEY": "AIza-gemini-1", "GOOGLE_API_KEY": "AIza-google-1"}, llmstream.DialectGemini, "AIza-gemini-1", defaultGeminiModel, ""},
		{"an explicit dialect beats the URL", []string{"--dialect", "chat", "--base-url", "https://api.anthropic.com/v1"}, nil, llmstream.DialectChat, "", defaultModel, ""},
		{"an explicit model is kept", []string{"--dialect", "anthropic", "--model", "claude-opus-4-1"}, nil, llmstream.DialectAnthropic, "", "claude-opus-4-1", ""},
		{"responses from the environment", nil, map[string]string{"AIRLOCK_DIALECT": "Responses", "OPENAI_API_KEY": "sk-openai-1"}, llmstream.DialectResponses, "sk-openai-1", defaultModel, ""},
		{"a wrong name", []string{"--dialect", "claude"}, nil, 0, "", "", `"claude" is not chat, anthropic, responses, gemini or bedrock`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			c, err := parseConfig(tt.args, envOf(tt.env), &stderr, nil)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Dialect != tt.dialect || c.APIKey != tt.key || c.Model != tt.model {
				t.Errorf("dialect %v, key %q, model %q; want %v, %q, %q", c.Dialect, c.APIKey, c.Model, tt.dialect, tt.key, tt.model)
			}
		})
	}
}

// TestOfflineEveryDialect runs the offline demo over each wire llmstreamtest
// serves: the same tools run and the same answer arrives.
func TestOfflineEveryDialect(t *testing.T) {
	var chat string
	for _, d := range []string{"chat", "anthropic", "responses", "gemini", "bedrock"} {
		t.Run(d, func(t *testing.T) {
			dir := demoWorkspace(t)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--workspace", dir, "--offline-delay", "0", "--dialect", d}, &stdout, &stderr, envOf(nil))
			if code != exitOK || stderr.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			out := stdout.String()
			if !strings.Contains(out, "OFFLINE, scripted model, "+d+" wire") {
				t.Errorf("banner does not name the %s wire:\n%s", d, out)
			}
			// Past the banner the run is the same whatever the wire, but for
			// the order calls form in: chat's offline server interleaves
			// them, Anthropic streams one block after another.
			_, body, _ := strings.Cut(inCallOrder(timing.ReplaceAllString(out, "T")), "task: ")
			var kept []string
			for _, line := range strings.Split(body, "\n") {
				if !strings.HasPrefix(line, "  ◦ ") {
					kept = append(kept, line)
				}
			}
			body = strings.Join(kept, "\n")
			if d == "chat" {
				chat = body
			} else if body != chat {
				t.Errorf("the %s run differs from chat's:\n%s\nchat:\n%s", d, body, chat)
			}
		})
	}
}

// TestRealModeAnthropic talks to a server on the Anthropic wire, with the
// key from ANTHROPIC_API_KEY sent as x-api-key.
func TestRealModeAnthropic(t *testing.T) {
	dir := demoWorkspace(t)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Reasoning: "Short.", Text: "It is the widget module."}))
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", dir, "--base-url", srv.URL, "--dialect", "anthropic"}, &stdout, &stderr, envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-demo-1"}))
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-demo-1" || r.Model != defaultAnthropicModel {
		t.Errorf("request %s, key %q, model %q", r.Path, r.Header.Get("X-Api-Key"), r.Model)
	}
	if out := stdout.String(); !strings.Contains(out, "It is the widget module.") || strings.Contains(out, "sk-ant-demo-1") {
		t.Errorf("output:\n%s", out)
	}
}
