package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// ANSI styles, used only when colour is on.
const (
	styleReset = "\x1b[0m"
	styleDim   = "\x1b[2m"
	styleBold  = "\x1b[1m"
	styleCyan  = "\x1b[36m"
	styleRed   = "\x1b[31m"
	styleGreen = "\x1b[32m"
)

// maxShownArgs is how much of a call's arguments its line shows.
const maxShownArgs = 72

// printer writes the run for a person: streamed text as it arrives, one
// line per tool call, and a closing line. Used from the loop's goroutine
// only (agentloop calls hooks synchronously).
type printer struct {
	w     io.Writer
	color bool
	// midLine is set while streamed text has not ended its line.
	midLine bool
	// inReasoning is set while reasoning text is streaming.
	inReasoning bool
}

// useColor reports whether w is a terminal and NO_COLOR (any value) is
// unset, as https://no-color.org asks.
func useColor(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *printer) style(s, text string) string {
	if !p.color {
		return text
	}
	return s + text + styleReset
}

// endLine finishes streamed text with a newline if it left one open.
func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
	p.inReasoning = false
}

func (p *printer) offlineBanner(workspace string) {
	fmt.Fprintln(p.w, p.style(styleBold, "airlock demo agent — OFFLINE, scripted model"))
	fmt.Fprintln(p.w, p.style(styleDim, "No network and no API key: a built-in scripted model is served over loopback HTTP and streamed through"))
	fmt.Fprintln(p.w, p.style(styleDim, "the whole stack (transport, sse, bridge, tool-call assembler, agent loop). Workspace: "+workspace))
	fmt.Fprintln(p.w, p.style(styleDim, "To use a real model: go run ./examples/agent --base-url https://api.openai.com/v1 --model gpt-4o-mini"))
	fmt.Fprintln(p.w, p.style(styleDim, "with the key in AIRLOCK_API_KEY or OPENAI_API_KEY (any OpenAI-compatible server works: vLLM, Ollama, ...)."))
	fmt.Fprintln(p.w)
}

// realBanner names the server and model; it says only whether a key is
// set, never the key, and hides a password in the URL.
func (p *printer) realBanner(baseURL, model, workspace string, haveKey bool) {
	key := "no API key"
	if haveKey {
		key = "API key set"
	}
	if u, err := url.Parse(baseURL); err == nil {
		baseURL = u.Redacted()
	}
	fmt.Fprintln(p.w, p.style(styleBold, "airlock demo agent — "+model+" at "+baseURL))
	fmt.Fprintln(p.w, p.style(styleDim, key+"; workspace: "+workspace))
	fmt.Fprintln(p.w)
}

func (p *printer) task(prompt string) {
	fmt.Fprintln(p.w, p.style(styleCyan, "task: ")+prompt)
	fmt.Fprintln(p.w)
}

// delta prints text and reasoning as they stream; tool calls still forming
// get their line once they have run.
func (p *printer) delta(d llmstream.Delta) {
	switch d.Kind {
	case llmstream.DeltaText, llmstream.DeltaRefusal:
		if p.inReasoning {
			p.endLine()
		}
		fmt.Fprint(p.w, printable(d.Text))
	case llmstream.DeltaReasoning:
		if !p.inReasoning {
			p.endLine()
			fmt.Fprint(p.w, p.style(styleDim, "thinking: "))
			p.inReasoning = true
		}
		fmt.Fprint(p.w, p.style(styleDim, printable(d.Text)))
	default:
		return
	}
	if d.Text != "" {
		p.midLine = !strings.HasSuffix(d.Text, "\n")
	}
}

// toolDone prints one line for a call: name, short arguments, and the
// result size or the error.
func (p *printer) toolDone(d agentloop.ToolDone) {
	p.endLine()
	args := printable(shortArgs(d.Call.Function.Arguments))
	head := "  • " + p.style(styleBold, printable(d.Call.Function.Name)) + " " + args
	if d.Err != nil {
		msg := printable(strings.TrimPrefix(d.Content, "error: "))
		fmt.Fprintf(p.w, "%s %s %s\n", head, p.style(styleRed, "✗"), p.style(styleRed, clip(msg, 160)))
		return
	}
	size := byteSize(d.OutputBytes)
	if d.CutBytes > 0 {
		size += fmt.Sprintf(", %s cut", byteSize(d.CutBytes))
	}
	fmt.Fprintf(p.w, "%s %s %s\n", head, p.style(styleGreen, "→"), p.style(styleDim, size+", "+roundDuration(d.Duration).String()))
}

// modelDone ends the streamed line of a turn.
func (p *printer) modelDone(agentloop.ModelDone) { p.endLine() }

// summary prints the closing line.
func (p *printer) summary(res agentloop.Result, elapsed time.Duration, err error) {
	p.endLine()
	tokens := fmt.Sprintf("%d tokens (%d in, %d out)", res.Usage.TotalTokens, res.Usage.PromptTokens, res.Usage.CompletionTokens)
	line := fmt.Sprintf("%s, %s, %s, %s", plural(res.Turns, "turn"), plural(res.ToolCalls, "tool call"), tokens, roundDuration(elapsed))
	fmt.Fprintln(p.w)
	if err != nil {
		fmt.Fprintln(p.w, p.style(styleRed, "stopped: ")+line)
		return
	}
	fmt.Fprintln(p.w, p.style(styleGreen, "done: ")+line)
}

// printable drops control characters other than newline and tab from
// text the model or a tool chose, so a response cannot move the cursor,
// retitle the window or write the clipboard through escape sequences.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}

// shortArgs compacts a call's JSON arguments and cuts them for one line.
func shortArgs(args string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err != nil {
		return clip(args, maxShownArgs)
	}
	return clip(b.String(), maxShownArgs)
}

func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	if d < time.Second {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Millisecond)
}
