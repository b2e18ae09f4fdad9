// Command assemble is the tool-call assembler used alone: it reads OpenAI
// chat-completions tool-call deltas, one JSON text per line, from standard
// input, and prints the finished calls, one JSON object per line, in index
// order.
//
// Each input line is one of:
//
//   - a tool_calls array: [{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]
//   - a whole chunk: {"choices":[{"delta":{"tool_calls":[...]}}]} (only
//     choices[0] is read; a chunk without tool calls is skipped)
//   - either of them after an SSE "data: " prefix; "data: [DONE]" ends the
//     input
//
// Blank lines are skipped. A tool call without an integer "index" is placed
// by the assembler (Gemini sends none). "arguments" may be a JSON string or,
// as some proxies send it, a JSON object. Members of a tool-call object other
// than index, id, type and function are kept as the call's extras.
//
// Usage:
//
//	go run ./examples/assemble < examples/assemble/testdata/openai.jsonl
//
// The input must end the way a whole stream ends — a "data: [DONE]" line or
// a chunk with a finish_reason — or no call is printed: on a stream cut
// short, the calls complete so far look valid and a call that never started
// is missing, so Finalize belongs after a proper end. (Other dialects end
// otherwise: Anthropic with message_stop, the Responses API with
// response.completed or response.incomplete, Gemini with a candidate's
// finishReason; llmstream checks each.)
//
// It exits 1 with a message naming the line when a line is not JSON, a limit
// is hit, the input ends before the stream did, or a call's arguments are
// not valid JSON at the end; 2 for an argument (it takes none; -h prints
// the usage).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/airlock-go/airlock/toolcall"
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

// cli is the whole program with its surroundings passed in: it checks
// args, assembles in to out, and returns the exit status. -h prints the
// usage on stdout without reading in; an argument or flag gets its error
// and a one-line hint on stderr.
func cli(args []string, in io.Reader, out, errw io.Writer) int {
	fs := flag.NewFlagSet("assemble", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are printed below
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(out, usage)
		return exitOK
	case err != nil:
		fmt.Fprintf(errw, "assemble: %v\n%s\n", err, usageHint)
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(errw, "assemble: unexpected argument %q; the deltas are read from standard input\n%s\n", fs.Arg(0), usageHint)
		return exitUsage
	}
	if err := run(in, out); err != nil {
		fmt.Fprintln(errw, "assemble:", err)
		return exitFailed
	}
	return exitOK
}

const usageHint = "run 'assemble -h' for usage"

const usage = `usage: assemble < deltas

assemble is airlock's tool-call assembler used alone. It reads OpenAI
chat-completions tool-call deltas from standard input, one JSON text per line
(a tool_calls array or a whole chunk, optionally after "data: "), and prints
the finished calls, one JSON object per line, in index order:

	go run ./examples/assemble < examples/assemble/testdata/openai.jsonl

The input must end as a whole stream does, with "data: [DONE]" or a chunk
with a finish_reason: on a stream cut short the calls complete so far look
valid, so no call is printed. It exits with status 1 when a line is not
JSON, a limit is hit, the input ends early or a call's arguments are not
valid JSON.
`

// maxLine bounds one input line: the assembler's own limit on a call's
// arguments plus room for the JSON around them.
const maxLine = toolcall.DefaultMaxArgumentBytes + 64<<10

// run assembles the deltas read from r and writes the calls to w.
func run(r io.Reader, w io.Writer) error {
	a := toolcall.NewAssembler()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	ended := false // the input ended as a whole stream does
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		line, sse := bytes.CutPrefix(line, []byte("data:"))
		line = bytes.TrimSpace(line)
		if sse && string(line) == "[DONE]" {
			ended = true
			break
		}
		if len(line) == 0 {
			continue
		}
		frags, finished, err := fragments(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		ended = ended || finished
		for _, f := range frags {
			if err := a.Add(f); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if !ended {
		return errNoEnd
	}
	calls, err := a.Finalize()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, c := range calls {
		if err := enc.Encode(toOutput(c)); err != nil {
			return err
		}
	}
	return nil
}

// errNoEnd reports input that stopped before the stream did.
var errNoEnd = errors.New(`the input ended without "data: [DONE]" or a finish_reason, so the stream may have been cut off; no call is printed (end whole input with a "data: [DONE]" line)`)

// fragments decodes one line: a tool_calls array or a whole chunk, and says
// whether the chunk carried a finish reason.
func fragments(line []byte) ([]toolcall.Fragment, bool, error) {
	var deltas []json.RawMessage
	finished := false
	if line[0] == '{' {
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls []json.RawMessage `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(line, &chunk); err != nil {
			return nil, false, err
		}
		if len(chunk.Choices) == 0 {
			return nil, false, nil
		}
		deltas = chunk.Choices[0].Delta.ToolCalls
		finished = chunk.Choices[0].FinishReason != nil && *chunk.Choices[0].FinishReason != ""
	} else if err := json.Unmarshal(line, &deltas); err != nil {
		return nil, false, err
	}
	frags := make([]toolcall.Fragment, 0, len(deltas))
	for i, d := range deltas {
		f, err := fragment(d)
		if err != nil {
			return nil, false, fmt.Errorf("tool call %d: %w", i, err)
		}
		frags = append(frags, f)
	}
	return frags, finished, nil
}

// fragment decodes one tool-call delta object.
func fragment(d json.RawMessage) (toolcall.Fragment, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(d, &members); err != nil {
		return toolcall.Fragment{}, err
	}
	var f toolcall.Fragment
	f.NoIndex = true
	if raw, ok := members["index"]; ok {
		if i, err := strconv.Atoi(string(raw)); err == nil {
			f.Index, f.NoIndex = i, false
		}
	}
	if err := optionalString(members["id"], &f.ID); err != nil {
		return f, fmt.Errorf("id: %w", err)
	}
	if err := optionalString(members["type"], &f.Type); err != nil {
		return f, fmt.Errorf("type: %w", err)
	}
	if raw, ok := members["function"]; ok && string(raw) != "null" {
		var fn struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(raw, &fn); err != nil {
			return f, fmt.Errorf("function: %w", err)
		}
		if fn.Name != nil {
			f.Name = *fn.Name
		}
		args := bytes.TrimSpace(fn.Arguments)
		switch {
		case len(args) == 0 || string(args) == "null":
		case args[0] == '"':
			if err := json.Unmarshal(args, &f.Arguments); err != nil {
				return f, fmt.Errorf("arguments: %w", err)
			}
		default: // an object (or other JSON) sent as is: its text
			f.Arguments = string(args)
		}
	}
	for _, k := range []string{"index", "id", "type", "function"} {
		delete(members, k)
	}
	if len(members) > 0 {
		extra, err := json.Marshal(members)
		if err != nil {
			return f, err
		}
		f.Extra = extra
	}
	return f, nil
}

// optionalString decodes a JSON string into dst; absent and null leave it "".
func optionalString(raw json.RawMessage, dst *string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return errors.New("not a string")
	}
	return nil
}

// output is a finished call in OpenAI's tool_calls shape, with its extras.
type output struct {
	Index    int             `json:"index"`
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Function outputFunction  `json:"function"`
	Extra    json.RawMessage `json:"extra,omitempty"`
}

type outputFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func toOutput(c toolcall.Call) output {
	return output{Index: c.Index, ID: c.ID, Type: c.Type, Function: outputFunction{Name: c.Name, Arguments: c.Arguments}, Extra: c.Extra}
}
