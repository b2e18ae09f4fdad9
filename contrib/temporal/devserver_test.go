package temporal

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// cliEnv names the Temporal CLI binary the server tests start a dev server
// with; without it they are skipped, except under CI=true, where ci.sh
// installs it and a skip would hide that the crash test never ran.
const cliEnv = "AIRLOCK_TEMPORAL_CLI"

// devServer starts `temporal server start-dev` on loopback ports, in memory,
// and returns a client connected to it; both end with the test.
func devServer(tb testing.TB) (client.Client, string) {
	tb.Helper()
	cli := os.Getenv(cliEnv)
	if cli == "" && os.Getenv("CI") == "true" {
		tb.Fatalf("%s is not set under CI=true: .ci/run exports it and ci.sh installs the binary", cliEnv)
	}
	if cli == "" {
		tb.Skipf("%s is not set: no Temporal dev server to run against (go install github.com/temporalio/cli/cmd/temporal@v1.5.1 and set %s to the binary)", cliEnv, cliEnv)
	}
	port, uiPort, httpPort, metricsPort := freePort(tb), freePort(tb), freePort(tb), freePort(tb)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	begun := time.Now()
	var out bytes.Buffer
	cmd := exec.Command(cli, "server", "start-dev", "--ip", "127.0.0.1",
		"--port", strconv.Itoa(port), "--ui-port", strconv.Itoa(uiPort), "--http-port", strconv.Itoa(httpPort),
		"--metrics-port", strconv.Itoa(metricsPort), "--headless", "--log-level", "error")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s=%s: %v", cliEnv, cli, err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		c, err := client.DialContext(ctx, client.Options{HostPort: addr, Logger: quietLogger()})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			if err == nil {
				tb.Logf("dev server up on %s in %v", addr, time.Since(begun).Round(time.Millisecond))
				tb.Cleanup(c.Close)
				return c, addr
			}
			c.Close()
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("the dev server did not come up: %v\n%s", err, out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// quietLogger drops the SDK's log lines.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.DiscardHandler))
}
