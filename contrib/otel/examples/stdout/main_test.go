package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestPrintsSpans: the program prints every span of the run as JSON — the
// two model calls, the tool call, the agent run — then the answer.
func TestPrintsSpans(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	dec := json.NewDecoder(strings.NewReader(text))
	var names []string
	attrs := map[string]bool{}
	for dec.More() {
		var span struct {
			Name       string
			Attributes []struct{ Key string }
		}
		if err := dec.Decode(&span); err != nil {
			break // the answer line after the spans
		}
		names = append(names, span.Name)
		for _, a := range span.Attributes {
			attrs[a.Key] = true
		}
	}
	if want := []string{"chat gpt-4o-mini", "execute_tool read_file", "chat gpt-4o-mini", "invoke_agent helper"}; !slices.Equal(names, want) {
		t.Errorf("spans %q, want %q", names, want)
	}
	for _, k := range []string{"gen_ai.provider.name", "gen_ai.request.model", "gen_ai.tool.call.id", "gen_ai.usage.output_tokens"} {
		if !attrs[k] {
			t.Errorf("no span carries %s", k)
		}
	}
	if !strings.HasSuffix(text, "The module is airlock.\n") {
		t.Errorf("output does not end with the answer:\n%s", text)
	}
}
