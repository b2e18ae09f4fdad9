package agentcli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/airlock-go/airlock/agentloop"
)

// Reasons the model is told when a call is denied without a person's own.
const (
	reasonNo          = "the user said no"
	reasonEOF         = "no answer: the input ended"
	reasonUnattended  = "no one was there to ask (stdin is not a terminal); the user can approve with --yes"
	maxAnswerBytes    = 4 << 10 // longest answer line kept
	maxPromptAttempts = 8       // unknown answers in a row before a call is denied
)

// asker puts each call that needs approval to the person at the terminal:
// y allows it, n denies it (asking for a reason, which the model is told),
// why shows its arguments in full and asks again. Ctrl-C at the prompt
// pauses the run (see interrupt). Off a terminal it denies every call
// unless yes is set; with yes it allows every call without asking.
//
// approve runs on the loop's goroutine; interrupt on the one that watches
// for Ctrl-C. mu guards prompting and interrupted.
type asker struct {
	out         *printer
	in          io.Reader
	interactive bool
	yes         bool

	lines    chan answer   // lines read from in; started by the first prompt
	done     chan struct{} // closed by stop: the reader goroutine may end
	inputErr error         // how the input ended, once it did

	mu          sync.Mutex
	prompting   bool
	interrupted bool
	wake        chan struct{} // closed by interrupt
}

// answer is one line read from the input, or the error that ended it.
type answer struct {
	line string
	err  error
}

func newAsker(out *printer, in io.Reader, interactive, yes bool) *asker {
	return &asker{out: out, in: in, interactive: interactive && in != nil, yes: yes, done: make(chan struct{}), wake: make(chan struct{})}
}

// stop lets the reader goroutine end; it ends once its pending read
// returns (on a terminal, with the process).
func (a *asker) stop() { close(a.done) }

// interrupt is Ctrl-C: when a prompt is waiting it pauses the run and
// reports true; otherwise it reports false and the caller cancels the run.
// Once it paused, every later call is paused too without asking.
func (a *asker) interrupt() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.prompting {
		return false
	}
	if !a.interrupted {
		a.interrupted = true
		close(a.wake)
	}
	return true
}

// paused reports whether Ctrl-C paused the run at a prompt.
func (a *asker) paused() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.interrupted
}

// approve is the Loop's Approve function.
func (a *asker) approve(ctx context.Context, c agentloop.Call) (agentloop.Decision, error) {
	switch {
	case a.paused():
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	case a.yes:
		return agentloop.Decision{Verdict: agentloop.Allow}, nil
	case !a.interactive:
		return agentloop.Decision{Verdict: agentloop.Deny, Reason: reasonUnattended}, nil
	}
	a.setPrompting(true)
	defer a.setPrompting(false)
	question := a.out.question(c)
	for range maxPromptAttempts {
		a.out.prompt(question)
		line, ok, err := a.readLine(ctx)
		switch {
		case !ok:
			return agentloop.Decision{Verdict: agentloop.Pause}, nil
		case err != nil:
			a.out.promptNote("end of input: denied")
			return agentloop.Decision{Verdict: agentloop.Deny, Reason: reasonEOF}, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return agentloop.Decision{Verdict: agentloop.Allow}, nil
		case "n", "no":
			a.out.prompt("  reason the model is told (Enter for none): ")
			reason, ok, err := a.readLine(ctx)
			if !ok {
				return agentloop.Decision{Verdict: agentloop.Pause}, nil
			}
			reason = strings.TrimSpace(oneLine(reason))
			if err != nil || reason == "" {
				reason = reasonNo
			}
			return agentloop.Decision{Verdict: agentloop.Deny, Reason: reason}, nil
		case "w", "why", "?":
			a.out.promptNote(prettyArgs(c.Arguments))
		default:
			a.out.promptNote("answer y (run it), n (refuse it) or why (show the arguments in full)")
		}
	}
	return agentloop.Decision{Verdict: agentloop.Deny, Reason: reasonNo}, nil
}

func (a *asker) setPrompting(on bool) {
	a.mu.Lock()
	a.prompting = on
	a.mu.Unlock()
	a.out.setPrompting(on)
}

// readLine waits for the next line of input. ok is false when Ctrl-C came
// first (or the run ended); err is set, with what came before it, when the
// input ended.
func (a *asker) readLine(ctx context.Context) (line string, ok bool, err error) {
	if a.inputErr != nil {
		a.out.endPrompt(false)
		return "", true, a.inputErr
	}
	if a.lines == nil {
		a.lines = make(chan answer)
		go a.read()
	}
	select {
	case ans := <-a.lines:
		a.out.endPrompt(a.out.live != nil && ans.err == nil)
		a.inputErr = ans.err
		return ans.line, true, ans.err
	case <-a.wake:
		a.out.endPrompt(false)
		return "", false, nil
	case <-ctx.Done():
		a.out.endPrompt(false)
		return "", false, nil
	}
}

// read sends the input's lines, each cut to maxAnswerBytes, until it ends.
func (a *asker) read() {
	r := bufio.NewReader(a.in)
	for {
		line, err := readCapped(r, maxAnswerBytes)
		select {
		case a.lines <- answer{line, err}:
		case <-a.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// readCapped reads one line, keeping at most max bytes of it.
func readCapped(r *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(b) < max {
			b = append(b, chunk[:min(len(chunk), max-len(b))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil || len(b) > 0 && err == io.EOF {
			return strings.TrimRight(string(b), "\r\n"), nil
		}
		return string(b), err
	}
}

// prettyArgs is a call's arguments in full, indented, made printable.
func prettyArgs(args string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(args), "    ", "  "); err != nil {
		return "    " + printable(args)
	}
	return "    " + printable(b.String())
}
