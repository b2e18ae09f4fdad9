package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

const systemPrompt = "You are a careful coding agent working in a workspace directory. " +
	"Look before you answer: use list_files, search and read_file_safe, with paths relative to the workspace. " +
	"Read only what you need. When you have enough, answer briefly and concretely."

// Run is the whole demo agent: it reads the command line args (without
// the program's name) and the environment (os.Environ's "NAME=value"
// form), runs, writes the transcript to stdout and the problems to stderr,
// and returns the exit status: 0 done, 1 stopped on an error, 2 a bad
// command line or setting, 130 interrupted or paused.
//
// stdin is where the answers to approval questions come from; they are
// asked only when stdin is a terminal (otherwise a call that needs approval
// is denied, unless --yes). Cancelling ctx is Ctrl-C: while a question
// waits it pauses the run, whose state is saved to a file to go on with
// --resume; at any other time it cancels the run.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string, opts ...Option) int {
	opts = append([]Option{withInput(stdin, isTerminal(stdin))}, opts...)
	return run(ctx, args, stdout, stderr, environ(env), opts...)
}

// run is Run with the environment parsed, so tests can drive it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env environment, opts ...Option) int {
	o := options{command: "agent"}
	for _, opt := range opts {
		opt.apply(&o)
	}
	cfg, err := parseConfig(args, env, stderr, o.flags)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, o.command, o.flags)
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		var fe *flagError
		if errors.As(err, &fe) {
			fmt.Fprintln(stderr, usageHint(o.command))
		}
		return exitUsage
	}
	var saved *agentloop.State
	if cfg.Resume != "" {
		if saved, err = loadState(cfg.Resume); err != nil {
			fmt.Fprintln(stderr, errorLine(err))
			return exitUsage
		}
	}
	ws, err := openWorkspace(cfg.Workspace, cfg.MaxFileBytes, cfg.AllowWrite)
	if err != nil {
		fmt.Fprintf(stderr, "agent: workspace: %v\n", err)
		return exitUsage
	}
	defer ws.Close()
	wsName := cfg.Workspace
	if abs, err := filepath.Abs(cfg.Workspace); err == nil {
		wsName = abs
	}

	tools := ws.tools()
	for _, more := range o.tools {
		extra, err := more(ctx, toolNames(tools))
		if err != nil {
			fmt.Fprintln(stderr, errorLine(fmt.Errorf("tools: %w", err)))
			return exitFailed
		}
		tools = append(tools, extra...)
	}

	out := newPrinter(stdout, env.get)
	out.parallel = cfg.Parallel
	httpClient := transport.New(transport.WithTimeout(cfg.Timeout), transport.WithConnectTimeout(cfg.ConnectTimeout))
	defer httpClient.CloseIdleConnections()
	clientOpts := []llmstream.ClientOption{llmstream.WithHTTPClient(httpClient), llmstream.WithDialect(cfg.Dialect)}
	if cfg.Real {
		var doer llmstream.Doer = httpClient
		for _, wrap := range o.wrapDoer {
			if doer, err = wrap(ctx, doer); err != nil {
				fmt.Fprintln(stderr, errorLine(err))
				return exitFailed
			}
		}
		clientOpts[0] = llmstream.WithHTTPClient(doer)
		baseURL := cfg.BaseURL
		if p, l, ok := strings.Cut(cfg.Vertex, "/"); ok {
			clientOpts = append(clientOpts, llmstream.WithVertex(p, l))
			if baseURL == "" {
				baseURL = vertexBaseURL(l)
			}
		}
		if baseURL == "" {
			baseURL = defaultBaseURL(cfg.Dialect, env.get("AWS_REGION"))
		}
		clientOpts = append(clientOpts, llmstream.WithBaseURL(baseURL), llmstream.WithAPIKey(cfg.APIKey), llmstream.WithModel(cfg.Model))
		out.realBanner(cfg.Dialect, baseURL, cfg.Model, wsName, cfg.APIKey != "")
	} else {
		srv := llmstreamtest.NewServer(
			llmstreamtest.WithResponder(scriptedTurn),
			llmstreamtest.WithInterleavedCalls(true),
			llmstreamtest.WithEventDelay(cfg.OfflineDelay),
		)
		defer srv.Close()
		clientOpts = append(clientOpts, llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey("offline-demo"), llmstream.WithModel("airlock-scripted"))
		out.offlineBanner(cfg.Dialect, wsName, o.command, env.get)
	}
	var model agentloop.Model = llmstream.NewClient(clientOpts...)
	if cfg.Fallback != 0 && !cfg.Real {
		fallback, closeAll := offlineFailover(cfg, httpClient)
		defer closeAll()
		model = fallback
	}
	if saved != nil {
		out.resuming(cfg.Resume, *saved)
	} else {
		out.task(cfg.Prompt)
	}

	// Ctrl-C (ctx ending) at a question pauses the run; anywhere else it
	// cancels it. So the loop runs on a context of its own, which Ctrl-C
	// ends only when no question waits.
	ask := newAsker(out, o.stdin, o.interactive, cfg.Yes)
	defer ask.stop()
	loopCtx, cancelLoop := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelLoop()
	stopWatching := context.AfterFunc(ctx, func() {
		if !ask.interrupt() {
			cancelLoop()
		}
	})
	defer stopWatching()

	loop := agentloop.Loop{
		Model:               model,
		Tools:               tools,
		MaxTurns:            cfg.MaxTurns,
		MaxToolCallsPerTurn: cfg.MaxToolCallsPerTurn,
		MaxTotalToolCalls:   cfg.MaxTotalToolCalls,
		MaxToolOutputBytes:  cfg.MaxToolOutputBytes,
		ToolTimeout:         cfg.ToolTimeout,
		// A real model's slip (a tool it made up, arguments that are not
		// JSON) is answered, so it can send the call again; such a call
		// never runs, and the same slip twice stops the run.
		AnswerInvalidCalls: true,
		ParallelTools:      cfg.Parallel,
		Approve:            ask.approve,
		Hooks: agentloop.Hooks{
			BeforeModel:   out.modelStart,
			OnDelta:       out.delta,
			AfterModel:    out.modelDone,
			BeforeTool:    out.toolStart,
			AfterTool:     out.toolDone,
			AfterApproval: out.approvalDone,
		},
	}
	if cfg.Output == "plan" {
		planOutput(&loop, out)
	}
	start := time.Now()
	out.begin()
	stopClock := out.startClock(clockInterval)
	var res agentloop.Result
	if saved != nil {
		res, err = resume(loopCtx, &loop, ask, *saved)
	} else {
		res, err = loop.Run(loopCtx, []llmstream.Message{
			{Role: "system", Content: systemPrompt},
			{Role: "user", Content: cfg.Prompt},
		})
	}
	stopClock()
	out.summary(res, time.Since(start), err)
	if errors.Is(err, agentloop.ErrPaused) {
		return paused(res, cfg, o.command, args, stdout, stderr)
	}
	if saved != nil && !errors.Is(err, agentloop.ErrInvalidState) {
		// The run the file held has gone on: resuming from it again would
		// run its calls twice.
		if err := os.Remove(cfg.Resume); err != nil {
			fmt.Fprintln(stderr, errorLine(err))
		}
	}
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "agent: interrupted")
		return exitInterrupted
	default:
		fmt.Fprintln(stderr, errorLine(err))
		if hint := missingKeyHint(cfg, err); hint != "" {
			fmt.Fprintln(stderr, hint)
		}
		return exitFailed
	}
}

// missingKeyHint says where a key goes when a real server refused a run
// that had none: the provider's 401 or 403 alone does not say that the
// key was missing rather than wrong.
func missingKeyHint(cfg config, err error) string {
	var api *llmstream.APIError
	if !cfg.Real || cfg.APIKey != "" || !errors.As(err, &api) ||
		(api.Kind != llmstream.ErrorAuthentication && api.Kind != llmstream.ErrorPermission) {
		return ""
	}
	names := append([]string{"AIRLOCK_API_KEY"}, keyVariables(cfg.Dialect)...)
	list := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return "agent: no API key was given: set " + list + ", or use --api-key"
}

// errorLine is the line that reports the error a run stopped with. The
// error may quote the server or the model, so it goes through printable:
// the libraries clean what they quote, but the demo does not count on it.
func errorLine(err error) string {
	return "agent: " + printable(err.Error())
}

// vertexBaseURL is Vertex AI's base URL for a location, as WithVertex
// documents it.
func vertexBaseURL(location string) string {
	if location == "global" {
		return "https://aiplatform.googleapis.com/v1"
	}
	return "https://" + location + "-aiplatform.googleapis.com/v1"
}

// defaultBaseURL is the provider's own base URL for a dialect; Bedrock's
// is the region's (AWS_REGION), else us-east-1's.
func defaultBaseURL(d llmstream.Dialect, region string) string {
	switch d {
	case llmstream.DialectBedrock:
		if region != "" {
			return llmstream.BedrockBaseURL(region)
		}
		return llmstream.DefaultBedrockBaseURL
	case llmstream.DialectAnthropic:
		return llmstream.DefaultAnthropicBaseURL
	case llmstream.DialectGemini:
		return llmstream.DefaultGeminiBaseURL
	}
	return llmstream.DefaultBaseURL
}
