package agentcli

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
)

// formingCall is one tool call of the current turn as its fragments
// arrive. Until the turn ends it is an intention, never a call that may
// run: what the printer shows of it is a preview.
type formingCall struct {
	index int
	// name is the call's name so far (a string of its own, safe to read
	// from the clock's goroutine).
	name string
	// fragments counts the fragments that formed it.
	fragments int
	// preview is the latest view of the call. Its Partial is the
	// assembler's memory: read only on the loop's goroutine, during the
	// turn.
	preview toolcall.Preview
	// shown is set once the call's line is in the transcript.
	shown bool
	// line is its live line as last drawn, for redraws from the clock;
	// stale is set when preview changed since.
	line  string
	stale bool
}

// formCall follows a tool call as it forms. Once its arguments are final
// JSON its line goes into the transcript; until then, on a terminal, the
// live region shows its preview.
func (p *printer) formCall(d llmstream.Delta) {
	p.endTurnText()
	c, added := p.call(d.Call.Index)
	c.name = d.Call.Name
	c.preview = d.Call
	c.fragments++
	c.stale = true
	if !c.shown && formed(d.Call) {
		c.shown = true
		p.println(p.formedLine(c.name, string(d.Call.Partial), c.fragments))
		return
	}
	// A new call redraws at once; progress of one already shown may wait.
	p.drawLive(added)
}

// endTurnText ends the streamed text that came before a tool call.
func (p *printer) endTurnText() {
	if p.midLine || p.streaming {
		p.clearLive()
		p.endText()
	}
}

// call returns the turn's call with index i, adding it in index order
// when it is new, and whether it was.
func (p *printer) call(i int) (c *formingCall, added bool) {
	pos, found := slices.BinarySearchFunc(p.calls, i, func(c *formingCall, i int) int { return c.index - i })
	if !found {
		p.calls = slices.Insert(p.calls, pos, &formingCall{index: i})
	}
	return p.calls[pos], !found
}

// formed reports whether a preview's arguments are final: complete JSON
// that cannot grow into another value. A bare number could ("1" may become
// "12"), so a call whose arguments are one waits for the turn's end.
func formed(pv toolcall.Preview) bool {
	if !pv.Complete {
		return false
	}
	trimmed := bytes.TrimRight(pv.Partial, " \t\r\n")
	if len(trimmed) == 0 {
		return false
	}
	last := trimmed[len(trimmed)-1]
	return last < '0' || last > '9'
}

// endTurnCalls gives each call of the turn not yet in the transcript its
// line, and forgets the turn's calls (their previews are the assembler's
// memory, not to be read after the turn). After a successful turn a line
// shows the validated call of the message, which holds the calls in index
// order as p.calls does; a call that reached the message without
// streaming gets its line too. After a failed turn a line shows how far
// the call got, marked as never run.
func (p *printer) endTurnCalls(d agentloop.ModelDone) {
	if d.Err != nil {
		for _, c := range p.calls {
			if !c.shown {
				fmt.Fprintln(p.w, p.cutLine(c))
			}
		}
		p.calls = nil
		return
	}
	for k, tc := range d.Message.ToolCalls {
		fragments := 0
		if k < len(p.calls) {
			if p.calls[k].shown {
				continue
			}
			fragments = p.calls[k].fragments
		}
		fmt.Fprintln(p.w, p.formedLine(tc.Function.Name, tc.Function.Arguments, fragments))
	}
	p.calls = nil
}

// formedLine is the transcript line of a call that has formed.
func (p *printer) formedLine(name, args string, fragments int) string {
	line := "  ◦ " + p.style(styleBold, oneLine(name)) + " " + oneLine(shortArgs(args))
	if fragments > 0 {
		line += " " + p.style(styleDim, "formed from "+plural(fragments, "fragment"))
	}
	return line
}

// cutLine is the transcript line of a call its turn cut off.
func (p *printer) cutLine(c *formingCall) string {
	line := "  ◦ " + p.style(styleBold, oneLine(c.name))
	if args := previewArgs(c.preview); args != "" {
		line += " " + args
	}
	return line + " " + p.style(styleRed, "✗ never completed, not run")
}

// previewArgs is what a line shows of a call's arguments so far: their
// best-effort JSON completion, compacted and cut; or, when they have none
// (they cannot become JSON any more), the raw bytes, made printable.
func previewArgs(pv toolcall.Preview) string {
	if closed := pv.Closed(); closed != "" {
		return oneLine(shortArgs(closed))
	}
	return oneLine(clip(string(pv.Partial), maxShownArgs))
}
