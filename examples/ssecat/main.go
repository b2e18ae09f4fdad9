// Command ssecat reads a Server-Sent Events stream from standard input and
// prints one line per event: its type, its ID ("-" when none) and its data,
// separated by tabs. It shows the sse package used alone, under any
// transport:
//
//	curl -sN https://example.com/stream | go run ./examples/ssecat
//	go run ./examples/ssecat -max 1048576 -done '' < recorded.sse
//
// In the data (and type and ID), a backslash prints as \\, an LF joining
// data lines as \n, and any other control character (C0, DEL, C1) as \xNN
// for each byte of its UTF-8 encoding, so every event stays on one line and
// nothing reaches the terminal raw. With -unknown,
// fields the standard ignores (such as llama.cpp's "error:") are printed too,
// as "field", the name and the value. It exits with status 1 and a message on
// standard error if the stream fails (for example, an event over -max bytes),
// and with status 2 on a bad flag; -h prints the usage.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/airlock-go/airlock/sse"
)

func main() {
	os.Exit(cli(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// cli is the whole program with its surroundings passed in: it parses args,
// copies in to out, and returns the exit status. -h prints the usage on
// stdout; a bad flag gets its error and a one-line hint on stderr.
func cli(args []string, in io.Reader, out, errw io.Writer) int {
	fs := flag.NewFlagSet("ssecat", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are printed below
	maxSize := fs.Int("max", sse.DefaultMaxEventSize, "largest pending line plus event data, in `bytes`")
	done := fs.String("done", sse.DefaultDoneSentinel, "`data` that ends the stream (\"\" for none)")
	unknown := fs.Bool("unknown", false, "also print fields the standard ignores, as \"field\", name, value")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(out)
		fmt.Fprint(out, usage)
		fs.PrintDefaults()
		return exitOK
	case err != nil:
		fmt.Fprintf(errw, "ssecat: %v\n%s\n", err, usageHint)
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(errw, "ssecat: unexpected argument %q; the stream is read from standard input\n%s\n", fs.Arg(0), usageHint)
		return exitUsage
	}
	if err := run(in, out, *maxSize, *done, *unknown); err != nil {
		fmt.Fprintln(errw, "ssecat:", err)
		return exitFailed
	}
	return exitOK
}

const usageHint = "run 'ssecat -h' for usage"

const usage = `usage: ssecat [-max bytes] [-done data] [-unknown] < stream

ssecat reads a Server-Sent Events stream from standard input and prints one
line per event: its type, its ID ("-" when none) and its data, separated by
tabs, with control characters escaped so that each event stays on one line.
It shows airlock's sse package alone, under any transport:

	curl -sN https://example.com/stream | go run ./examples/ssecat

It exits with status 1 if the stream fails (an event over -max bytes, say).

Flags:
`

// run copies the events of the stream in to out, one line each.
func run(in io.Reader, out io.Writer, maxSize int, done string, unknown bool) error {
	w := bufio.NewWriter(out)
	opts := []sse.Option{sse.WithMaxEventSize(maxSize), sse.WithDoneSentinel(done)}
	if unknown {
		opts = append(opts, sse.WithUnknownField(func(name string, value []byte) error {
			_, err := fmt.Fprintf(w, "field\t%s\t%s\n", escape([]byte(name)), escape(value))
			return err
		}))
	}
	r := sse.NewReader(in, opts...)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return w.Flush()
		}
		if err != nil {
			w.Flush()
			return err
		}
		id := ev.ID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", escape([]byte(ev.Type)), escape([]byte(id)), escape(ev.Data))
	}
}

// escape makes b safe to print on one line.
func escape(b []byte) []byte {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\':
			out = append(out, '\\', '\\')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c < 0x20 || c == 0x7F:
			out = append(out, '\\', 'x', hex[c>>4], hex[c&0xF])
		case c == 0xC2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9F:
			// U+0080..U+009F, the C1 controls (U+009B is a CSI to some
			// terminals): both bytes of the encoding are escaped.
			i++
			out = append(out, '\\', 'x', 'c', '2', '\\', 'x', hex[b[i]>>4], hex[b[i]&0xF])
		default:
			out = append(out, c)
		}
	}
	return out
}
