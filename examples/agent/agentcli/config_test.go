package agentcli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// envOf returns an environment of m's variables.
func envOf(m map[string]string) environment { return environment(m) }

// writeConfig writes a config file into a temp dir and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.conf")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigPrecedence(t *testing.T) {
	file := writeConfig(t, "# settings\nmax_turns = 5\nmax_tool_calls_per_turn = 4\nmax_total_tool_calls = 30\ntimeout = 90s\n\nworkspace = from-file\n")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(c *config)
	}{
		{"defaults", nil, nil, func(c *config) {}},
		{"config file over defaults", []string{"--config", file}, nil, func(c *config) {
			c.MaxTurns, c.MaxToolCallsPerTurn, c.MaxTotalToolCalls, c.Timeout, c.Workspace = 5, 4, 30, 90*time.Second, "from-file"
		}},
		{"environment over config file", []string{"--config", file}, map[string]string{"AIRLOCK_MAX_TURNS": "7", "AIRLOCK_WORKSPACE": "from-env"}, func(c *config) {
			c.MaxTurns, c.MaxToolCallsPerTurn, c.MaxTotalToolCalls, c.Timeout, c.Workspace = 7, 4, 30, 90*time.Second, "from-env"
		}},
		{"flags over environment", []string{"--config", file, "--max-turns", "9", "-workspace", "from-flag"}, map[string]string{"AIRLOCK_MAX_TURNS": "7", "AIRLOCK_WORKSPACE": "from-env"}, func(c *config) {
			c.MaxTurns, c.MaxToolCallsPerTurn, c.MaxTotalToolCalls, c.Timeout, c.Workspace = 9, 4, 30, 90*time.Second, "from-flag"
		}},
		{"every limit by flag", []string{"--max-tool-calls-per-turn", "2", "--max-total-tool-calls", "3", "--max-tool-output-bytes", "100", "--max-file-bytes", "1000", "--tool-timeout", "5s", "--timeout", "0", "--connect-timeout", "2s", "--offline-delay", "0s"}, nil, func(c *config) {
			c.MaxToolCallsPerTurn, c.MaxTotalToolCalls, c.MaxToolOutputBytes, c.MaxFileBytes = 2, 3, 100, 1000
			c.ToolTimeout, c.Timeout, c.ConnectTimeout, c.OfflineDelay = 5*time.Second, 0, 2*time.Second, 0
		}},
		{"the task by -e", []string{"-e", "find TODO"}, nil, func(c *config) { c.Prompt = "find TODO" }},
		{"allow write by flag", []string{"--allow-write"}, nil, func(c *config) { c.AllowWrite = true }},
		{"allow write by environment", nil, map[string]string{"AIRLOCK_ALLOW_WRITE": "true"}, func(c *config) { c.AllowWrite = true }},
		{"real mode by AIRLOCK variables", nil, map[string]string{"AIRLOCK_BASE_URL": "http://localhost:11434/v1", "AIRLOCK_API_KEY": "k1", "AIRLOCK_MODEL": "llama3"}, func(c *config) {
			c.BaseURL, c.APIKey, c.Model, c.Real = "http://localhost:11434/v1", "k1", "llama3", true
		}},
		{"real mode by --model; OpenAI variables fill in", []string{"--model", "gpt-x"}, map[string]string{"OPENAI_API_KEY": "k2", "OPENAI_BASE_URL": "https://example.test/v1"}, func(c *config) {
			c.BaseURL, c.APIKey, c.Model, c.Real = "https://example.test/v1", "k2", "gpt-x", true
		}},
		{"OpenAI variables trimmed like the others", []string{"--model", "gpt-x"}, map[string]string{"OPENAI_API_KEY": " k2\n", "OPENAI_BASE_URL": " https://example.test/v1 "}, func(c *config) {
			c.BaseURL, c.APIKey, c.Model, c.Real = "https://example.test/v1", "k2", "gpt-x", true
		}},
		{"OpenAI variables alone stay offline", nil, map[string]string{"OPENAI_API_KEY": "k2"}, func(c *config) { c.APIKey = "k2" }},
		{"AIRLOCK key beats OPENAI key", []string{"--base-url", "http://h/v1"}, map[string]string{"OPENAI_API_KEY": "k2", "AIRLOCK_API_KEY": "k1"}, func(c *config) {
			c.BaseURL, c.APIKey, c.Real = "http://h/v1", "k1", true
		}},
		{"flag key beats both", []string{"--api-key", "k0"}, map[string]string{"OPENAI_API_KEY": "k2", "AIRLOCK_API_KEY": "k1"}, func(c *config) { c.APIKey, c.Real = "k0", true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfig(tc.args, envOf(tc.env), &bytes.Buffer{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := defaults()
			tc.want(&want)
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigRefused(t *testing.T) {
	secret := "sk-live-DO-NOT-PRINT"
	tests := []struct {
		name string
		args []string
		env  map[string]string
		file string // config file text, "" for none
		want string // the message, with FILE for the config file's path
	}{
		{"negative by flag", []string{"--max-turns", "-3"}, nil, "", "agent: setting max_turns from --max-turns: -3 is negative; want a whole number ≥ 1"},
		{"zero by flag", []string{"--max-total-tool-calls", "0"}, nil, "", "agent: setting max_total_tool_calls from --max-total-tool-calls: 0 is not allowed; want a whole number ≥ 1"},
		{"one is the least allowed", []string{"--max-tool-calls-per-turn", "1", "--max-turns", "x"}, nil, "", `agent: setting max_turns from --max-turns: "x" is not a whole number`},
		{"non-numeric by environment", nil, map[string]string{"AIRLOCK_MAX_TOOL_CALLS_PER_TURN": "eight"}, "", `agent: setting max_tool_calls_per_turn from AIRLOCK_MAX_TOOL_CALLS_PER_TURN: "eight" is not a whole number`},
		{"bad duration", []string{"--timeout", "10"}, nil, "", `agent: setting timeout from --timeout: "10" is not a duration like 30s or 2m`},
		{"negative duration", nil, map[string]string{"AIRLOCK_CONNECT_TIMEOUT": "-1s"}, "", "agent: setting connect_timeout from AIRLOCK_CONNECT_TIMEOUT: -1s is negative"},
		{"bad bool", nil, map[string]string{"AIRLOCK_ALLOW_WRITE": "yes please"}, "", `agent: setting allow_write from AIRLOCK_ALLOW_WRITE: "yes please" is not true or false`},
		{"dialect typo, with the nearest", []string{"--dialect", "antropic"}, nil, "", `agent: setting dialect from --dialect: "antropic" is not chat, anthropic, responses, gemini or bedrock; did you mean "anthropic"?`},
		{"bedrock typo, with the nearest", []string{"--dialect", "bedrok"}, nil, "", `agent: setting dialect from --dialect: "bedrok" is not chat, anthropic, responses, gemini or bedrock; did you mean "bedrock"?`},
		{"gemini typo, with the nearest", nil, map[string]string{"AIRLOCK_DIALECT": "Gemnii"}, "", `agent: setting dialect from AIRLOCK_DIALECT: "Gemnii" is not chat, anthropic, responses, gemini or bedrock; did you mean "gemini"?`},
		{"responses typo, with the nearest", []string{"--dialect", "respones"}, nil, "", `agent: setting dialect from --dialect: "respones" is not chat, anthropic, responses, gemini or bedrock; did you mean "responses"?`},
		{"chat typo, with the nearest", []string{"--dialect", "caht"}, nil, "", `agent: setting dialect from --dialect: "caht" is not chat, anthropic, responses, gemini or bedrock; did you mean "chat"?`},
		{"vertex with chat, refused at start", []string{"--vertex", "p/l"}, nil, "", "agent: setting vertex from --vertex: Vertex AI serves --dialect gemini or anthropic, not chat; add --dialect gemini or --dialect anthropic"},
		{"vertex with bedrock, from the environment", []string{"--dialect", "bedrock"}, map[string]string{"AIRLOCK_VERTEX": "p/us-east5"}, "", "agent: setting vertex from AIRLOCK_VERTEX: Vertex AI serves --dialect gemini or anthropic, not bedrock; add --dialect gemini or --dialect anthropic"},
		{"a model family's name", nil, map[string]string{"AIRLOCK_DIALECT": "claude"}, "", `agent: setting dialect from AIRLOCK_DIALECT: "claude" is not chat, anthropic, responses, gemini or bedrock; did you mean "anthropic"?`},
		{"dialect, nothing near", nil, map[string]string{"AIRLOCK_DIALECT": "mistral"}, "", `agent: setting dialect from AIRLOCK_DIALECT: "mistral" is not chat, anthropic, responses, gemini or bedrock`},
		{"vertex is no dialect", []string{"--dialect", "Vertex"}, nil, "", `agent: setting dialect from --dialect: "Vertex" is not chat, anthropic, responses, gemini or bedrock; for Vertex AI give --dialect gemini or anthropic with --vertex PROJECT/LOCATION`},
		{"openai typo", []string{"--dialect", "opnai"}, nil, "", `agent: setting dialect from --dialect: "opnai" is not chat, anthropic, responses, gemini or bedrock; did you mean "openai"?`},
		{"a provider's name", []string{"--dialect", "AWS"}, nil, "", `agent: setting dialect from --dialect: "AWS" is not chat, anthropic, responses, gemini or bedrock; did you mean "bedrock"?`},
		{"bad URL", []string{"--base-url", "ftp://x"}, nil, "", `agent: setting base_url from --base-url: "ftp://x" is not an http:// or https:// URL`},
		{"bad OPENAI_BASE_URL", nil, map[string]string{"OPENAI_BASE_URL": "localhost:8080"}, "", `agent: setting base_url from OPENAI_BASE_URL: "localhost:8080" is not an http:// or https:// URL`},
		{"URL password not shown", []string{"--base-url", "ftp://u:" + secret + "@h"}, nil, "", `agent: setting base_url from --base-url: "ftp://h" is not an http:// or https:// URL`},
		{"empty model", []string{"--model", " "}, nil, "", "agent: setting model from --model: the value is empty"},
		{"unknown key in file, value not shown", nil, nil, "max_turns = 3\napi-key = " + secret + "\n", `agent: FILE:2: unknown key "api-key"; did you mean "api_key"?`},
		{"typo in file", nil, nil, "modle = gpt-4o\n", `agent: FILE:1: unknown key "modle"; did you mean "model"?`},
		{"dash for underscore in file", nil, nil, "base-url = http://h/v1\n", `agent: FILE:1: unknown key "base-url"; did you mean "base_url"?`},
		{"unknown key, nothing near", nil, nil, "colour = red\n", `agent: FILE:1: unknown key "colour"`},
		{"line without =, redacted", nil, nil, "\n" + secret + "\n", "agent: FILE:2: not a `key = value` line: \"sk-…\" (20 characters)"},
		{"short line without =, redacted", nil, nil, "[agent]\n", "agent: FILE:1: not a `key = value` line: \"…\" (7 characters)"},
		{"line with : for =, its first word shown", nil, nil, "model: " + secret + "\n", "agent: FILE:1: not a `key = value` line: \"model: …\""},
		{"URL in quotes unclosed", nil, nil, `base_url = "http://localhost:8080/v1` + "\n", `agent: setting base_url from FILE:1: "\"http://localhost:8080/v1": no closing "`},
		{"URL not a URL, shown", nil, nil, `base_url = "localhost:8080"` + "\n", `agent: setting base_url from FILE:1: "localhost:8080" is not an http:// or https:// URL`},
		{"URL query values not shown", []string{"--base-url", "h.test/v1?key=" + secret}, nil, "", `agent: setting base_url from --base-url: "h.test/v1?key=REDACTED" is not an http:// or https:// URL`},
		{"unparsable URL password not shown", []string{"--base-url", "http://u:" + secret + "@h\x7f/v1"}, nil, "", `agent: setting base_url from --base-url: "http://REDACTED@h\x7f/v1" is not an http:// or https:// URL`},
		{"key: bad escape, redacted", nil, nil, `api_key = "` + secret + `\d"` + "\n", `agent: setting api_key from FILE:1: "\"sk…" (24 characters): a bad escape: in double quotes \ starts a Go escape (\" \\ \n \t \xNN \uNNNN); use single quotes to keep backslashes as written`},
		{"key: text after the quote, redacted", nil, nil, `api_key = '` + secret + `' x` + "\n", `agent: setting api_key from FILE:1: "'sk…" (24 characters): text after the closing ' (only a # comment may follow)`},
		{"key: empty in quotes", nil, nil, `api_key = ""` + "\n", "agent: setting api_key from FILE:1: the value is empty"},
		{"key: Bearer pasted, redacted", nil, map[string]string{"AIRLOCK_API_KEY": "Bearer " + secret}, "", `agent: setting api_key from AIRLOCK_API_KEY: "Bea…" (27 characters) has a space or control character in it; an API key has none`},
		{"key: quotes in a variable, redacted", nil, map[string]string{"AIRLOCK_API_KEY": `"` + secret + `"`}, "", `agent: setting api_key from AIRLOCK_API_KEY: "\"sk…" (22 characters) has a quote in it; an API key has none`},
		{"key: quotes in OPENAI_API_KEY, redacted", []string{"--model", "m"}, map[string]string{"OPENAI_API_KEY": "'" + secret + "'"}, "", `agent: setting api_key from OPENAI_API_KEY: "'sk…" (22 characters) has a quote in it; an API key has none`},
		{"negative in file", nil, nil, "max_turns = -1\n", "agent: setting max_turns from FILE:1: -1 is negative; want a whole number ≥ 1"},
		{"key twice in file", nil, nil, "max_turns = 2\n# again\nmax_turns = 3\n", "agent: setting max_turns from FILE:3: given twice (first on line 1)"},
		{"bad file value stops the environment too", nil, map[string]string{"AIRLOCK_MAX_TURNS": "4"}, "timeout = soon\n", `agent: setting timeout from FILE:1: "soon" is not a duration like 30s or 2m`},
		{"stray argument", []string{"explore"}, nil, "", `agent: unexpected argument "explore"; give the task with -e` + "\nrun 'agent -h' for usage"},
		{"unknown flag, with the nearest", []string{"--max-turn", "3"}, nil, "", "agent: flag provided but not defined: -max-turn (did you mean -max-turns?)\nrun 'agent -h' for usage"},
		{"unknown flag, underscores", []string{"-base_url", "http://h"}, nil, "", "agent: flag provided but not defined: -base_url (did you mean -base-url?)\nrun 'agent -h' for usage"},
		{"unknown flag, nothing near", []string{"--colour"}, nil, "", "agent: flag provided but not defined: -colour\nrun 'agent -h' for usage"},
		{"flag without its value", []string{"--max-turns"}, nil, "", "agent: flag needs an argument: -max-turns\nrun 'agent -h' for usage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			file := ""
			if tc.file != "" {
				file = writeConfig(t, tc.file)
				args = append([]string{"--config", file}, args...)
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, &stdout, &stderr, envOf(tc.env))
			want := strings.ReplaceAll(tc.want, "FILE", file) + "\n"
			if code != exitUsage || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("exit %d, stderr %q, stdout %q; want %d, %q, nothing", code, stderr.String(), stdout.String(), exitUsage, want)
			}
			if strings.Contains(stderr.String(), secret) {
				t.Errorf("the secret was printed: %q", stderr.String())
			}
		})
	}
}

// -h prints the usage on stdout, as asked for, with a name for each
// flag's value; -config takes a file, which its entry says.
func TestConfigHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-h"}, &stdout, &stderr, envOf(nil))
	out := stdout.String()
	if code != exitOK || stderr.Len() != 0 || !strings.HasPrefix(out, "usage: agent [flags]\n") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), out)
	}
	for _, want := range []string{
		"\n  -config file\n    \tread settings from file",
		"\n  -e task\n",
		"\n  -base-url url\n",
		"\n  -api-key key\n",
		"\n  -max-turns n\n    \tmodel calls per run (default 20)\n",
		"\n  -timeout duration\n",
		"\n  -allow-write\n",
		"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
	// Every setting is listed, and nothing is listed twice.
	for _, s := range allSettings() {
		entry := "\n  -" + s.flagName()
		if n := strings.Count(out, entry+" ") + strings.Count(out, entry+"\n"); n != 1 {
			t.Errorf("-%s listed %d times", s.flagName(), n)
		}
	}
}

func TestConfigFileMissing(t *testing.T) {
	_, err := parseConfig([]string{"--config", filepath.Join(t.TempDir(), "none.conf")}, envOf(nil), &bytes.Buffer{}, nil)
	var se *settingError
	if !errors.As(err, &se) || !errors.Is(err, errUsage) || se.Source != "--config" {
		t.Errorf("error %v, want a *settingError from --config", err)
	}
}

// The config file is read whole up to maxConfigBytes; a longer one is
// refused, never cut (a cut could apply "max_turns = 1" for "= 12").
func TestConfigFileLimit(t *testing.T) {
	const tail = "max_turns = 12\n"
	// file is one comment line, then tail, size bytes in all.
	file := func(size int) string {
		return "#" + strings.Repeat("x", size-len(tail)-2) + "\n" + tail
	}
	for _, tc := range []struct {
		name      string
		size      int
		wantTurns int
		wantErr   string
	}{
		{"one below the limit", maxConfigBytes - 1, 12, ""},
		{"at the limit", maxConfigBytes, 12, ""},
		{"one above the limit", maxConfigBytes + 1, 0, "over the limit of 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := file(tc.size)
			if len(text) != tc.size {
				t.Fatalf("test file is %d bytes, want %d", len(text), tc.size)
			}
			path := writeConfig(t, text)
			got, err := parseConfig([]string{"--config", path}, envOf(nil), &bytes.Buffer{}, nil)
			if tc.wantErr == "" {
				if err != nil || got.MaxTurns != tc.wantTurns {
					t.Errorf("max_turns %d, error %v; want %d, nil", got.MaxTurns, err, tc.wantTurns)
				}
				return
			}
			var se *settingError
			if !errors.As(err, &se) || !errors.Is(err, errUsage) || se.Reason != tc.wantErr {
				t.Errorf("error %v, want a *settingError saying %q", err, tc.wantErr)
			}
		})
	}
}

// TestInvocation: the command a resume hint shows is the one the person
// ran, but for go run's temporary binary, which is gone when it ends.
func TestInvocation(t *testing.T) {
	t.Setenv("GOCACHE", "/srv/cache")
	for _, tc := range []struct{ arg0, want string }{
		{"./agent", "./agent"},
		{"/usr/local/bin/agent", "/usr/local/bin/agent"},
		{"agent", "agent"},
		{"/tmp/go-build2871264/b001/exe/agent", "go run ./examples/agent"},
		{"/home/me/exe/agent", "/home/me/exe/agent"},
		{"/root/.cache/go-build/63/632d5d5c7f4ac368e82898becd01b7e9-d/agent", "go run ./examples/agent"},
		{"/srv/cache/ab/cd-d/agent", "go run ./examples/agent"}, // under $GOCACHE
		{"/srv/cached/agent", "/srv/cached/agent"},
	} {
		if got := Invocation(tc.arg0, "go run ./examples/agent"); got != tc.want {
			t.Errorf("Invocation(%q) = %q, want %q", tc.arg0, got, tc.want)
		}
	}
}
