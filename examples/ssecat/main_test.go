package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		max     int
		done    string
		unknown bool
		want    string
	}{
		{name: "one event per line", in: "data: a\n\nevent: t\nid: 7\ndata: b\ndata: c\n\n", max: 100, done: "[DONE]",
			want: "message\t-\ta\nt\t7\tb\\nc\n"},
		{name: "stops at the sentinel", in: "data: a\n\ndata: [DONE]\n\ndata: b\n\n", max: 100, done: "[DONE]",
			want: "message\t-\ta\n"},
		{name: "sentinel off", in: "data: [DONE]\n\n", max: 100, done: "",
			want: "message\t-\t[DONE]\n"},
		{name: "control characters escaped", in: "event: a\tb\ndata: \x1b[31m\\x\x00\n\n", max: 100, done: "[DONE]",
			want: "a\\x09b\t-\t\\x1b[31m\\\\x\\x00\n"},
		{name: "C1 control characters escaped, other non-ASCII kept", in: "data: \u009b31m\u0085é\u00a0\n\n", max: 100, done: "[DONE]",
			want: "message\t-\t\\xc2\\x9b31m\\xc2\\x85é\u00a0\n"},
		{name: "unknown fields printed on request", in: "error: {\"code\":1}\n\ndata: a\n\n", max: 100, done: "[DONE]", unknown: true,
			want: "field\terror\t{\"code\":1}\nmessage\t-\ta\n"},
		{name: "unknown fields hidden by default", in: "error: {\"code\":1}\n\ndata: a\n\n", max: 100, done: "[DONE]",
			want: "message\t-\ta\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(strings.NewReader(tt.in), &out, tt.max, tt.done, tt.unknown); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestRunTooLarge(t *testing.T) {
	var out bytes.Buffer
	err := run(strings.NewReader("data: ok\n\ndata: "+strings.Repeat("x", 50)+"\n\n"), &out, 20, "[DONE]", false)
	if !errors.Is(err, sse.ErrEventTooLarge) {
		t.Fatalf("run = %v, want ErrEventTooLarge", err)
	}
	if out.String() != "message\t-\tok\n" {
		t.Errorf("output %q; the event before the failure must still be printed", out.String())
	}
}

func TestCLI(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		in        string
		code      int
		stdout    string // a prefix of it
		stderr    string
		stdoutHas []string
	}{
		{name: "copies the stream", args: []string{"-done", ""}, in: "data: a\n\ndata: [DONE]\n\n", code: exitOK,
			stdout: "message\t-\ta\nmessage\t-\t[DONE]\n"},
		{name: "help on stdout", args: []string{"-h"}, code: exitOK, stdout: "usage: ssecat [-max bytes] [-done data] [-unknown] < stream\n\nssecat reads a Server-Sent Events stream",
			stdoutHas: []string{"\n  -max bytes\n", "\n  -done data\n", "\n  -unknown\n", "curl -sN"}},
		{name: "bad flag: the error and a hint", args: []string{"-maxx", "1"}, code: exitUsage,
			stderr: "ssecat: flag provided but not defined: -maxx\nrun 'ssecat -h' for usage\n"},
		{name: "bad value", args: []string{"-max", "lots"}, code: exitUsage,
			stderr: "ssecat: invalid value \"lots\" for flag -max: parse error\nrun 'ssecat -h' for usage\n"},
		{name: "an argument", args: []string{"stream.sse"}, code: exitUsage,
			stderr: "ssecat: unexpected argument \"stream.sse\"; the stream is read from standard input\nrun 'ssecat -h' for usage\n"},
		{name: "a failing stream", args: []string{"-max", "4"}, in: "data: toolong\n\n", code: exitFailed,
			stderr: "ssecat: " + sse.ErrEventTooLarge.Error()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cli(tt.args, strings.NewReader(tt.in), &stdout, &stderr)
			if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) || !strings.HasPrefix(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q…, %q…", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
			if tt.stderr == "" && stderr.Len() != 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
			for _, want := range tt.stdoutHas {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}
