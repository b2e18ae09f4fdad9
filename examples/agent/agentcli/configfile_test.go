package agentcli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestConfigValue(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want, problem string
	}{
		{"plain", " gpt-4o ", "gpt-4o", ""},
		{"empty", "", "", ""},
		{"plain keeps # and quotes inside", `http://h/v1#x it's "so"`, `http://h/v1#x it's "so"`, ""},
		{"double quotes", `"http://localhost:8080/v1"`, "http://localhost:8080/v1", ""},
		{"double quotes keep inner spaces", `" a b "`, " a b ", ""},
		{"double quotes, escapes", `"a\"b\\c\td\u00e9"`, "a\"b\\c\td\u00e9", ""},
		{"double quotes, escaped quote at the end", `"a\""`, `a"`, ""},
		{"double quotes, comment after", `"x" # the model`, "x", ""},
		{"double quotes, empty", `""`, "", ""},
		{"single quotes as written", `'C:\dir\n'`, `C:\dir\n`, ""},
		{"single quotes hold double ones", `'say "hi"'`, `say "hi"`, ""},
		{"single quotes, comment after", `'x'#c`, "x", ""},
		{"no closing double quote", `"http://h`, "", `no closing "`},
		{"escaped quote does not close", `"a\"`, "", `no closing "`},
		{"no closing single quote", `'x`, "", "no closing '"},
		{"single quote inside single quotes", `'it's'`, "", "text after the closing ' (only a # comment may follow)"},
		{"text after the quote", `"x" y`, "", `text after the closing " (only a # comment may follow)`},
		{"bad escape", `"C:\dir"`, "", `a bad escape: in double quotes \ starts a Go escape (\" \\ \n \t \xNN \uNNNN); use single quotes to keep backslashes as written`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := configValue(tc.raw)
			if got != tc.want || problem != tc.problem {
				t.Errorf("configValue(%q) = %q, %q; want %q, %q", tc.raw, got, problem, tc.want, tc.problem)
			}
		})
	}
}

func TestConfigFileQuotedValues(t *testing.T) {
	file := writeConfig(t, `base_url = "http://localhost:8080/v1"
api_key = 'sk-quoted'   # from the dashboard
model = "gpt-4o"
workspace = 'C:\work\project'
max_turns = "5"
allow_write = 'true'
`)
	got, err := parseConfig([]string{"--config", file}, envOf(nil), &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := defaults()
	want.BaseURL, want.APIKey, want.Model, want.Workspace, want.MaxTurns, want.AllowWrite, want.Real =
		"http://localhost:8080/v1", "sk-quoted", "gpt-4o", `C:\work\project`, 5, true, true
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config{})); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

// A quoted key in the config file reaches the server without its quotes
// (it used to be sent with them, and got a 401).
func TestConfigFileQuotedKeySent(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "ok"}))
	file := writeConfig(t, "base_url = \""+srv.URL+"\"\napi_key = \"sk-quoted\"\nmodel = 'm'\n")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"--config", file, "--workspace", t.TempDir()}, &stdout, &stderr, envOf(nil)); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-quoted" || reqs[0].Model != "m" {
		t.Errorf("%d requests; the first with the right key: %v, model %q", len(reqs), len(reqs) > 0 && reqs[0].Header.Get("Authorization") == "Bearer sk-quoted", reqs[0].Model)
	}
}

// An AIRLOCK_ variable that is no setting is warned of, with the nearest
// one, and ignored; its value is never shown.
func TestConfigUnknownVariables(t *testing.T) {
	const secret = "sk-live-DO-NOT-PRINT"
	var stderr bytes.Buffer
	got, err := parseConfig(nil, envOf(map[string]string{
		"AIRLOCK_MODLE":     "gpt-x",
		"AIRLOCK_APIKEY":    secret,
		"AIRLOCK_COLOUR":    "red",
		"AIRLOCK_MAX_TURNS": "4",
		"OTHER_MODLE":       "x",
	}), &stderr, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "agent: warning: AIRLOCK_APIKEY is not a setting, ignored; did you mean AIRLOCK_API_KEY?\n" +
		"agent: warning: AIRLOCK_COLOUR is not a setting, ignored\n" +
		"agent: warning: AIRLOCK_MODLE is not a setting, ignored; did you mean AIRLOCK_MODEL?\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got.MaxTurns != 4 || got.Model != defaultModel || got.APIKey != "" || got.Real {
		t.Errorf("config %+v; want only max_turns from the environment", got)
	}
	if strings.Contains(stderr.String(), secret) {
		t.Error("a value was printed")
	}
}
