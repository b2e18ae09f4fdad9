package agentcli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// The terminal controls the live region uses, and nothing else: carriage
// return, cursor up, erase to the end of the line and of the screen.
const (
	eraseLine = "\x1b[K"
	eraseDown = "\x1b[J"
)

const (
	// liveRedrawInterval is the least time between two redraws for
	// argument progress alone, so a fast stream does not spend its time
	// repainting (a call's line going into the transcript redraws at once).
	liveRedrawInterval = 40 * time.Millisecond
	// clockInterval is how often the status line's elapsed time moves when
	// nothing else happens (the wait for a first token, a slow tool).
	clockInterval = 200 * time.Millisecond
)

// liveRegion is the bottom of a terminal that the printer redraws in
// place, under the transcript: a line per tool call still forming, then a
// status line. Its lines are cut to the terminal's width so that none
// wraps, which keeps "up one line" exact.
type liveRegion struct {
	columns func() int
	every   time.Duration
	// on is set between the run's begin and its summary.
	on bool
	// lines is how many lines are on the screen now; the cursor is at the
	// end of the last.
	lines int
	// last is when it was last drawn.
	last time.Time
}

// toTop returns the controls that take the cursor from the end of the
// region to the start of its first line.
func (r *liveRegion) toTop() string {
	if r.lines <= 1 {
		// Never "\x1b[0A": many terminals take 0 for 1.
		return "\r"
	}
	return fmt.Sprintf("\r\x1b[%dA", r.lines-1)
}

// clearLive takes the live region off the screen, leaving the cursor where
// it began, so that the transcript goes on from there.
func (p *printer) clearLive() {
	r := p.live
	if r == nil || r.lines == 0 {
		return
	}
	io.WriteString(p.w, r.toTop()+eraseDown)
	r.lines = 0
}

// drawLive redraws the live region, unless text is streaming (or left its
// line open), which the region must not cut into. Without force it skips
// a redraw that comes sooner than the region's interval after the last.
func (p *printer) drawLive(force bool) {
	p.redrawLive(force, true)
}

// redrawLive draws the region; with render unset (from the clock's
// goroutine) it reuses each call's last line, since only the loop's
// goroutine may read a preview's arguments.
func (p *printer) redrawLive(force, render bool) {
	r := p.live
	if r == nil || !r.on || p.midLine || p.streaming || p.prompting {
		return
	}
	now := p.now()
	if !force && now.Sub(r.last) < r.every {
		return
	}
	r.last = now
	// One column spare: writing into the last one leaves some terminals
	// about to wrap.
	width := max(r.columns()-1, 20)
	var b strings.Builder
	if r.lines > 0 {
		b.WriteString(r.toTop())
	}
	lines := 0
	for _, c := range p.calls {
		if c.shown {
			continue
		}
		if render && c.stale {
			c.line = clipColumns(strings.TrimRight("  ◦ "+oneLine(c.name)+" "+previewArgs(c.preview), " ")+" …", width)
			c.stale = false
		}
		line := c.line
		if line == "" {
			line = clipColumns("  ◦ "+oneLine(c.name)+" …", width)
		}
		b.WriteString(p.style(styleDim, line) + eraseLine + "\n")
		lines++
	}
	b.WriteString(p.style(styleDim, clipColumns(p.status(now), width)) + eraseLine + eraseDown)
	r.lines = lines + 1
	io.WriteString(p.w, b.String())
}

// status is the status line: elapsed time, turn, what is going on, and
// the tokens of the finished turns.
func (p *printer) status(now time.Time) string {
	parts := []string{fmt.Sprintf("%.1fs", now.Sub(p.start).Seconds())}
	if p.turn > 0 {
		parts = append(parts, fmt.Sprintf("turn %d", p.turn))
	}
	switch {
	case p.activity != "":
		parts = append(parts, p.activity)
	case p.inModel && p.received == 0:
		parts = append(parts, "waiting for the model")
	case p.inModel:
		parts = append(parts, "receiving, "+byteSize(p.received))
	}
	if p.counted {
		// Usage arrives with a turn's end, so this is what the finished
		// turns cost; the turn in progress is not in it yet.
		parts = append(parts, plural(p.tokens, "token")+" so far")
	}
	return "  " + strings.Join(parts, " · ")
}

// startClock moves the status line's elapsed time every interval while
// nothing else redraws it. It returns the function that stops the clock
// and waits for its goroutine to end. Off a terminal it does nothing.
func (p *printer) startClock(interval time.Duration) (stop func()) {
	if p.live == nil {
		return func() {}
	}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// tick redraws the region if it is on the screen.
func (p *printer) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live.lines > 0 {
		p.redrawLive(true, false)
	}
}

// clipColumns cuts s to at most n terminal columns, ending it with "…"
// when cut. It counts a rune from U+1100 on, and the ellipsis, as two
// columns: too many for some, never too few, so a cut line never wraps.
func clipColumns(s string, n int) string {
	used, fit := 0, 0 // fit: the bytes of s that leave room for "…"
	for i, r := range s {
		w := 1
		if r >= 0x1100 {
			w = 2
		}
		if used+w > n {
			return s[:fit] + "…"
		}
		used += w
		if used <= n-2 {
			fit = i + utf8.RuneLen(r)
		}
	}
	return s
}
