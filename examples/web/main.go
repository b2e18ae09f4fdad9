// Command web serves airlock's demo agent to a browser: a chat page on
// localhost over the Vercel AI SDK's UI message stream (contrib/aisdk),
// with the terminal demo's tools and, by default, its offline model. A
// call to write_file is put to the page as Approve and Deny buttons.
//
//	cd examples/web && go run .            # offline, http://127.0.0.1:8080
//	go run . -model gpt-4o-mini            # a real model: key in AIRLOCK_API_KEY
//
// Flags, each also an AIRLOCK_<NAME> variable: -addr, -workspace,
// -allow-write (default true here: every write is asked by a button
// anyway), -base-url, -api-key, -model, -dialect (as in examples/agent;
// any of the first three means a real model), -offline-delay.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := serve(ctx, os.Args[1:], os.Getenv, os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}
