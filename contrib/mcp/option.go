package mcp

import (
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the limits set by options.
const (
	// DefaultMaxOutputBytes is the default bound of one call's result, in
	// bytes; the agentloop's own default output limit.
	DefaultMaxOutputBytes = 32 << 10
	// DefaultMaxTools is the default bound of the tools one server may
	// list.
	DefaultMaxTools = 1000
)

// Option configures [Tools]. Options are values with a String method, so
// tests can compare them and failures print them.
type Option interface {
	apply(*config)
	String() string
}

type config struct {
	prefix         string
	taken          []string
	filter         func(*sdk.Tool) bool
	needsApproval  func(*sdk.Tool) bool
	maxOutputBytes int
	maxTools       int
	secrets        []string
	err            error // the first bad option, which Tools returns
}

// reject keeps the first bad option's error.
func (c *config) reject(o Option, reason string) {
	if c.err == nil {
		c.err = &OptionError{Option: o.String(), Reason: reason}
	}
}

func newConfig(opts []Option) config {
	c := config{maxOutputBytes: DefaultMaxOutputBytes, maxTools: DefaultMaxTools, needsApproval: annotatedApproval}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

type prefixOption string

// WithPrefix puts prefix before every tool name offered to the model, so
// "fs_" offers the server's "read_file" as "fs_read_file". The server is
// still called with its own name. Default none. Providers restrict tool
// names (OpenAI: letters, digits, '_' and '-', at most 64), so choose a
// prefix within those.
func WithPrefix(prefix string) Option { return prefixOption(prefix) }

func (o prefixOption) apply(c *config) { c.prefix = string(o) }
func (o prefixOption) String() string  { return fmt.Sprintf("mcp.WithPrefix(%q)", string(o)) }

type takenOption []string

// WithTakenNames lists tool names already in use, such as the Loop's own
// tools or another server's; a tool whose offered name is one of them
// makes [Tools] fail with a [*CollisionError]. Repeated options add up.
func WithTakenNames(names ...string) Option { return takenOption(append([]string(nil), names...)) }

func (o takenOption) apply(c *config) { c.taken = append(c.taken, o...) }
func (o takenOption) String() string {
	return fmt.Sprintf("mcp.WithTakenNames(%q)", strings.Join(o, ", "))
}

type filterOption func(*sdk.Tool) bool

// WithFilter offers only the tools for which keep returns true; keep sees
// the tool as the server listed it (its own name, no prefix) and must not
// modify it. Tools left out cannot collide. Default: every tool.
func WithFilter(keep func(*sdk.Tool) bool) Option { return filterOption(keep) }

func (o filterOption) apply(c *config) {
	if o != nil {
		c.filter = o
	}
}
func (o filterOption) String() string { return "mcp.WithFilter(func)" }

type approvalOption func(*sdk.Tool) bool

// WithApproval sets the rule for agentloop.Tool.NeedsApproval: rule sees
// the tool as the server listed it and returns whether a call needs a
// person's approval. It must not modify the tool.
//
// The default rule reads the server's annotations: a tool whose
// readOnlyHint is true needs no approval; every other tool needs it — one
// with destructiveHint true or absent, one with no annotations at all, and
// also one marked non-destructive (destructiveHint false), since it still
// changes its environment. Annotations are hints from a server you may not
// control: a server can call a destructive tool read-only. Pass a rule of
// your own (a list of names you trust, say) for servers you do not trust.
func WithApproval(rule func(*sdk.Tool) bool) Option { return approvalOption(rule) }

func (o approvalOption) apply(c *config) {
	if o != nil {
		c.needsApproval = o
	}
}
func (o approvalOption) String() string { return "mcp.WithApproval(func)" }

// annotatedApproval is the default rule of [WithApproval].
func annotatedApproval(t *sdk.Tool) bool {
	return t.Annotations == nil || !t.Annotations.ReadOnlyHint
}

type maxOutputOption int

// WithMaxOutputBytes bounds one call's result, in bytes: a longer result
// is cut on a UTF-8 boundary and a line saying so is appended (so the
// result may pass n by that line's ~60 bytes). Not an error. The
// agentloop cuts again at its own MaxToolOutputBytes; this bound keeps the
// text built from a large answer small in the first place. Default
// [DefaultMaxOutputBytes]; 0 means the default. A negative n is invalid:
// [Tools] fails with an [*OptionError] (errors.Is [ErrInvalidOption]).
func WithMaxOutputBytes(n int) Option { return maxOutputOption(n) }

func (o maxOutputOption) apply(c *config) {
	switch {
	case o < 0:
		c.reject(o, "the size must not be negative")
	case o == 0:
		c.maxOutputBytes = DefaultMaxOutputBytes
	default:
		c.maxOutputBytes = int(o)
	}
}
func (o maxOutputOption) String() string { return fmt.Sprintf("mcp.WithMaxOutputBytes(%d)", int(o)) }

type maxToolsOption int

// WithMaxTools bounds how many tools the server may list, counted before
// [WithFilter], over all pages; one more makes [Tools] fail with
// [ErrTooManyTools], so a server that pages without end cannot keep it
// busy. Default [DefaultMaxTools]; 0 means the default. A negative n is
// invalid: [Tools] fails with an [*OptionError] (errors.Is
// [ErrInvalidOption]).
func WithMaxTools(n int) Option { return maxToolsOption(n) }

func (o maxToolsOption) apply(c *config) {
	switch {
	case o < 0:
		c.reject(o, "the count must not be negative")
	case o == 0:
		c.maxTools = DefaultMaxTools
	default:
		c.maxTools = int(o)
	}
}
func (o maxToolsOption) String() string { return fmt.Sprintf("mcp.WithMaxTools(%d)", int(o)) }

type secretsOption []string

// WithSecrets names values (tokens, keys, passwords) that the server was
// started with and that must never appear in an error text: every error
// [Tools] and the tools' Run functions return shows "REDACTED" in their
// place, in every form an echo may take (as is, JSON- or URL-escaped),
// by airlock's one rule ([transport.Redact]), which leaves alone a value
// under 8 bytes: it cannot be told from ordinary text. Repeated options
// add up.
func WithSecrets(values ...string) Option { return secretsOption(append([]string(nil), values...)) }

func (o secretsOption) apply(c *config) {
	for _, v := range o {
		if v != "" {
			c.secrets = append(c.secrets, v)
		}
	}
}
func (o secretsOption) String() string {
	return fmt.Sprintf("mcp.WithSecrets(<%d redacted>)", len(o))
}
