package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/transport"
)

// Defaults of the settings that are not the agentloop or transport ones.
const (
	// defaultModel is the model asked for in real mode when none is set.
	defaultModel = "gpt-4o-mini"
	// defaultMaxFileBytes caps what read_file_safe, search and write_file
	// handle per file: 256 KiB.
	defaultMaxFileBytes = 256 << 10
	// defaultOfflineDelay paces the offline model's events so a person sees
	// the text stream.
	defaultOfflineDelay = 12 * time.Millisecond
	// defaultPrompt is the task when -e is not given.
	defaultPrompt = "Explore this project and tell me what it is."
	// maxConfigBytes bounds the config file: a larger one is refused.
	maxConfigBytes = 1 << 20
)

// errUsage marks a bad flag, setting or config file: exit status 2.
var errUsage = errors.New("agent: bad usage")

// settingError says which setting was refused, from where, and why. It
// never holds a value of api_key or of a key it does not know, as those may
// be secrets.
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
	Workspace              string
	Prompt                 string

	MaxTurns, MaxToolCallsPerTurn, MaxTotalToolCalls int
	MaxToolOutputBytes, MaxFileBytes                 int
	ToolTimeout, Timeout, ConnectTimeout             time.Duration
	OfflineDelay                                     time.Duration
	AllowWrite                                       bool

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
	kindURL                      // an http or https URL
	kindCount                    // a whole number ≥ 1
	kindDuration                 // a Go duration ≥ 0, like 30s or 2m
	kindBool                     // true/false/1/0
)

// setting is one configurable value. Its config-file key is key, its flag
// is key with '-' for '_', and its variable is AIRLOCK_ and key in capitals.
type setting struct {
	key   string
	kind  kind
	usage string
	set   func(c *config, text string) error
}

func (s setting) flagName() string { return strings.ReplaceAll(s.key, "_", "-") }
func (s setting) envName() string  { return "AIRLOCK_" + strings.ToUpper(s.key) }

// allSettings lists every setting, in the order usage shows them.
func allSettings() []setting {
	return []setting{
		{"base_url", kindURL, "OpenAI-compatible base URL, e.g. https://api.openai.com/v1 (real mode)", func(c *config, v string) error { c.BaseURL = v; return nil }},
		{"api_key", kindText, "API key (real mode; prefer the environment, flags show in ps)", func(c *config, v string) error { c.APIKey = v; return nil }},
		{"model", kindText, "model name (real mode; default " + defaultModel + ")", func(c *config, v string) error { c.Model = v; return nil }},
		{"workspace", kindText, "directory the tools may read (default: the current directory)", func(c *config, v string) error { c.Workspace = v; return nil }},
		{"max_turns", kindCount, fmt.Sprintf("model calls per run (default %d)", agentloop.DefaultMaxTurns), setInt(func(c *config) *int { return &c.MaxTurns })},
		{"max_tool_calls_per_turn", kindCount, fmt.Sprintf("tool calls one answer may make (default %d)", agentloop.DefaultMaxToolCallsPerTurn), setInt(func(c *config) *int { return &c.MaxToolCallsPerTurn })},
		{"max_total_tool_calls", kindCount, fmt.Sprintf("tool calls per run (default %d)", agentloop.DefaultMaxTotalToolCalls), setInt(func(c *config) *int { return &c.MaxTotalToolCalls })},
		{"max_tool_output_bytes", kindCount, fmt.Sprintf("bytes of one tool result the model sees (default %d)", agentloop.DefaultMaxToolOutputBytes), setInt(func(c *config) *int { return &c.MaxToolOutputBytes })},
		{"max_file_bytes", kindCount, fmt.Sprintf("largest file read_file_safe reads or search scans (default %d)", defaultMaxFileBytes), setInt(func(c *config) *int { return &c.MaxFileBytes })},
		{"tool_timeout", kindDuration, fmt.Sprintf("time limit of one tool call (default %v)", agentloop.DefaultToolTimeout), setDuration(func(c *config) *time.Duration { return &c.ToolTimeout })},
		{"timeout", kindDuration, fmt.Sprintf("time limit of one model call, 0 for none (default %v)", transport.DefaultTimeout), setDuration(func(c *config) *time.Duration { return &c.Timeout })},
		{"connect_timeout", kindDuration, fmt.Sprintf("time limit to connect, 0 for none (default %v)", transport.DefaultConnectTimeout), setDuration(func(c *config) *time.Duration { return &c.ConnectTimeout })},
		{"offline_delay", kindDuration, fmt.Sprintf("pause between the offline model's events (default %v)", defaultOfflineDelay), setDuration(func(c *config) *time.Duration { return &c.OfflineDelay })},
		{"allow_write", kindBool, "offer write_file for real (default false: it refuses)", func(c *config, v string) error {
			b, err := strconv.ParseBool(v)
			c.AllowWrite = b
			return err
		}},
	}
}

func setInt(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		*field(c) = n
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
	}
}

// check validates text for s before it is applied, with a reason a person
// can act on. It never quotes an api_key.
func (s setting) check(text string) string {
	switch s.kind {
	case kindURL:
		u, err := url.Parse(strings.TrimSpace(text))
		if err != nil {
			return "not a URL"
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// Redacted: a URL may carry a password.
			return fmt.Sprintf("%q is not an http:// or https:// URL", u.Redacted())
		}
	case kindCount:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		switch {
		case err != nil:
			return fmt.Sprintf("%q is not a whole number", text)
		case n < 0:
			return fmt.Sprintf("%d is negative; want a whole number ≥ 1", n)
		case n == 0:
			return "0 is not allowed; want a whole number ≥ 1"
		}
	case kindDuration:
		d, err := time.ParseDuration(strings.TrimSpace(text))
		switch {
		case err != nil:
			return fmt.Sprintf("%q is not a duration like 30s or 2m", text)
		case d < 0:
			return fmt.Sprintf("%v is negative", d)
		}
	case kindBool:
		if _, err := strconv.ParseBool(strings.TrimSpace(text)); err != nil {
			return fmt.Sprintf("%q is not true or false", text)
		}
	case kindText:
		if strings.TrimSpace(text) == "" {
			return "empty"
		}
	}
	return ""
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
		if key == "base_url" || key == "api_key" || key == "model" {
			c.Real = true
		}
	}
	return nil
}

// parseConfig turns args and the environment into a config, with the
// precedence defaults < config file < environment < flags. Every error
// wraps errUsage; flag.ErrHelp is returned for -h.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	settings := allSettings()
	byKey := make(map[string]setting, len(settings))
	for _, s := range settings {
		byKey[s.key] = s
	}

	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	prompt := fs.String("e", "", "the task to run (default: explore the workspace)")
	configPath := fs.String("config", "", "a file of `key = value` lines (keys as the flags, with _ for -)")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		// The flag package has printed the problem and the usage.
		return config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return config{}, &settingError{Source: "arguments", Reason: fmt.Sprintf("unexpected %q; give the task with -e", fs.Arg(0))}
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
	env := &layer{}
	for _, s := range settings {
		if v := getenv(s.envName()); v != "" {
			env.add(s.key, v, s.envName())
		}
	}
	if err := env.apply(&c, byKey); err != nil {
		return config{}, err
	}
	if err := flags.apply(&c, byKey); err != nil {
		return config{}, err
	}
	// The OpenAI variables fill in only what no other source gave.
	// They are trimmed as every other source is.
	if c.APIKey == "" {
		c.APIKey = strings.TrimSpace(getenv("OPENAI_API_KEY"))
	}
	if c.BaseURL == "" {
		if v := strings.TrimSpace(getenv("OPENAI_BASE_URL")); v != "" {
			if reason := byKey["base_url"].check(v); reason != "" {
				return config{}, &settingError{Key: "base_url", Source: "OPENAI_BASE_URL", Reason: reason}
			}
			c.BaseURL = v
		}
	}
	if *prompt != "" {
		c.Prompt = *prompt
	}
	return c, nil
}

// readConfigFile reads `key = value` lines; blank lines and lines starting
// with # are skipped. An unknown key, a line without '=', or a key given
// twice is refused with its line number; a file over maxConfigBytes is
// refused whole.
func readConfigFile(path string, byKey map[string]setting) (*layer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &settingError{Source: "--config", Reason: err.Error()}
	}
	defer f.Close()
	// One byte past the limit tells a file over it from one at it: a cut
	// file would apply its head and silently drop (or cut) the rest.
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, &settingError{Source: path, Reason: err.Error()}
	}
	if len(data) > maxConfigBytes {
		return nil, &settingError{Source: path, Reason: fmt.Sprintf("over the limit of %d bytes", maxConfigBytes)}
	}
	l := &layer{}
	seen := map[string]int{}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, n)
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &settingError{Source: where, Reason: "not a `key = value` line"}
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if _, known := byKey[key]; !known {
			// Only the key is shown: a misspelt api_key's value is a secret.
			return nil, &settingError{Source: where, Reason: fmt.Sprintf("unknown key %q", key)}
		}
		if first, dup := seen[key]; dup {
			return nil, &settingError{Key: key, Source: where, Reason: fmt.Sprintf("given twice (first on line %d)", first)}
		}
		seen[key] = n
		l.add(key, value, where)
	}
	return l, nil
}

func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, `usage: agent [flags]

A demo coding agent. With no flags it runs offline against a built-in scripted
model served over loopback HTTP; give --base-url/--api-key/--model (or the
AIRLOCK_BASE_URL, AIRLOCK_API_KEY, AIRLOCK_MODEL variables) to use any
OpenAI-compatible server. OPENAI_API_KEY and OPENAI_BASE_URL fill in a key or
URL no other source gave.

Settings: defaults < --config file < AIRLOCK_<KEY> variables < flags.

`)
	fs.PrintDefaults()
}
