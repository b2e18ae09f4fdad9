package agentcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// Defaults of the settings that are not the agentloop or transport ones.
const (
	// defaultModel is the model asked for in real mode when none is set;
	// the Anthropic and Gemini dialects have their own.
	defaultModel          = "gpt-4o-mini"
	defaultAnthropicModel = "claude-sonnet-4-5"
	defaultGeminiModel    = "gemini-2.5-flash"
	defaultBedrockModel   = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	// defaultMaxFileBytes caps what read_file_safe, search and write_file
	// handle per file: 256 KiB.
	defaultMaxFileBytes = 256 << 10
	// defaultOfflineDelay paces the offline model's events so a person sees
	// the text stream.
	defaultOfflineDelay = 12 * time.Millisecond
	// defaultPrompt is the task when -e is not given.
	defaultPrompt = "Explore this project and tell me what it is."
	// defaultParallel is how many calls of a turn run at once.
	defaultParallel = 4
	// maxConfigBytes bounds the config file: a larger one is refused.
	maxConfigBytes = 1 << 20
)

// errUsage marks a bad flag, setting or config file: exit status 2.
var errUsage = errors.New("agent: bad usage")

// settingError says which setting was refused, from where, and why; the
// reason shows the value refused. It never holds the value of api_key or
// of a key it does not know, as those may be secrets, only a redacted form
// (redactSecret), and URLs only redacted (redactURL).
type settingError struct {
	Key, Source, Reason string
}

func (e *settingError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("agent: %s: %s", e.Source, e.Reason)
	}
	return fmt.Sprintf("agent: setting %s from %s: %s", e.Key, e.Source, e.Reason)
}

func (e *settingError) Unwrap() error { return errUsage }

// config is everything a run needs.
type config struct {
	BaseURL, APIKey, Model string
	// Dialect is the wire the model speaks: set by "dialect", else
	// guessed from the base URL's host (api.anthropic.com, the Gemini API),
	// else chat.
	Dialect    llmstream.Dialect
	dialectSet bool
	modelSet   bool // a source named the model
	// Vertex is "PROJECT/LOCATION" for Gemini or Claude on Google Cloud's
	// Vertex AI, "" for the provider's own API.
	Vertex     string
	vertexFrom string // where Vertex was set, for the error that refuses it
	Workspace  string
	Prompt     string

	MaxTurns, MaxToolCallsPerTurn, MaxTotalToolCalls int
	MaxToolOutputBytes, MaxFileBytes                 int
	ToolTimeout, Timeout, ConnectTimeout             time.Duration
	OfflineDelay                                     time.Duration
	AllowWrite                                       bool
	// Parallel is how many tool calls of one turn run at once.
	Parallel int
	// Yes approves every call that needs approval without asking.
	Yes bool
	// Output is "plan" for a typed plan as the final answer, "" for text.
	Output string
	// State is where a paused run is saved ("": the --resume file, else
	// defaultStateFile); Resume the file of a paused run to go on with.
	State, Resume string

	// Fallback, when set, serves the offline model twice behind a
	// llmstream.Failover: a first server that cuts each turn's stream
	// partway, and a fallback in this dialect that continues or restarts it.
	Fallback llmstream.Dialect

	// Real is set when base_url, api_key or model was given by a flag, an
	// AIRLOCK_ variable or the config file: the run then talks to that
	// server instead of the offline scripted model. OPENAI_API_KEY and
	// OPENAI_BASE_URL alone do not switch it on, so a shell that exports
	// them still gets the offline demo by default.
	Real bool
}

// kind is how a setting's text is parsed.
type kind int

const (
	kindText     kind = iota + 1 // any text
	kindSecret                   // text without spaces or quotes, never shown
	kindURL                      // an http or https URL
	kindCount                    // a whole number ≥ 1
	kindDuration                 // a Go duration ≥ 0, like 30s or 2m
	kindBool                     // true/false/1/0
	kindDialect                  // chat, anthropic, responses, gemini or bedrock
)

// setting is one configurable value. Its config-file key is key, its flag
// is key with '-' for '_', and its variable is AIRLOCK_ and key in capitals.
// arg names its value in the usage ("" for a switch).
type setting struct {
	key   string
	kind  kind
	arg   string
	usage string
	set   func(c *config, text string) error
}

func (s setting) flagName() string { return strings.ReplaceAll(s.key, "_", "-") }
func (s setting) envName() string  { return "AIRLOCK_" + strings.ToUpper(s.key) }

// allSettings lists every setting, in the order usage shows them.
func allSettings() []setting {
	return []setting{
		{"base_url", kindURL, "url", "the model server's base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (real mode; default the dialect's provider)", func(c *config, v string) error { c.BaseURL = v; return nil }},
		{"api_key", kindSecret, "key", "API key (real mode; prefer the environment, flags show in ps)", func(c *config, v string) error { c.APIKey = v; return nil }},
		{"model", kindText, "name", "model name (real mode; default " + defaultModel + " for chat and responses, " + defaultAnthropicModel + " for anthropic, " + defaultGeminiModel + " for gemini, " + defaultBedrockModel + " for bedrock)", func(c *config, v string) error { c.Model, c.modelSet = v, true; return nil }},
		{"dialect", kindDialect, "name", "wire protocol: chat, anthropic, responses, gemini or bedrock (default: anthropic for an api.anthropic.com base URL, gemini for generativelanguage.googleapis.com, bedrock for bedrock-runtime.*.amazonaws.com, else chat). Bedrock takes AWS_BEARER_TOKEN_BEDROCK and AWS_REGION", func(c *config, v string) error {
			d, err := llmstream.ParseDialect(v)
			c.Dialect, c.dialectSet = d, true
			return err
		}},
		{"vertex", kindText, "project/location", "Google Cloud Vertex AI project and location (e.g. my-proj/us-central1 or my-proj/global) for --dialect gemini or anthropic, refused with any other (real mode); the OAuth token goes in --api-key or AIRLOCK_API_KEY, e.g. $(gcloud auth print-access-token)", func(c *config, v string) error {
			p, l, ok := strings.Cut(v, "/")
			if !ok || p == "" || l == "" {
				return fmt.Errorf("%q is not PROJECT/LOCATION", v)
			}
			c.Vertex = v
			return nil
		}},
		{"workspace", kindText, "dir", "directory the tools may read (default: the current directory)", func(c *config, v string) error { c.Workspace = v; return nil }},
		{"max_turns", kindCount, "n", fmt.Sprintf("model calls per run (default %d)", agentloop.DefaultMaxTurns), setInt(func(c *config) *int { return &c.MaxTurns })},
		{"max_tool_calls_per_turn", kindCount, "n", fmt.Sprintf("tool calls one answer may make (default %d)", agentloop.DefaultMaxToolCallsPerTurn), setInt(func(c *config) *int { return &c.MaxToolCallsPerTurn })},
		{"max_total_tool_calls", kindCount, "n", fmt.Sprintf("tool calls per run (default %d)", agentloop.DefaultMaxTotalToolCalls), setInt(func(c *config) *int { return &c.MaxTotalToolCalls })},
		{"max_tool_output_bytes", kindCount, "n", fmt.Sprintf("bytes of one tool result the model sees (default %d)", agentloop.DefaultMaxToolOutputBytes), setInt(func(c *config) *int { return &c.MaxToolOutputBytes })},
		{"max_file_bytes", kindCount, "n", fmt.Sprintf("largest file read_file_safe reads or search scans (default %d)", defaultMaxFileBytes), setInt(func(c *config) *int { return &c.MaxFileBytes })},
		{"tool_timeout", kindDuration, "duration", fmt.Sprintf("time limit of one tool call (default %v)", agentloop.DefaultToolTimeout), setDuration(func(c *config) *time.Duration { return &c.ToolTimeout })},
		{"timeout", kindDuration, "duration", fmt.Sprintf("time limit of one model call, 0 for none (default %v)", transport.DefaultTimeout), setDuration(func(c *config) *time.Duration { return &c.Timeout })},
		{"connect_timeout", kindDuration, "duration", fmt.Sprintf("time limit to connect, 0 for none (default %v)", transport.DefaultConnectTimeout), setDuration(func(c *config) *time.Duration { return &c.ConnectTimeout })},
		{"offline_delay", kindDuration, "duration", fmt.Sprintf("pause between the offline model's events (default %v)", defaultOfflineDelay), setDuration(func(c *config) *time.Duration { return &c.OfflineDelay })},
		{"parallel", kindCount, "n", fmt.Sprintf("tool calls of one turn that run at once (default %d)", defaultParallel), setInt(func(c *config) *int { return &c.Parallel })},
		{"allow_write", kindBool, "", "offer write_file; each write is put to you first: y, n or why (default false: not offered)", setBool(func(c *config) *bool { return &c.AllowWrite })},
		{"yes", kindBool, "", "approve without asking every call that needs approval: write_file, tools added by WithTools that are not read-only (default false: ask; off a terminal, deny)", setBool(func(c *config) *bool { return &c.Yes })},
		{"output", kindText, "kind", "the final answer's form: plan, a typed plan streamed step by step as each completes (default: text)", func(c *config, v string) error {
			if v != "plan" && v != "" {
				return fmt.Errorf("%q is not an output form (plan)", v)
			}
			c.Output = v
			return nil
		}},
		{"fallback", kindDialect, "name", "offline only: cut each turn's stream partway and go on on a second model in this dialect (chat, anthropic, responses, gemini, bedrock) through llmstream.Failover; anthropic and bedrock continue the cut text, the others start over", func(c *config, v string) error {
			d, err := llmstream.ParseDialect(v)
			c.Fallback = d
			return err
		}},
		{"state", kindText, "file", "where a run paused by Ctrl-C at a question is saved (default " + defaultStateFile + ", or the --resume file)", func(c *config, v string) error { c.State = v; return nil }},
	}
}

func setInt(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		*field(c) = n
		return err
	}
}

func setBool(field func(*config) *bool) func(*config, string) error {
	return func(c *config, v string) error {
		b, err := strconv.ParseBool(v)
		*field(c) = b
		return err
	}
}

func setDuration(field func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		*field(c) = d
		return err
	}
}

func defaults() config {
	return config{
		Model:               defaultModel,
		Dialect:             llmstream.DialectChat,
		Workspace:           ".",
		Prompt:              defaultPrompt,
		MaxTurns:            agentloop.DefaultMaxTurns,
		MaxToolCallsPerTurn: agentloop.DefaultMaxToolCallsPerTurn,
		MaxTotalToolCalls:   agentloop.DefaultMaxTotalToolCalls,
		MaxToolOutputBytes:  agentloop.DefaultMaxToolOutputBytes,
		MaxFileBytes:        defaultMaxFileBytes,
		ToolTimeout:         agentloop.DefaultToolTimeout,
		Timeout:             transport.DefaultTimeout,
		ConnectTimeout:      transport.DefaultConnectTimeout,
		OfflineDelay:        defaultOfflineDelay,
		Parallel:            defaultParallel,
	}
}

// show is how a message quotes a value of s: as written, but a secret
// only redacted and a URL without its password or query values.
func (s setting) show(text string) string {
	switch s.kind {
	case kindSecret:
		return redactSecret(text)
	case kindURL:
		return strconv.Quote(redact.URL(text))
	}
	return strconv.Quote(text)
}

// check validates text for s before it is applied, with a reason a person
// can act on that shows the value (see show).
func (s setting) check(text string) string {
	text = strings.TrimSpace(text)
	switch s.kind {
	case kindURL:
		u, err := url.Parse(text)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s.show(text) + " is not an http:// or https:// URL"
		}
	case kindCount:
		n, err := strconv.Atoi(text)
		switch {
		case err != nil:
			return s.show(text) + " is not a whole number"
		case n < 0:
			return fmt.Sprintf("%d is negative; want a whole number ≥ 1", n)
		case n == 0:
			return "0 is not allowed; want a whole number ≥ 1"
		}
	case kindDuration:
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return s.show(text) + " is not a duration like 30s or 2m"
		case d < 0:
			return fmt.Sprintf("%v is negative", d)
		}
	case kindBool:
		if _, err := strconv.ParseBool(text); err != nil {
			return s.show(text) + " is not true or false"
		}
	case kindDialect:
		if _, err := llmstream.ParseDialect(text); err != nil {
			reason := s.show(text) + " is not chat, anthropic, responses, gemini or bedrock"
			if strings.EqualFold(strings.TrimSpace(text), "vertex") {
				return reason + "; for Vertex AI give --dialect gemini or anthropic with --vertex PROJECT/LOCATION"
			}
			near := nearest(text, slices.Concat(dialectNames, []string{"openai"}))
			if d, ok := providerDialects[strings.ToLower(strings.TrimSpace(text))]; ok {
				near = d
			}
			if near != "" {
				reason += fmt.Sprintf("; did you mean %q?", near)
			}
			return reason
		}
	case kindText:
		if text == "" {
			return "the value is empty"
		}
	case kindSecret:
		// A server answers a key with quotes or a "Bearer " in it with a
		// bare 401; say what is wrong before it is sent.
		switch i := strings.IndexFunc(text, func(r rune) bool { return r == '"' || r == '\'' || unicode.IsSpace(r) || unicode.IsControl(r) }); {
		case text == "":
			return "the value is empty"
		case i < 0:
		case text[i] == '"' || text[i] == '\'':
			return s.show(text) + " has a quote in it; an API key has none"
		default:
			return s.show(text) + " has a space or control character in it; an API key has none"
		}
	}
	return ""
}

// dialectNames are the names llmstream.ParseDialect takes, as the usage
// lists them.
var dialectNames = []string{"chat", "anthropic", "responses", "gemini", "bedrock"}

// providerDialects are names of providers and their models that people
// give for a dialect, and the dialect each speaks.
var providerDialects = map[string]string{
	"claude": "anthropic", "google": "gemini", "aws": "bedrock", "amazon": "bedrock",
	"azure": "chat", "ollama": "chat", "vllm": "chat", "openrouter": "chat", "gpt": "chat",
}

// layer holds the values one source gives, in the order it gave them.
type layer struct {
	keys  []string
	texts []string
	where []string // per value: "--max-turns", "AIRLOCK_MAX_TURNS", "agent.conf:3"
}

func (l *layer) add(key, text, where string) {
	l.keys = append(l.keys, key)
	l.texts = append(l.texts, text)
	l.where = append(l.where, where)
}

// apply checks every value of l, then applies them all; on a bad value
// nothing of l is applied.
func (l *layer) apply(c *config, byKey map[string]setting) error {
	for i, key := range l.keys {
		if reason := byKey[key].check(l.texts[i]); reason != "" {
			return &settingError{Key: key, Source: l.where[i], Reason: reason}
		}
	}
	for i, key := range l.keys {
		s := byKey[key]
		if err := s.set(c, strings.TrimSpace(l.texts[i])); err != nil {
			// check accepted it, so this is a bug in the table.
			return &settingError{Key: key, Source: l.where[i], Reason: err.Error()}
		}
		if key == "base_url" || key == "api_key" || key == "model" || key == "vertex" {
			c.Real = true
		}
		if key == "vertex" {
			c.vertexFrom = l.where[i]
		}
	}
	return nil
}

// environment is the process's variables by name, passed in so that tests
// give their own.
type environment map[string]string

// environ turns os.Environ's "NAME=value" list into an environment.
func environ(kv []string) environment {
	e := make(environment, len(kv))
	for _, s := range kv {
		if name, value, ok := strings.Cut(s, "="); ok {
			e[name] = value
		}
	}
	return e
}

func (e environment) get(name string) string { return e[name] }

// flagError is a command line the flag package refused: an unknown flag,
// a flag without its value. It wraps errUsage.
type flagError struct{ msg string }

func (e *flagError) Error() string { return "agent: " + e.msg }
func (e *flagError) Unwrap() error { return errUsage }

// parseConfig turns args and the environment into a config, with the
// precedence defaults < config file < environment < flags. Every error
// wraps errUsage; flag.ErrHelp is returned for -h, for the caller to print
// the usage. Variables named AIRLOCK_ that are no setting get a warning on
// stderr, and are ignored.
func parseConfig(args []string, env environment, stderr io.Writer, extra []extraFlag) (config, error) {
	settings := allSettings()
	byKey := make(map[string]setting, len(settings))
	for _, s := range settings {
		byKey[s.key] = s
	}

	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	// The flag package would print its complaint and then the whole
	// usage; the caller prints the complaint and a hint instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	flags := &layer{}
	for _, s := range settings {
		if s.kind == kindBool {
			fs.BoolFunc(s.flagName(), s.usage, func(v string) error {
				flags.add(s.key, v, "--"+s.flagName())
				return nil
			})
			continue
		}
		fs.Func(s.flagName(), s.usage, func(v string) error {
			flags.add(s.key, v, "--"+s.flagName())
			return nil
		})
	}
	prompt := fs.String("e", "", "")
	configPath := fs.String("config", "", "")
	resume := fs.String("resume", "", "")
	for _, f := range extra {
		fs.Func(f.name, f.usage, f.set)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, &flagError{msg: err.Error() + flagSuggestion(err, fs)}
	}
	if fs.NArg() > 0 {
		return config{}, &flagError{msg: fmt.Sprintf("unexpected argument %q; give the task with -e", fs.Arg(0))}
	}

	c := defaults()
	if *configPath != "" {
		file, err := readConfigFile(*configPath, byKey)
		if err != nil {
			return config{}, err
		}
		if err := file.apply(&c, byKey); err != nil {
			return config{}, err
		}
	}
	warnUnknownVariables(env, settings, stderr)
	vars := &layer{}
	for _, s := range settings {
		if v := env.get(s.envName()); v != "" {
			vars.add(s.key, v, s.envName())
		}
	}
	if err := vars.apply(&c, byKey); err != nil {
		return config{}, err
	}
	if err := flags.apply(&c, byKey); err != nil {
		return config{}, err
	}
	c.settleDialect()
	if c.Vertex != "" && c.Dialect != llmstream.DialectGemini && c.Dialect != llmstream.DialectAnthropic {
		// Refused here, before any tool starts, rather than by the
		// client on the first turn.
		return config{}, &settingError{Key: "vertex", Source: c.vertexFrom,
			Reason: fmt.Sprintf("Vertex AI serves --dialect gemini or anthropic, not %v; add --dialect gemini or --dialect anthropic", c.Dialect)}
	}
	// The provider's own variables fill in only what no other source gave.
	// They are trimmed as every other source is.
	if c.APIKey == "" {
		for _, name := range keyVariables(c.Dialect) {
			v := strings.TrimSpace(env.get(name))
			if v == "" {
				continue
			}
			if reason := byKey["api_key"].check(v); reason != "" {
				return config{}, &settingError{Key: "api_key", Source: name, Reason: reason}
			}
			c.APIKey = v
			break
		}
	}
	if c.BaseURL == "" && (c.Dialect == llmstream.DialectChat || c.Dialect == llmstream.DialectResponses) {
		if v := strings.TrimSpace(env.get("OPENAI_BASE_URL")); v != "" {
			if reason := byKey["base_url"].check(v); reason != "" {
				return config{}, &settingError{Key: "base_url", Source: "OPENAI_BASE_URL", Reason: reason}
			}
			c.BaseURL = v
		}
	}
	if *prompt != "" {
		c.Prompt = *prompt
	}
	c.Resume = *resume
	return c, nil
}

// flagSuggestion is ` (did you mean -max-turns?)` for an unknown flag close
// to a known one, and "" otherwise. The flag package reports an unknown
// flag only in its message, so the name is read from there.
func flagSuggestion(err error, fs *flag.FlagSet) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := nearest(name, names); near != "" {
		return " (did you mean -" + near + "?)"
	}
	return ""
}

// warnUnknownVariables warns, on stderr, of each AIRLOCK_ variable that
// names no setting, with the nearest one: a misspelt variable is otherwise
// silently ignored. It names the variable, never its value.
func warnUnknownVariables(env environment, settings []setting, stderr io.Writer) {
	known := make([]string, len(settings))
	for i, s := range settings {
		known[i] = s.envName()
	}
	var unknown []string
	for name := range env {
		if strings.HasPrefix(name, "AIRLOCK_") && !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		hint := ""
		if near := nearest(name, known); near != "" {
			hint = "; did you mean " + near + "?"
		}
		fmt.Fprintf(stderr, "agent: warning: %s is not a setting, ignored%s\n", oneLine(name), hint)
	}
}

// settleDialect picks the dialect when no setting named one, from the base
// URL's host, and the dialect's default model when none was set.
func (c *config) settleDialect() {
	if !c.dialectSet {
		c.Dialect = llmstream.DialectChat
		if u, err := url.Parse(c.BaseURL); err == nil {
			switch host := u.Hostname(); {
			case host == "api.anthropic.com":
				c.Dialect = llmstream.DialectAnthropic
			case host == "generativelanguage.googleapis.com":
				c.Dialect = llmstream.DialectGemini
			case strings.HasPrefix(host, "bedrock-runtime.") && strings.HasSuffix(host, ".amazonaws.com"):
				c.Dialect = llmstream.DialectBedrock
			}
		}
	}
	if !c.modelSet {
		switch c.Dialect {
		case llmstream.DialectAnthropic:
			c.Model = defaultAnthropicModel
		case llmstream.DialectGemini:
			c.Model = defaultGeminiModel
		case llmstream.DialectBedrock:
			c.Model = defaultBedrockModel
		}
	}
}

// keyVariables are the provider's own key variables for a dialect, the
// first set one wins.
func keyVariables(d llmstream.Dialect) []string {
	switch d {
	case llmstream.DialectAnthropic:
		return []string{"ANTHROPIC_API_KEY"}
	case llmstream.DialectGemini:
		return []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}
	case llmstream.DialectBedrock:
		return []string{"AWS_BEARER_TOKEN_BEDROCK"}
	}
	return []string{"OPENAI_API_KEY"}
}
