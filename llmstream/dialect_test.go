package llmstream

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
)

func TestParseDialect(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Dialect
	}{
		{"chat", DialectChat}, {"OpenAI", DialectChat}, {" anthropic ", DialectAnthropic},
		{"Responses", DialectResponses}, {"gemini", DialectGemini}, {"Bedrock", DialectBedrock},
	} {
		got, err := ParseDialect(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDialect(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if name := got.String(); name != strings.ToLower(strings.TrimSpace(tc.in)) && tc.in != "OpenAI" {
			t.Errorf("%v.String() = %q", got, name)
		}
	}
	for _, bad := range []string{"", "claude", "chat2"} {
		if _, err := ParseDialect(bad); err == nil || !strings.Contains(err.Error(), "want chat, anthropic, responses, gemini or bedrock") {
			t.Errorf("ParseDialect(%q) = %v", bad, err)
		}
	}
	if s := Dialect(0).String(); s != "chat" {
		t.Errorf("the zero Dialect prints %q", s)
	}
	if s := dialectEnd.String(); !strings.HasPrefix(s, "Dialect(") {
		t.Errorf("an unknown Dialect prints %q", s)
	}
}

func TestDialectText(t *testing.T) {
	b, err := json.Marshal(struct{ D Dialect }{DialectGemini})
	if err != nil || string(b) != `{"D":"gemini"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var v struct{ D Dialect }
	if err := json.Unmarshal([]byte(`{"D":"responses"}`), &v); err != nil || v.D != DialectResponses {
		t.Errorf("Unmarshal = %v, %v", v.D, err)
	}
	if err := json.Unmarshal([]byte(`{"D":"nope"}`), &v); err == nil {
		t.Error("an unknown name unmarshaled")
	}
	if _, err := json.Marshal(struct{ D Dialect }{dialectEnd}); err == nil {
		t.Error("an unknown dialect marshaled")
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var d Dialect
	fs.TextVar(&d, "dialect", DialectChat, "")
	if err := fs.Parse([]string{"-dialect", "anthropic"}); err != nil || d != DialectAnthropic {
		t.Errorf("flag: %v, %v", d, err)
	}
}

func TestUnknownDialectIsMisuse(t *testing.T) {
	b := NewBridge(WithDialect(dialectEnd))
	if err := b.Handle(sse.Event{Data: []byte(`{}`)}); !errors.Is(err, ErrMisuse) {
		t.Errorf("Bridge: %v", err)
	}
	if _, err := NewClient(WithDialect(dialectEnd)).Stream(t.Context(), Request{}); !errors.Is(err, ErrMisuse) {
		t.Errorf("Client: %v", err)
	}
}

// TestDeepEventSmallStack decodes an event nested as deep as JSON may be in
// a child process whose goroutines may not grow past 256 KiB of stack: a
// recursive skip would need several megabytes and die.
func TestDeepEventSmallStack(t *testing.T) {
	if os.Getenv("LLMSTREAM_DEEP_CHILD") == "1" {
		debug.SetMaxStack(256 << 10)
		n := jsonscan.MaxDepth - 2
		data := "data: {\"x\":" + strings.Repeat("[", n) + strings.Repeat("]", n) + "}\n\ndata: {\"y\":" + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
		m, err := ReadMessage(strings.NewReader(data))
		if err != nil || m.Content != "ok" {
			t.Fatalf("deep events: %q, %v", m.Content, err)
		}
		io.WriteString(os.Stdout, "deep ok\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeepEventSmallStack$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LLMSTREAM_DEEP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "deep ok") {
		t.Fatalf("child: %v\n%.2000s", err, out)
	}
}

// countingDoer records that a request was sent, and fails it.
type countingDoer struct{ sent *bool }

func (d countingDoer) Do(*http.Request) (*http.Response, error) {
	*d.sent = true
	return nil, errors.New("not to be sent")
}
