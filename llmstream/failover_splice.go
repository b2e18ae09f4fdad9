package llmstream

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// identity is what a Failover knows of a model: its dialect, when the
// Streamer says, the model name a request to it names, and whether the
// request (with the client's defaults) asks for thinking.
type identity struct {
	dialect  Dialect
	known    bool
	name     string
	thinking bool
}

// dialectSayer is a Streamer that says its dialect, as *Client does: a
// wrapper of a Client may pass its Dialect on.
type dialectSayer interface{ Dialect() Dialect }

// identify is what r sent to s would be. It reads a client's defaults in
// place, without the copy withDefaults makes, since it runs on every
// attempt.
func identify(s Streamer, r *Request) identity {
	id := identity{name: r.Model, thinking: thinkingAsked(r, nil)}
	switch c := s.(type) {
	case *Client:
		if c.cfg == nil || c.err != nil {
			return id // every call fails; nothing to continue
		}
		id.dialect, id.known = c.Dialect(), true
		d := c.cfg.defaults
		if id.name == "" && d != nil {
			id.name = d.Model
		}
		if id.name == "" {
			id.name = c.Model()
		}
		id.thinking = thinkingAsked(r, d)
	case dialectSayer:
		id.dialect, id.known = c.Dialect(), true
	}
	return id
}

// thinkingAsked reports whether r, its unset fields taken from the
// defaults d (nil for none), asks for extended thinking, with which
// Anthropic refuses a prefill: a thinking budget, an effort other than
// "none", or a thinking setting of the provider's own in Extra.
func thinkingAsked(r, d *Request) bool {
	if d == nil {
		d = &Request{}
	}
	budget, effort := r.ThinkingBudget, r.ReasoningEffort
	if budget == nil {
		budget = d.ThinkingBudget
	}
	if effort == "" {
		effort = d.ReasoningEffort
	}
	if budget != nil && *budget > 0 || effort != "" && effort != "none" {
		return true
	}
	for _, extra := range []map[string]any{r.Extra, d.Extra} {
		_, thinking := extra["thinking"]
		_, fields := extra["additionalModelRequestFields"]
		if thinking || fields {
			return true
		}
	}
	return false
}

// continuable reports whether the attempt after the failed one, on model
// i of identity id, may continue the text shown: text and nothing else
// was shown (the callback saw the raw bytes of text the failed attempt
// returned), and the model's dialect continues an assistant turn without
// thinking.
func (run *failoverRun) continuable(partial *Message, raw int, id identity, i int) bool {
	if !id.known || id.thinking || run.refused(i) || trimSpaceEnd(partial.Content) == "" {
		return false
	}
	if partial.Reasoning != "" || partial.Refusal != "" || len(partial.ToolCalls) > 0 {
		return false
	}
	if run.onDelta != nil && (run.other || run.textBytes != raw) {
		return false
	}
	switch id.dialect {
	case DialectAnthropic:
		return true
	case DialectBedrock:
		// Converse continues a final assistant message for Anthropic's
		// models; others are restarted.
		name := strings.ToLower(id.name)
		return strings.Contains(name, "anthropic") || strings.Contains(name, "claude")
	}
	return false
}

// prefilled is msgs with the assistant's text so far at the end, for the
// model to continue.
func prefilled(msgs []Message, text string) []Message {
	out := make([]Message, len(msgs), len(msgs)+1)
	copy(out, msgs)
	return append(out, Message{Role: "assistant", Content: text})
}

// trimSpaceEnd is s without its trailing whitespace: Anthropic refuses a
// prefill that ends in whitespace.
func trimSpaceEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// repeated is how many bytes at the start of text repeat skip rune for
// rune: the whitespace the text shown already ends with.
func repeated(skip, text string) int {
	n := 0
	for skip != "" && n < len(text) {
		r1, n1 := utf8.DecodeRuneInString(text[n:])
		r2, n2 := utf8.DecodeRuneInString(skip)
		if r1 != r2 || n1 != n2 {
			break
		}
		n += n1
		skip = skip[n2:]
	}
	return n
}

// skipRepeated drops from a continuation's text delta what repeats the
// whitespace still to be matched; the first byte that does not ends the
// matching, as repeated does for the whole text. A delta that ends inside
// a rune that may repeat the skipped one (a Streamer may cut a rune
// between deltas) is held back until the next delta says.
func (run *failoverRun) skipRepeated(t string) string {
	if run.held != "" {
		t, run.held = run.held+t, ""
	}
	n := repeated(run.skip, t)
	run.skip = run.skip[n:]
	if rest := t[n:]; rest != "" && !utf8.FullRuneInString(rest) && strings.HasPrefix(run.skip, rest) {
		run.held = rest
		return ""
	}
	if run.skip == "" || n < len(t) {
		run.skip, run.skipping = "", false
	}
	return t[n:]
}

// flushHeld shows the bytes skipRepeated held back when no delta will
// complete them: at the attempt's end (a restart after it voids them with
// the rest). A delta of another kind does not: the Message's text joins
// the text deltas around it.
func (run *failoverRun) flushHeld() error {
	if run.held == "" || run.onDelta == nil {
		run.held = ""
		return nil
	}
	t := run.held
	run.held, run.skip, run.skipping, run.shown = "", "", false, true
	return run.onDelta(Delta{Kind: DeltaText, Text: t})
}

// spliced is a continuation's text on the text shown before it.
func (run *failoverRun) spliced(text string) string {
	skip := run.prefix[len(trimSpaceEnd(run.prefix)):]
	return run.prefix + text[repeated(skip, text):]
}

// answer is the call's message from the answering attempt's msg: spliced
// onto the text before it when it continued, with the usage of every
// attempt.
func (run *failoverRun) answer(msg Message, continued bool) Message {
	if continued {
		skip := run.prefix[len(trimSpaceEnd(run.prefix)):]
		k := repeated(skip, msg.Content)
		msg.Content = run.prefix + msg.Content[k:]
		if c := msg.Continuity; c != nil {
			msg.Continuity = splicedContinuity(c, len(run.prefix), k)
		}
	}
	msg.Usage = run.usage
	return msg
}

// splicedContinuity is c, the continuation's state, with the text before
// it as a text block of its own and the k bytes the splice dropped taken
// from its first text block.
func splicedContinuity(c *Continuity, prefix, k int) *Continuity {
	out := *c
	out.Blocks = slices.Insert(slices.Clone(c.Blocks), 0, Block{Type: BlockText, Bytes: prefix})
	for i := 1; i < len(out.Blocks) && k > 0; i++ {
		if b := &out.Blocks[i]; b.Type == BlockText {
			b.Bytes -= k
			break
		}
	}
	return &out
}
