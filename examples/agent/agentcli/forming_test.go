package agentcli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// testPrinter returns a printer writing to b with a clock that stands
// still until the test moves it; on a terminal of the given width when
// columns > 0. It never throttles redraws.
func testPrinter(b *bytes.Buffer, columns int, color bool) (*printer, *time.Time) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &printer{w: b, color: color, now: func() time.Time { return now }}
	if columns > 0 {
		p.live = &liveRegion{columns: func() int { return columns }}
	}
	return p, &now
}

// feed hands a printer the deltas a bridge would, through a real
// assembler, so that previews behave as in a run.
type feed struct {
	t   *testing.T
	p   *printer
	asm *toolcall.Assembler
}

func newFeed(t *testing.T, p *printer) *feed {
	return &feed{t: t, p: p, asm: toolcall.NewAssembler()}
}

func (f *feed) call(index int, name, args string) {
	f.t.Helper()
	if err := f.asm.Add(toolcall.Fragment{Index: index, Name: name, Arguments: args}); err != nil {
		f.t.Fatal(err)
	}
	pv, ok := f.asm.Preview(index)
	if !ok {
		f.t.Fatalf("no preview of call %d", index)
	}
	f.p.delta(llmstream.Delta{Kind: llmstream.DeltaToolCall, Text: args, Call: pv})
}

func (f *feed) text(s string) { f.p.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: s}) }

// end ends the turn as the loop would: with the finalized calls, or with
// err.
func (f *feed) end(turn int, usage *llmstream.Usage, err error) []llmstream.ToolCall {
	f.t.Helper()
	var msg llmstream.Message
	if err == nil {
		calls, ferr := f.asm.Finalize()
		if ferr != nil {
			f.t.Fatal(ferr)
		}
		for _, c := range calls {
			msg.ToolCalls = append(msg.ToolCalls, llmstream.ToolCall{ID: c.ID, Type: "function", Function: llmstream.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		msg.Usage = usage
	}
	f.p.modelDone(agentloop.ModelDone{Turn: turn, Message: msg, Err: err})
	f.asm.Reset()
	return msg.ToolCalls
}

// runScript plays the same run on a printer: a turn of text and three
// calls formed interleaved (one completes mid-stream, one at its last
// fragment, one has no arguments), the calls run, and a second turn of
// text. It returns what was written after each step.
func runScript(t *testing.T, p *printer, now *time.Time) []string {
	t.Helper()
	f := newFeed(t, p)
	tick := func(d time.Duration) { *now = now.Add(d) }
	var calls []llmstream.ToolCall
	steps := []func(){
		func() { p.begin() },
		func() { tick(300 * time.Millisecond); p.modelStart(agentloop.ModelStart{Turn: 1}) },
		func() { f.text("Reading a.md, "); f.text("and searching.") },
		func() { tick(time.Second); f.call(0, "read_file_safe", "") },
		func() { f.call(1, "search", `{"pattern":`) },
		func() { f.call(0, "", `{"pa`) },
		func() { f.call(2, "list_files", "") },
		func() { f.call(0, "", `th":"a.md`) },
		func() { f.call(1, "", ` "TO`) },
		func() { f.call(0, "", `"}`) },
		func() { f.call(1, "", `DO"}`) },
		func() {
			tick(time.Second)
			calls = f.end(1, &llmstream.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}, nil)
		},
		func() { p.toolStart(agentloop.ToolStart{Turn: 1, Call: calls[0]}) },
		func() {
			p.toolDone(agentloop.ToolDone{Turn: 1, Call: calls[0], OutputBytes: 10, Duration: time.Millisecond})
			for i, c := range calls[1:] {
				p.toolStart(agentloop.ToolStart{Turn: 1, Index: i + 1, Call: c})
				p.toolDone(agentloop.ToolDone{Turn: 1, Index: i + 1, Call: c, OutputBytes: 20, Duration: 2 * time.Millisecond})
			}
		},
		func() { tick(time.Second); p.modelStart(agentloop.ModelStart{Turn: 2}) },
		func() { f.text("a.md is a readme.\n") },
		func() { f.text("Done.\n") },
		func() { f.end(2, &llmstream.Usage{TotalTokens: 200}, nil) },
		func() {
			p.summary(agentloop.Result{Turns: 2, ToolCalls: 3, Usage: llmstream.Usage{PromptTokens: 250, CompletionTokens: 70, TotalTokens: 320}}, 4*time.Second, nil)
		},
	}
	b := p.w.(*bytes.Buffer)
	var out []string
	for _, s := range steps {
		s()
		out = append(out, b.String())
	}
	return out
}

// scriptTranscript is what runScript leaves, on a terminal or off one.
const scriptTranscript = "Reading a.md, and searching.\n" +
	"  ◦ read_file_safe {\"path\":\"a.md\"} formed from 4 fragments\n" +
	"  ◦ search {\"pattern\":\"TODO\"} formed from 3 fragments\n" +
	"  ◦ list_files {} formed from 1 fragment\n" +
	"  • read_file_safe {\"path\":\"a.md\"} → 10 B, 1ms\n" +
	"  • search {\"pattern\":\"TODO\"} → 20 B, 2ms\n" +
	"  • list_files {} → 20 B, 2ms\n" +
	"a.md is a readme.\n" +
	"Done.\n" +
	"\ndone: 2 turns, 3 tool calls, 320 tokens (250 in, 70 out), 4s\n"

func TestPrinterFormingCallsPlain(t *testing.T) {
	var b bytes.Buffer
	p, now := testPrinter(&b, 0, false)
	out := runScript(t, p, now)
	if diff := cmp.Diff(scriptTranscript, b.String()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	// A call's line appears once it has formed, not before.
	if got := out[8]; strings.Contains(got, "read_file_safe") {
		t.Errorf("read_file_safe shown before its arguments were complete:\n%s", got)
	}
	if got := out[9]; !strings.HasSuffix(got, "and searching.\n  ◦ read_file_safe {\"path\":\"a.md\"} formed from 4 fragments\n") {
		t.Errorf("read_file_safe not shown when its arguments completed:\n%s", got)
	}
	if strings.ContainsAny(b.String(), "\x1b\r") {
		t.Errorf("escape codes or carriage returns off a terminal: %q", b.String())
	}
}

func TestPrinterFormingCallsCutOff(t *testing.T) {
	var b bytes.Buffer
	p, _ := testPrinter(&b, 0, false)
	f := newFeed(t, p)
	p.modelStart(agentloop.ModelStart{Turn: 1})
	f.call(0, "read_file_safe", `{"path":"a.md"}`)
	f.call(1, "search", `{"pattern":"TO`)
	f.call(2, "list_files", ``)
	f.end(1, nil, errors.New("stream truncated"))
	want := "  ◦ read_file_safe {\"path\":\"a.md\"} formed from 1 fragment\n" +
		"  ◦ search {\"pattern\":\"TO\"} ✗ never completed, not run\n" +
		"  ◦ list_files ✗ never completed, not run\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// A call whose arguments are a bare number could still grow ("1" into
// "12"): it gets its line at the turn's end, from the validated call.
func TestPrinterFormingNumberWaitsForTheEnd(t *testing.T) {
	var b bytes.Buffer
	p, _ := testPrinter(&b, 0, false)
	f := newFeed(t, p)
	f.call(0, "count", "1")
	if b.Len() != 0 {
		t.Errorf("shown early: %q", b.String())
	}
	f.call(0, "", "2")
	f.end(1, nil, nil)
	if got, want := b.String(), "  ◦ count 12 formed from 2 fragments\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A call that reached the message without any delta (a server that
// answers whole) still gets its formed line.
func TestPrinterCallsWithoutDeltas(t *testing.T) {
	var b bytes.Buffer
	p, _ := testPrinter(&b, 0, false)
	p.modelDone(agentloop.ModelDone{Turn: 1, Message: llmstream.Message{ToolCalls: []llmstream.ToolCall{
		{ID: "c", Function: llmstream.FunctionCall{Name: "search", Arguments: `{ "pattern" : "x" }`}},
	}}})
	if got, want := b.String(), "  ◦ search {\"pattern\":\"x\"}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
