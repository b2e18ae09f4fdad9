package main

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRunGolden(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"OpenAI tool_calls arrays, interleaved", "testdata/openai.jsonl", "testdata/openai.want"},
		{"Gemini chunks without index, SSE prefix, extras, [DONE]", "testdata/gemini.jsonl", "testdata/gemini.want"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.Open(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			want, err := os.ReadFile(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := run(in, &out); err != nil {
				t.Fatalf("run: %v", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantIs  error // nil: only the message is checked
		wantMsg string
	}{
		{"truncated arguments", `[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\":"}}]` + "\ndata: [DONE]", toolcall.ErrInvalidArguments,
			`toolcall: invalid arguments: call 0 (c) to "f": unexpected end of JSON input at byte 5; tail "{\"a\":"`},
		{"a line that is not JSON", "[{\"index\":0}]\n[{", nil,
			"line 2: unexpected end of JSON input"},
		{"a tool call that is not an object", `[1]`, nil,
			"line 1: tool call 0: json: cannot unmarshal number into Go value of type map[string]json.RawMessage"},
		{"an id that is not a string", `[{"index":0,"id":7}]`, nil,
			"line 1: tool call 0: id: not a string"},
		{"a negative index", `[{"index":-1,"id":"c"}]`, toolcall.ErrInvalidIndex,
			"line 1: toolcall: invalid index: fragment for index -1: index -1 is outside [0, 1073741823]"},
		{"a stream cut after five events of two calls: nothing, though call 0 is whole",
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":1}\"}}]}}]}\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"y\\\"\"}}]}}]}\n",
			nil, errNoEnd.Error()},
		{"too many calls", `[{"index":0}]` + "\n" + manyCalls(toolcall.DefaultMaxCalls+1), toolcall.ErrTooManyCalls,
			"line 2: toolcall: too many calls: call at index 32 would be call number 33, over the maximum of 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(strings.NewReader(tt.input), &out)
			if err == nil {
				t.Fatalf("run succeeded with output %q", out.String())
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("error = %q, want %q", err.Error(), tt.wantMsg)
			}
			if out.Len() != 0 {
				t.Errorf("output on failure: %q", out.String())
			}
		})
	}
}

// manyCalls is one line with n calls at indexes 0..n-1.
func manyCalls(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"index":` + strconv.Itoa(i) + `}`)
	}
	b.WriteString("]\n")
	return b.String()
}

func TestRunEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := run(strings.NewReader("\n\ndata: [DONE]\n"), &out); err != nil || out.Len() != 0 {
		t.Errorf("run on a stream with no calls = %v, output %q; want nil and nothing", err, out.String())
	}
	if err := run(strings.NewReader("\n\n"), &out); err != errNoEnd {
		t.Errorf("run on blank input = %v; want errNoEnd", err)
	}
	finish := `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	if err := run(strings.NewReader(finish), &out); err != nil {
		t.Errorf("a finish_reason ends the stream: %v", err)
	}
}

// TestCommandLine: -h prints what the program reads and prints, without
// reading standard input (a person who typed it at a terminal would wait
// forever); an argument or a flag is refused with a one-line hint.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // prefixes
	}{
		{"help", []string{"-h"}, exitOK, "usage: assemble < deltas\n", ""},
		{"a file named as an argument", []string{"deltas.jsonl"}, exitUsage, "", "assemble: unexpected argument \"deltas.jsonl\"; the deltas are read from standard input\nrun 'assemble -h' for usage\n"},
		{"a flag", []string{"-v"}, exitUsage, "", "assemble: flag provided but not defined: -v\nrun 'assemble -h' for usage\n"},
		{"no arguments: stdin is read", nil, exitOK, `{"index":0,"id":"call_1"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &readSpy{r: strings.NewReader(`[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}]` + "\ndata: [DONE]\n")}
			var stdout, stderr bytes.Buffer
			code := cli(tc.args, in, &stdout, &stderr)
			if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || stderr.String() != tc.stderr && !(tc.stderr == "" && stderr.Len() == 0) {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
			}
			if read := in.reads > 0; read != (tc.args == nil) {
				t.Errorf("standard input read: %v", read)
			}
		})
	}
}

type readSpy struct {
	r     *strings.Reader
	reads int
}

func (s *readSpy) Read(p []byte) (int, error) { s.reads++; return s.r.Read(p) }
