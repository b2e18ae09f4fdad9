package agentcli

import (
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
)

// The printer's side of approvals: the question, the answers, the decision.
// While a question waits the live region stays off the screen, so that the
// clock does not redraw over what the person types.

// setPrompting takes the live region away while a question waits, and
// brings it back after.
func (p *printer) setPrompting(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.clearLive()
		p.endText()
	}
	p.prompting = on
	if !on {
		p.drawLive(true)
	}
}

// question is the line that asks about a call.
func (p *printer) question(c agentloop.Call) string {
	return fmt.Sprintf("  %s %s %s needs your approval. Run it? [y/n/why] ",
		p.style(styleCyan, "?"), p.style(styleBold, oneLine(c.Name)), oneLine(shortArgs(c.Arguments)))
}

// prompt writes a question, leaving the line open for the answer.
func (p *printer) prompt(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, text)
	p.promptOpen = true
}

// endPrompt ends the question's line. A terminal echoes the Enter that
// ends an answer; otherwise (the input is not echoed, or Ctrl-C came
// instead of an answer) the line is ended here.
func (p *printer) endPrompt(echoed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.promptOpen && !echoed {
		fmt.Fprintln(p.w)
	}
	p.promptOpen = false
}

// promptNote writes a line under a question: the arguments in full, help.
func (p *printer) promptNote(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, text)
}

// approvalDone reports a decision on a call (Hooks.AfterApproval).
func (p *printer) approvalDone(d agentloop.ApprovalDone) {
	p.mu.Lock()
	defer p.mu.Unlock()
	call := p.style(styleBold, oneLine(d.Call.Name)) + " " + oneLine(shortArgs(d.Call.Arguments))
	var line string
	switch {
	case d.Err != nil:
		line = "  " + p.style(styleRed, "✗ approval failed for ") + call + ": " + printable(d.Err.Error())
	case d.Decision.Verdict == agentloop.Allow:
		line = "  " + p.style(styleGreen, "✓ allowed ") + call
	case d.Decision.Verdict == agentloop.Deny:
		line = "  " + p.style(styleRed, "✗ denied ") + call + ": " + oneLine(d.Decision.Reason)
	case d.Decision.Verdict == agentloop.Pause:
		line = "  " + p.style(styleCyan, "‖ paused ") + call + ": it waits for a decision"
	}
	p.println(line)
}
