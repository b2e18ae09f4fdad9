package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/internal/readme"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestUsageNeedsNoServer: -h prints the usage and a wrong subcommand is
// refused before anything is dialled.
func TestUsageNeedsNoServer(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"-h"}, 0, "usage: durable worker|start|approve", ""},
		{[]string{"--help"}, 0, "usage: durable worker|start|approve", ""},
		{nil, 2, "", "usage: durable worker|start|approve"},
		{[]string{"strat"}, 2, "", "usage: durable worker|start|approve"},
		{[]string{"worker", "-h"}, 0, "", "-address string"},
		{[]string{"start", "-adress", "x"}, 2, "", "flag provided but not defined: -adress"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestNoServer: a refused connection says which server to start, and
// where.
func TestNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"start", "-address", addr}, &stdout, &stderr)
	want := "is `temporal server start-dev --ip 127.0.0.1 --headless` running on " + addr + "?"
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestReadmeMatchesFiles: the README's Go blocks are regions of readme.go,
// which this package compiles (see package internal/readme).
func TestReadmeMatchesFiles(t *testing.T) {
	for _, err := range readme.Require("../../README.md", "../../../..", 2) {
		t.Error(err)
	}
}
