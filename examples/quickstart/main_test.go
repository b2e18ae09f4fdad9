package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunsOffline runs the program against a scripted server: the model
// calls utc_time, gets the time, and answers.
func TestRunsOffline(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "utc_time", Arguments: "{}"}}, Usage: &llmstream.Usage{TotalTokens: 30}},
		llmstreamtest.Turn{Text: "It is noon in UTC.", Usage: &llmstream.Usage{TotalTokens: 40}},
	))
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-quickstart-test")
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "It is noon in UTC.\n2 turns, 1 tool call, 70 tokens\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	reqs := srv.Requests()
	var body struct{ Temperature float64 }
	json.Unmarshal(reqs[0].Body, &body)
	answer := reqs[1].Messages[len(reqs[1].Messages)-1]
	if body.Temperature != 0.2 || answer.Role != "tool" || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(answer.Content) {
		t.Errorf("temperature %v; the tool's answer %+v", body.Temperature, answer)
	}
}
