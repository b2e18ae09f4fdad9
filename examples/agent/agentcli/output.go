package agentcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/internal/redact"
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

// printer writes the run for a person. Its transcript is the same on a
// terminal and off one: streamed text as it arrives, a line for each tool
// call once it has formed (◦), a line for each call that ran (•), and a
// closing line. On a terminal (live set) it also keeps a live region under
// the transcript, redrawn in place: a line per tool call still forming and
// a status line (see live.go).
//
// The loop's hooks call it on the loop's goroutine, the clock that moves
// the status line on another, so every method that writes holds mu.
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
	live  *liveRegion // nil when w is not a terminal
	now   func() time.Time

	// midLine is set while streamed text has not ended its line.
	midLine bool
	// streaming is set while the model's text or reasoning streams; the
	// live region stays off the screen then, so it never cuts into it.
	streaming bool
	// inReasoning is set while reasoning text is streaming.
	inReasoning bool
	// calls are the current turn's tool calls, in index order.
	calls []*formingCall

	// parallel is Loop.ParallelTools; turnCalls the calls of the last
	// turn; running the calls running now.
	parallel, turnCalls, running int
	// prompting is set while a question waits for its answer, promptOpen
	// while its line waits for the person's Enter.
	prompting, promptOpen bool
	// inBatch is set once the turn's calls were announced as running at
	// once, batchTurn is that turn.
	inBatch   bool
	batchTurn int

	// What the status line tells.
	start    time.Time
	turn     int
	inModel  bool   // between a model call's start and its end
	received int    // bytes of text and arguments in this model call
	activity string // what runs now, when not the model: "running search"
	tokens   int    // tokens of the finished turns that reported usage
	counted  bool   // some finished turn reported usage
}

// newPrinter returns a printer for w that draws in place and in colour
// when w is a terminal that allows it.
func newPrinter(w io.Writer, getenv func(string) string) *printer {
	live, color, columns := terminal(w, getenv)
	p := &printer{w: w, color: color, now: time.Now}
	if live {
		p.live = &liveRegion{columns: columns, every: liveRedrawInterval}
	}
	return p
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

// endText ends streamed text: its line, and the pause of the live region.
func (p *printer) endText() {
	p.endLine()
	p.streaming = false
}

// println adds one whole line to the transcript, above the live region.
func (p *printer) println(line string) {
	p.clearLive()
	p.endText()
	fmt.Fprintln(p.w, line)
	p.drawLive(true)
}

// stream adds streamed text to the transcript.
func (p *printer) stream(text string) {
	p.clearLive()
	p.streaming = true
	fmt.Fprint(p.w, text)
}

func (p *printer) offlineBanner(d llmstream.Dialect, workspace, command string, getenv func(string) string) {
	fmt.Fprintln(p.w, p.style(styleBold, "airlock demo agent — OFFLINE, scripted model, "+d.String()+" wire"))
	fmt.Fprintln(p.w, p.style(styleDim, "No network: a built-in scripted model is served over loopback HTTP and streamed through"))
	fmt.Fprintln(p.w, p.style(styleDim, "the whole stack (transport, sse, bridge, tool-call assembler, agent loop). Workspace: "+workspace))
	if hints := keyHints(command, getenv); len(hints) > 0 {
		for _, h := range hints {
			fmt.Fprintln(p.w, p.style(styleDim, h))
		}
	} else {
		fmt.Fprintln(p.w, p.style(styleDim, "To use a real model: "+command+" --base-url https://api.openai.com/v1 --model gpt-4o-mini"))
		fmt.Fprintln(p.w, p.style(styleDim, "with the key in AIRLOCK_API_KEY or OPENAI_API_KEY (any OpenAI-compatible server works: vLLM, Ollama, ...);"))
		fmt.Fprintln(p.w, p.style(styleDim, "--dialect anthropic, responses, gemini or bedrock speaks those APIs (ANTHROPIC_API_KEY, GEMINI_API_KEY,"))
		fmt.Fprintln(p.w, p.style(styleDim, "AWS_BEARER_TOKEN_BEDROCK), --vertex PROJECT/LOCATION Gemini or Claude on Vertex AI."))
	}
	fmt.Fprintln(p.w)
}

// keyHints says, for each provider key set in the environment, the command
// that uses it: the key alone does not leave the offline demo, so that a
// shell that exports one still gets the demo by default. It names the
// variable, never its value.
func keyHints(command string, getenv func(string) string) []string {
	var hints []string
	for _, k := range []struct{ names, flags string }{
		{"OPENAI_API_KEY", "--model " + defaultModel},
		{"ANTHROPIC_API_KEY", "--dialect anthropic --model " + defaultAnthropicModel},
		{"GEMINI_API_KEY GOOGLE_API_KEY", "--dialect gemini --model " + defaultGeminiModel},
		{"AWS_BEARER_TOKEN_BEDROCK", "--dialect bedrock --model " + defaultBedrockModel},
	} {
		for _, name := range strings.Fields(k.names) {
			if strings.TrimSpace(getenv(name)) != "" {
				hints = append(hints, name+" is set; to use it: "+command+" "+k.flags)
				break
			}
		}
	}
	return hints
}

// realBanner names the server and model; it says only whether a key is
// set, never the key, and hides a password or query values in the URL.
func (p *printer) realBanner(d llmstream.Dialect, baseURL, model, workspace string, haveKey bool) {
	key := "no API key"
	if haveKey {
		key = "API key set"
	}
	fmt.Fprintln(p.w, p.style(styleBold, "airlock demo agent — "+printable(model)+" at "+printable(redact.URL(baseURL))))
	fmt.Fprintln(p.w, p.style(styleDim, d.String()+" dialect; "+key+"; workspace: "+printable(workspace)))
	fmt.Fprintln(p.w)
}

// resuming says which saved run goes on, and what it was asked.
func (p *printer) resuming(path string, st agentloop.State) {
	task := ""
	for _, m := range st.Messages {
		if m.Role == "user" {
			task = m.Content
		}
	}
	fmt.Fprintln(p.w, p.style(styleCyan, "resuming: ")+printable(path)+p.style(styleDim, fmt.Sprintf(" (%s so far, %s waiting)", plural(st.Turns, "turn"), plural(len(st.Pending), "call"))))
	fmt.Fprintln(p.w, p.style(styleCyan, "task: ")+printable(task))
	fmt.Fprintln(p.w)
}

func (p *printer) task(prompt string) {
	fmt.Fprintln(p.w, p.style(styleCyan, "task: ")+printable(prompt))
	fmt.Fprintln(p.w)
}

// begin starts the run's clock and, on a terminal, the live region.
func (p *printer) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start = p.now()
	if p.live != nil {
		p.live.on = true
		p.drawLive(true)
	}
}

// modelStart shows that the model was asked.
func (p *printer) modelStart(d agentloop.ModelStart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turn, p.inModel, p.received, p.activity = d.Turn, true, 0, ""
	p.drawLive(true)
}

// delta prints text and reasoning as they stream, and follows the tool
// calls forming (see formCall).
func (p *printer) delta(d llmstream.Delta) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.received += len(d.Text)
	switch d.Kind {
	case llmstream.DeltaText, llmstream.DeltaRefusal:
		text := printable(d.Text)
		if text == "" {
			return
		}
		if p.inReasoning {
			p.clearLive()
			p.endLine()
		}
		p.stream(text)
		p.midLine = !strings.HasSuffix(text, "\n")
	case llmstream.DeltaReasoning:
		text := printable(d.Text)
		if text == "" {
			return
		}
		if !p.inReasoning {
			p.clearLive()
			p.endLine()
			p.stream(p.style(styleDim, "thinking: "))
			p.inReasoning = true
		}
		p.stream(p.style(styleDim, text))
		p.midLine = !strings.HasSuffix(text, "\n")
	case llmstream.DeltaToolCall:
		p.formCall(d)
	case llmstream.DeltaRestart, llmstream.DeltaResume:
		p.seam(d.Kind)
	}
}

// seam marks where a stream broke: a resumed one goes on in place; a
// restarted one's text so far is void, so it is struck through on a line
// of its own, and the answer starts again below.
func (p *printer) seam(k llmstream.DeltaKind) {
	p.clearLive()
	if k == llmstream.DeltaResume {
		p.stream(p.style(styleDim, "⟨stream cut — continued on the fallback⟩"))
		return
	}
	p.endLine()
	p.inReasoning = false
	fmt.Fprintln(p.w, p.style(styleDim, "⟨stream cut — what is above is void; starting over on the fallback⟩"))
}

// modelDone ends the turn's streamed text and gives every call not yet in
// the transcript its line: the validated call when the turn succeeded, the
// cut-off preview when it failed.
func (p *printer) modelDone(d agentloop.ModelDone) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLive()
	p.endText()
	p.endTurnCalls(d)
	p.inModel = false
	p.turnCalls = len(d.Message.ToolCalls)
	if d.Err == nil && d.Message.Usage != nil {
		p.tokens += d.Message.Usage.TotalTokens
		p.counted = true
	}
	p.drawLive(true)
}

// toolStart shows which tool runs, and when a turn's calls run at once,
// says so as the first of them starts.
func (p *printer) toolStart(d agentloop.ToolStart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.parallel > 1 && d.Batch > 1 && (!p.inBatch || p.batchTurn != d.Turn) {
		p.inBatch, p.batchTurn = true, d.Turn
		p.println("  " + p.style(styleCyan, "⇉") + " " + p.style(styleDim, fmt.Sprintf("%d calls run at once (up to %d); each line below as one ends, the answers go back in call order", d.Batch, p.parallel)))
	}
	p.running = max(d.Running, 1)
	p.showActivity(oneLine(d.Call.Function.Name))
	p.drawLive(true)
}

// showActivity sets what the status line says runs.
func (p *printer) showActivity(name string) {
	switch p.running {
	case 0:
		p.activity = ""
	case 1:
		p.activity = "running " + name
	default:
		p.activity = fmt.Sprintf("running %d tools at once", p.running)
	}
}

// toolDone prints one line for a call that ran: name, short arguments, and
// the result size or the error.
func (p *printer) toolDone(d agentloop.ToolDone) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = max(p.running-1, 0)
	p.showActivity("a tool")
	args := oneLine(shortArgs(d.Call.Function.Arguments))
	head := "  • " + p.style(styleBold, oneLine(d.Call.Function.Name)) + " " + args
	if p.inBatch && p.batchTurn == d.Turn {
		// Calls of a parallel batch end in any order: number them.
		head = fmt.Sprintf("  • %s %s %s", p.style(styleDim, fmt.Sprintf("[%d/%d]", d.Index+1, p.turnCalls)), p.style(styleBold, oneLine(d.Call.Function.Name)), args)
	}
	if d.Err != nil {
		msg := printable(strings.TrimPrefix(d.Content, "error: "))
		p.println(fmt.Sprintf("%s %s %s", head, p.style(styleRed, "✗"), p.style(styleRed, clip(msg, 160))))
		return
	}
	size := byteSize(d.OutputBytes)
	if d.CutBytes > 0 {
		size += fmt.Sprintf(", %s cut", byteSize(d.CutBytes))
	}
	p.println(fmt.Sprintf("%s %s %s", head, p.style(styleGreen, "→"), p.style(styleDim, size+", "+roundDuration(d.Duration).String())))
}

// summary takes the live region away and prints the closing line.
func (p *printer) summary(res agentloop.Result, elapsed time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLive()
	if p.live != nil {
		p.live.on = false
	}
	p.endText()
	tokens := fmt.Sprintf("%d tokens (%d in, %d out)", res.Usage.TotalTokens, res.Usage.PromptTokens, res.Usage.CompletionTokens)
	line := fmt.Sprintf("%s, %s, %s, %s", plural(res.Turns, "turn"), plural(res.ToolCalls, "tool call"), tokens, roundDuration(elapsed))
	fmt.Fprintln(p.w)
	if errors.Is(err, agentloop.ErrPaused) {
		fmt.Fprintln(p.w, p.style(styleCyan, "paused: ")+line)
		return
	}
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

// oneLine is printable for text that must stay on one line, such as a
// line the live region redraws: newlines and tabs become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
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
