package agentcli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// Option changes what [Run] offers. Options are applied in order.
type Option interface {
	apply(*options)
}

type options struct {
	command     string
	wrapDoer    []func(ctx context.Context, next llmstream.Doer) (llmstream.Doer, error)
	flags       []extraFlag
	tools       []func(ctx context.Context, taken []string) ([]agentloop.Tool, error)
	stdin       io.Reader
	interactive bool // stdin is a person at a terminal
}

// extraFlag is a flag a WithFlag option adds.
type extraFlag struct {
	name, arg, usage string
	set              func(string) error
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithCommand names the command that runs the program, as the usage, the
// offline banner and the line that says how to resume a paused run show
// it, e.g. "./agent" or "go run ./examples/agent" (see [Invocation]). The
// default is "agent".
func WithCommand(command string) Option {
	return optionFunc(func(o *options) { o.command = command })
}

// Invocation is the command that ran this program, for [WithCommand]: arg0
// (os.Args[0]) as the person typed it, or goRun (e.g. "go run
// ./examples/agent") when arg0 is a binary that go run built — in a
// temporary go-build directory, or in the build cache (Go 1.24 on keeps go
// run's binaries there, under go-build or $GOCACHE), neither a command to
// type again.
func Invocation(arg0, goRun string) string {
	if cache := os.Getenv("GOCACHE"); cache != "" && strings.HasPrefix(arg0, filepath.Clean(cache)+string(filepath.Separator)) {
		return goRun
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(arg0)), "/") {
		if strings.HasPrefix(dir, "go-build") {
			return goRun
		}
	}
	return arg0
}

// WithFlag adds the flag --name, with arg naming its value in the usage.
// set is called with the value each time the flag is given, in order, so a
// flag given twice is seen twice; an error from set is a usage error (exit
// status 2). It is a flag only: no config-file key, no variable. The flag
// is kept in the command line printed to resume a paused run.
func WithFlag(name, arg, usage string, set func(value string) error) Option {
	return optionFunc(func(o *options) {
		o.flags = append(o.flags, extraFlag{name: name, arg: arg, usage: usage, set: set})
	})
}

// WithTools adds tools beside the demo's own. tools is called once per Run,
// after the command line was read (so the flags of [WithFlag] are set) and
// before the model is first asked, with Run's context and the names
// already taken (the demo's tools, then those of earlier WithTools), which
// the new ones must not reuse. An error stops the run with exit status 1.
// Whatever tools starts (a server, a connection) outlives Run: the caller
// ends it after Run returns. A tool with NeedsApproval is put to the person
// as write_file is.
func WithTools(tools func(ctx context.Context, taken []string) ([]agentloop.Tool, error)) Option {
	return optionFunc(func(o *options) { o.tools = append(o.tools, tools) })
}

// WithDoer wraps what sends a real model's requests: wrap is called once
// per Run, in real mode only (the offline model needs no credentials), with
// the demo's transport (its timeouts, stall detection and retries), and
// returns the Doer the client sends through — contrib/aws's SigV4 signer,
// say. An error stops the run with exit status 1. Several WithDoer wrap in
// order, the last one outermost.
func WithDoer(wrap func(ctx context.Context, next llmstream.Doer) (llmstream.Doer, error)) Option {
	return optionFunc(func(o *options) { o.wrapDoer = append(o.wrapDoer, wrap) })
}

// withInput reads answers from r; interactive says whether a person types
// them (tests pretend a terminal).
func withInput(r io.Reader, interactive bool) Option {
	return optionFunc(func(o *options) { o.stdin, o.interactive = r, interactive })
}
