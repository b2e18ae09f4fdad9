// Command agent is airlock's demo coding agent.
//
// With no flags it runs offline: a built-in scripted model is served by
// llmstreamtest over loopback HTTP and reached through the whole stack
// (transport, sse, the llmstream bridge and tool-call assembler, agentloop).
// It explores the workspace with list_files and read_file_safe and streams
// a summary. -e "task" gives it a task.
//
// With --base-url, --api-key and --model (or AIRLOCK_BASE_URL,
// AIRLOCK_API_KEY, AIRLOCK_MODEL; the provider's own key variable and
// OPENAI_BASE_URL fill in what those leave unset) it talks to any
// OpenAI-compatible server, or with --dialect to the Anthropic, Responses
// or Gemini API.
//
// Settings come from, in rising precedence: defaults, a --config file of
// `key = value` lines (values may be quoted; see configfile.go), AIRLOCK_<KEY>
// variables, flags. A bad value is refused with exit status 2, and a message
// that shows it (a key only redacted) and, for a misspelt name, the nearest
// known one; an AIRLOCK_ variable that is no setting gets a warning. Exit
// status 1 means the run stopped on an error, 130 that it was interrupted.
//
// The file tools stay inside the workspace (an os.Root: no absolute path,
// no "..", no symlink out), read and write UTF-8 text only, and leave
// hidden files alone: .env and .git/config hold credentials the model
// would send to its provider, .git/hooks and .envrc hold code that runs
// later. write_file is off unless --allow-write.
//
// On a terminal the output is redrawn in place: each tool call is shown
// while its arguments stream, under it a status line. Piped, the same
// transcript is written plainly, one line per call.
//
//	go run ./examples/agent
//	go run ./examples/agent -e "find TODO"
//	AIRLOCK_API_KEY=... go run ./examples/agent --base-url https://api.openai.com/v1 --model gpt-4o-mini
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels the run cleanly; restoring the default
	// handling then lets a second one kill a run slow to stop.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, environ(os.Environ()))
	stop()
	os.Exit(code)
}

// run is the whole program, with its surroundings passed in so tests can
// drive it: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env environment) int {
	cfg, err := parseConfig(args, env, stderr)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		var fe *flagError
		if errors.As(err, &fe) {
			fmt.Fprintln(stderr, usageHint)
		}
		return exitUsage
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

	out := newPrinter(stdout, env.get)
	httpClient := transport.New(transport.WithTimeout(cfg.Timeout), transport.WithConnectTimeout(cfg.ConnectTimeout))
	defer httpClient.CloseIdleConnections()
	opts := []llmstream.ClientOption{llmstream.WithHTTPClient(httpClient), llmstream.WithDialect(cfg.Dialect)}
	if cfg.Real {
		baseURL := cfg.BaseURL
		if p, l, ok := strings.Cut(cfg.Vertex, "/"); ok {
			opts = append(opts, llmstream.WithVertex(p, l))
			if baseURL == "" {
				baseURL = vertexBaseURL(l)
			}
		}
		if baseURL == "" {
			baseURL = defaultBaseURL(cfg.Dialect, env.get("AWS_REGION"))
		}
		opts = append(opts, llmstream.WithBaseURL(baseURL), llmstream.WithAPIKey(cfg.APIKey), llmstream.WithModel(cfg.Model))
		out.realBanner(cfg.Dialect, baseURL, cfg.Model, wsName, cfg.APIKey != "")
	} else {
		srv := llmstreamtest.NewServer(
			llmstreamtest.WithResponder(scriptedTurn),
			llmstreamtest.WithInterleavedCalls(true),
			llmstreamtest.WithEventDelay(cfg.OfflineDelay),
		)
		defer srv.Close()
		opts = append(opts, llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey("offline-demo"), llmstream.WithModel("airlock-scripted"))
		out.offlineBanner(cfg.Dialect, wsName)
	}
	out.task(cfg.Prompt)

	loop := agentloop.Loop{
		Model:               llmstream.NewClient(opts...),
		Tools:               ws.tools(),
		MaxTurns:            cfg.MaxTurns,
		MaxToolCallsPerTurn: cfg.MaxToolCallsPerTurn,
		MaxTotalToolCalls:   cfg.MaxTotalToolCalls,
		MaxToolOutputBytes:  cfg.MaxToolOutputBytes,
		ToolTimeout:         cfg.ToolTimeout,
		// A real model's slip (a tool it made up, arguments that are not
		// JSON) is answered, so it can send the call again; such a call
		// never runs, and the same slip twice stops the run.
		AnswerInvalidCalls: true,
		Hooks: agentloop.Hooks{
			BeforeModel: out.modelStart,
			OnDelta:     out.delta,
			AfterModel:  out.modelDone,
			BeforeTool:  out.toolStart,
			AfterTool:   out.toolDone,
		},
	}
	start := time.Now()
	out.begin()
	stopClock := out.startClock(clockInterval)
	res, err := loop.Run(ctx, []llmstream.Message{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: cfg.Prompt},
	})
	stopClock()
	out.summary(res, time.Since(start), err)
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
