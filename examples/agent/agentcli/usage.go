package agentcli

import (
	"fmt"
	"io"
)

// usageHint is the line that follows a refused command line, in place of
// the whole usage.
func usageHint(command string) string { return "run '" + command + " -h' for usage" }

// printUsage writes the -h text: what the program does, where settings
// come from, and each flag with a name for its value.
func printUsage(w io.Writer, command string, extra []extraFlag) {
	fmt.Fprint(w, "usage: "+command+" [flags]\n")
	fmt.Fprint(w, `
A demo coding agent. With no flags it runs offline against a built-in scripted
model served over loopback HTTP (over any dialect's wire: --dialect); give
--base-url/--api-key/--model (or the AIRLOCK_BASE_URL, AIRLOCK_API_KEY,
AIRLOCK_MODEL variables) to use a real one: any OpenAI-compatible server, or
with --dialect the Anthropic, Responses, Gemini or Bedrock API, and with
--vertex Gemini or Claude on Vertex AI. The provider's own variables fill in
a key no other source gave (OPENAI_API_KEY; ANTHROPIC_API_KEY for anthropic;
GEMINI_API_KEY or GOOGLE_API_KEY for gemini; AWS_BEARER_TOKEN_BEDROCK, with
AWS_REGION, for bedrock), and OPENAI_BASE_URL a URL for chat and responses.

Settings: defaults < --config file < AIRLOCK_<KEY> variables < flags.
The config file has one "key = value" per line, keys as the flags with _ for -
(max_turns = 5), and # comment lines. A value may be quoted: "..." is read as
a Go string literal (\" \\ \n ...), '...' is taken as written.

Flags:
`)
	flagUsage(w, "e", "task", "the task to run (default: explore the workspace)")
	flagUsage(w, "config", "file", "read settings from file (see above)")
	flagUsage(w, "resume", "file", "go on with the run saved in file when Ctrl-C paused it at a question")
	for _, s := range allSettings() {
		flagUsage(w, s.flagName(), s.arg, s.usage)
	}
	for _, f := range extra {
		flagUsage(w, f.name, f.arg, f.usage)
	}
}

// flagUsage writes one flag's entry, laid out as the flag package's
// PrintDefaults does.
func flagUsage(w io.Writer, name, arg, usage string) {
	if arg != "" {
		arg = " " + arg
	}
	fmt.Fprintf(w, "  -%s%s\n    \t%s\n", name, arg, usage)
}
