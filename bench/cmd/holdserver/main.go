// Command holdserver serves bench.HoldServer on a loopback port for
// cmd/streams, in its own process so that the server's memory is not counted
// with the client's. It prints its base URL (http://127.0.0.1:PORT) as the
// first line on stdout and exits when its stdin is closed.
//
//	holdserver [-addr 127.0.0.1:0] [-tick 500ms] [-streams 2000]
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/airlock-go/airlock/bench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	tick := flag.Duration("tick", bench.HoldTick, "interval between the chunks of a held stream")
	streams := flag.Int("streams", 2000, "streams to be held at once (checked against RLIMIT_NOFILE)")
	flag.Parse()
	log.SetPrefix("holdserver: ")
	log.SetFlags(0)

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("-addr %s: loopback IP addresses only", *addr)
	}
	if _, err := bench.RaiseNofile(uint64(*streams) + 256); err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() { // the parent closes our stdin (or dies): exit
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	log.Fatal((&http.Server{Handler: bench.NewHoldServer(*tick)}).Serve(ln))
}
