package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/examples/agent/agentcli"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

//go:embed static
var static embed.FS

// config is what the flags set.
type config struct {
	addr, workspace, baseURL, apiKey, model, dialect string
	allowWrite                                       bool
	offlineDelay                                     time.Duration
}

// parseFlags reads the flags, each defaulting to its AIRLOCK_ variable.
func parseFlags(args []string, getenv func(string) string, out io.Writer) (config, error) {
	env := func(name, def string) string {
		if v := getenv("AIRLOCK_" + strings.ToUpper(name)); v != "" {
			return v
		}
		return def
	}
	var c config
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.addr, "addr", env("addr", "127.0.0.1:8080"), "address to serve on")
	fs.StringVar(&c.workspace, "workspace", env("workspace", "."), "directory the tools may read")
	fs.BoolVar(&c.allowWrite, "allow-write", env("allow_write", "true") == "true", "offer write_file; each call is put to the page")
	fs.StringVar(&c.baseURL, "base-url", env("base_url", ""), "the model server's base URL (real mode)")
	fs.StringVar(&c.apiKey, "api-key", env("api_key", ""), "API key (real mode; prefer AIRLOCK_API_KEY)")
	fs.StringVar(&c.model, "model", env("model", ""), "model name (real mode)")
	fs.StringVar(&c.dialect, "dialect", env("dialect", "chat"), "wire protocol: chat, anthropic, responses, gemini or bedrock")
	delay, err := time.ParseDuration(env("offline_delay", "12ms"))
	if err != nil {
		return c, fmt.Errorf("AIRLOCK_OFFLINE_DELAY: %w", err)
	}
	fs.DurationVar(&c.offlineDelay, "offline-delay", delay, "pause between the offline model's events")
	return c, fs.Parse(args)
}

// serve serves the page and the chat API until ctx ends. ready, when not
// nil, gets the address served on once the listener is open.
func serve(ctx context.Context, args []string, getenv func(string) string, out io.Writer, ready chan<- string) error {
	c, err := parseFlags(args, getenv, out)
	if err != nil {
		return err
	}
	d, err := llmstream.ParseDialect(c.dialect)
	if err != nil {
		return err
	}
	tools, closeTools, err := agentcli.WorkspaceTools(c.workspace, agentcli.DefaultMaxFileBytes, c.allowWrite)
	if err != nil {
		return err
	}
	defer closeTools()
	opts := []llmstream.ClientOption{llmstream.WithDialect(d)}
	mode := "offline: the scripted model"
	if c.baseURL != "" || c.apiKey != "" || c.model != "" {
		opts = append(opts, llmstream.WithBaseURL(c.baseURL), llmstream.WithAPIKey(c.apiKey), llmstream.WithModel(c.model))
		mode = "real model " + c.model
	} else {
		model := llmstreamtest.NewServer(llmstreamtest.WithResponder(agentcli.ScriptedTurn),
			llmstreamtest.WithInterleavedCalls(true), llmstreamtest.WithEventDelay(c.offlineDelay))
		defer model.Close()
		opts = append(opts, model.ClientOptions()...)
		opts = append(opts, llmstream.WithModel("airlock-scripted"))
	}
	chat := aisdk.NewHandler(agentloop.Loop{
		Model:              llmstream.NewClient(opts...),
		Tools:              tools,
		AnswerInvalidCalls: true,
		ParallelTools:      4,
	}, aisdk.WithSystemPrompt("You are a careful coding agent. Use the tools to look at the workspace before you answer."))
	defer chat.Close()

	page, _ := fs.Sub(static, "static")
	mux := http.NewServeMux()
	mux.Handle("/api/chat", chat)
	mux.Handle("/api/chat/", chat)
	mux.HandleFunc("/mode", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, mode) })
	mux.Handle("/", http.FileServerFS(page))

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "airlock web chat (%s) on http://%s\n", mode, ln.Addr())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	chat.Close() // ends the runs, so their streams end and Shutdown can finish
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
