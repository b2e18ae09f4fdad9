package agentcli

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

func TestPrinter(t *testing.T) {
	call := llmstream.ToolCall{ID: "c", Function: llmstream.FunctionCall{Name: "read_file_safe", Arguments: "{\n  \"path\": \"README.md\"\n}"}}
	var b bytes.Buffer
	p := &printer{w: &b}
	p.delta(llmstream.Delta{Kind: llmstream.DeltaReasoning, Text: "hmm "})
	p.delta(llmstream.Delta{Kind: llmstream.DeltaReasoning, Text: "ok"})
	p.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "Reading"})
	p.delta(llmstream.Delta{Kind: llmstream.DeltaToolCall, Text: `{"pa`})
	p.toolDone(agentloop.ToolDone{Call: call, OutputBytes: 2048 + 512, CutBytes: 100, Duration: 1500 * time.Microsecond})
	p.toolDone(agentloop.ToolDone{Call: call, Content: "error: README.md looks binary", Err: errors.New("x")})
	p.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "Done.\n"})
	p.modelDone(agentloop.ModelDone{})
	p.summary(agentloop.Result{Turns: 2, ToolCalls: 2, Usage: llmstream.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}, 1234*time.Millisecond, nil)
	p.summary(agentloop.Result{Turns: 1}, 20*time.Millisecond, errors.New("x"))
	want := "thinking: hmm ok\nReading\n" +
		"  • read_file_safe {\"path\":\"README.md\"} → 2.5 KiB, 100 B cut, 1.5ms\n" +
		"  • read_file_safe {\"path\":\"README.md\"} ✗ README.md looks binary\n" +
		"Done.\n" +
		"\ndone: 2 turns, 2 tool calls, 15 tokens (10 in, 5 out), 1.23s\n" +
		"\nstopped: 1 turn, 0 tool calls, 0 tokens (0 in, 0 out), 20ms\n"
	if got := b.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestPrinterColor(t *testing.T) {
	var b bytes.Buffer
	p := &printer{w: &b, color: true}
	p.task("go")
	if got, want := b.String(), "\x1b[36mtask: \x1b[0mgo\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		name string
		w    any
		env  map[string]string
		want bool
	}{
		{"a buffer", &bytes.Buffer{}, nil, false},
		{"a regular file", f, nil, false},
		{"NO_COLOR", f, map[string]string{"NO_COLOR": "1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			live, color, _ := terminal(tc.w.(interface{ Write([]byte) (int, error) }), envOf(tc.env).get)
			if live != tc.want || color != tc.want {
				t.Errorf("terminal = live %v, color %v; want %v", live, color, tc.want)
			}
		})
	}
}

func TestShortArgsAndSizes(t *testing.T) {
	tests := []struct{ got, want string }{
		{shortArgs(`{ "a" : 1 }`), `{"a":1}`},
		{shortArgs(`{"pattern":"` + string(bytes.Repeat([]byte("x"), 100)) + `"}`), `{"pattern":"` + string(bytes.Repeat([]byte("x"), 60)) + `…`},
		{shortArgs(`not json`), `not json`},
		{byteSize(1023), "1023 B"},
		{byteSize(1024), "1.0 KiB"},
		{byteSize(3 << 20), "3.0 MiB"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestPrinterDropsControlCharacters(t *testing.T) {
	var b bytes.Buffer
	p := &printer{w: &b}
	p.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "a\x1b]52;c;aGk=\x07b\tc\r\n"})
	p.toolDone(agentloop.ToolDone{Call: llmstream.ToolCall{Function: llmstream.FunctionCall{Name: "x\x1b[2J", Arguments: `{"p":"\u001b[31m"}`}}, Content: "error: bad \x1b[1m\u009b", Err: errors.New("x")})
	want := "a]52;c;aGk=b\tc\n  • x[2J {\"p\":\"\\u001b[31m\"} ✗ bad [1m\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRealBannerHidesSecrets(t *testing.T) {
	var b bytes.Buffer
	p := &printer{w: &b}
	p.realBanner(llmstream.DialectChat, "https://user:s3cret@example.test/v1", "m", "/ws", true)
	want := "airlock demo agent — m at https://example.test/v1\nchat dialect; API key set; workspace: /ws\n\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
