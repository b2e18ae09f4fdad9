package agentcli

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// hostile is what a hostile server or tool might send to take over a
// terminal: clear the screen, move the cursor, set the clipboard (OSC 52)
// and the window title, a C1 CSI, a carriage return, a backspace.
const hostile = "\x1b[2J\x1b[1A\x1b]52;c;aGk=\x07\x1b]0;pwned\x1b\\\u009b31m\r\b\x7f\u0085"

// ours matches the control sequences the printer itself writes.
var ours = regexp.MustCompile(`\x1b\[(\d*[AKJ]|[0-9;]*m)`)

// checkNoInjection fails if out holds any control character the printer
// did not put there itself. On a terminal that is its own sequences and
// carriage returns; off one, newlines and tabs alone.
func checkNoInjection(t *testing.T, out string, live bool) {
	t.Helper()
	rest := out
	if live {
		rest = ours.ReplaceAllString(out, "")
		rest = strings.ReplaceAll(rest, "\r", "")
	}
	for i, r := range rest {
		if r != '\n' && r != '\t' && (r < 0x20 || (r >= 0x7f && r < 0xa0)) {
			t.Errorf("control character %U at %d of %q", r, i, rest)
			return
		}
	}
	if strings.Contains(rest, "pwned\x07") || strings.Contains(out, "\x1b]") {
		t.Errorf("an OSC sequence got through: %q", out)
	}
}

// Every path that prints what a model or a tool chose — text, reasoning,
// refusal, a call's name and arguments forming, formed, cut off and run,
// a tool's error, the status line's tool name — neutralizes control
// characters, on a terminal and off one.
func TestPrinterNeutralizesControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		columns int
	}{{"plain", 0}, {"terminal", 80}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p, now := testPrinter(&b, tc.columns, tc.columns > 0)
			f := newFeed(t, p)
			p.realBanner(llmstream.DialectChat, "https://h.test/v1", "m"+hostile, "/ws"+hostile, true)
			p.task("go" + hostile)
			p.begin()
			p.modelStart(agentloop.ModelStart{Turn: 1})
			p.delta(llmstream.Delta{Kind: llmstream.DeltaReasoning, Text: "think" + hostile})
			f.text("say" + hostile)
			p.delta(llmstream.Delta{Kind: llmstream.DeltaRefusal, Text: "no" + hostile + "\n"})
			// Raw control characters inside a JSON string: the preview
			// cannot close them into JSON, so the raw bytes are shown.
			f.call(0, "read"+hostile, `{"path":"`+hostile)
			// Escaped ones are JSON text and show as such.
			f.call(1, "x"+hostile, `{"p":"\u001b[2J`)
			*now = now.Add(time.Second)
			f.call(1, "", `"}`)
			f.end(1, nil, errors.New("cut"))
			call := llmstream.ToolCall{Function: llmstream.FunctionCall{Name: "run" + hostile, Arguments: `{"p":"\u001b"}`}}
			p.toolStart(agentloop.ToolStart{Call: call})
			p.toolDone(agentloop.ToolDone{Call: call, Content: "error: bad" + hostile, Err: errors.New("x")})
			p.summary(agentloop.Result{}, time.Second, errors.New("x"))
			out := b.String()
			checkNoInjection(t, out, tc.columns > 0)
			if tc.columns > 0 {
				screen(t, out) // fails on any sequence not the printer's
			}
			for _, want := range []string{"think[2J[1A]52;c;aGk=]0;pwned\\31m", `x[2J[1A]52;c;aGk=]0;pwned\31m {"p":"\u001b[2J"}`} {
				if !strings.Contains(regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(out, ""), want) {
					t.Errorf("output lacks %q:\n%q", want, out)
				}
			}
		})
	}
}

// The error a run stops with may quote the server: it reaches stderr
// without its control characters. (llmstream already cleans an API error's
// message, so TestErrorLine checks the demo's own guard.)
func TestRunNeutralizesServerError(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400, Message: "bad request" + hostile, Type: "invalid_request_error"}},
	))
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL, "--api-key", "k"}, &stdout, &stderr, envOf(nil))
	if code != exitFailed || !strings.Contains(stderr.String(), "bad request") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	checkNoInjection(t, stdout.String()+stderr.String(), false)
}

func TestErrorLine(t *testing.T) {
	got := errorLine(errors.New("model said" + hostile + "\nsecond line"))
	checkNoInjection(t, got, false)
	if want := "agent: model said[2J[1A]52;c;aGk=]0;pwned\\31m\nsecond line"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
