package llmstreamtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// decoded is what the in-test decoder read from a stream. It is
// deliberately simple and independent of the llmstream bridge, so the
// server's tests do not depend on the code they help test.
type decoded struct {
	msg        llmstream.Message
	done       bool              // data: [DONE] was read
	afterDone  int               // lines after [DONE]
	comments   []string          // comment lines, without the colon
	errors     []json.RawMessage // top-level "error" members of data events
	errorLines []string          // values of "error:" lines
	malformed  []string          // data that is not JSON
	chunks     []json.RawMessage // every JSON data event, in order
	fragments  []string          // every argument fragment, in order
	callIndex  []int             // the stream index of each of msg.ToolCalls
}

type testChunk struct {
	Choices []struct {
		Delta *struct {
			Role             *string           `json:"role"`
			Content          *string           `json:"content"`
			Reasoning        *string           `json:"reasoning"`
			ReasoningContent *string           `json:"reasoning_content"`
			Refusal          *string           `json:"refusal"`
			ToolCalls        []json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *llmstream.Usage `json:"usage"`
	Error json.RawMessage  `json:"error"`
}

// decodeStream reads an SSE body the server wrote, one line at a time.
// Calls with an index are merged by index; a call without one (Gemini) is
// a new call.
func decodeStream(body []byte) (decoded, error) {
	var d decoded
	index := map[int]int{} // stream index → position in msg.ToolCalls
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			continue
		case d.done:
			d.afterDone++
		case strings.HasPrefix(line, ":"):
			d.comments = append(d.comments, line[1:])
		case strings.HasPrefix(line, "error: "):
			d.errorLines = append(d.errorLines, strings.TrimPrefix(line, "error: "))
		case line == "data: [DONE]":
			d.done = true
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			if !json.Valid(data) {
				d.malformed = append(d.malformed, string(data))
				continue
			}
			d.chunks = append(d.chunks, data)
			if err := d.chunk(data, index); err != nil {
				return d, err
			}
		default:
			return d, fmt.Errorf("unexpected line %q", line)
		}
	}
	// Calls in index order, as a client orders them.
	order := make([]int, len(d.msg.ToolCalls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return d.callIndex[order[a]] < d.callIndex[order[b]] })
	var calls []llmstream.ToolCall
	for _, i := range order {
		calls = append(calls, d.msg.ToolCalls[i])
	}
	d.msg.ToolCalls = calls
	return d, sc.Err()
}

func (d *decoded) chunk(data []byte, index map[int]int) error {
	var c testChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return err
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		d.errors = append(d.errors, c.Error)
	}
	if c.Usage != nil {
		d.msg.Usage = c.Usage
	}
	for _, ch := range c.Choices {
		if dl := ch.Delta; dl != nil {
			if dl.Role != nil {
				d.msg.Role = *dl.Role
			}
			if dl.Content != nil {
				d.msg.Content += *dl.Content
			}
			if dl.Reasoning != nil {
				d.msg.Reasoning += *dl.Reasoning
			}
			if dl.ReasoningContent != nil {
				d.msg.Reasoning += *dl.ReasoningContent
			}
			if dl.Refusal != nil {
				d.msg.Refusal += *dl.Refusal
			}
			for _, raw := range dl.ToolCalls {
				if err := d.toolCall(raw, index); err != nil {
					return err
				}
			}
		}
		if ch.FinishReason != nil {
			d.msg.FinishReason = *ch.FinishReason
		}
	}
	return nil
}

func (d *decoded) toolCall(raw json.RawMessage, index map[int]int) error {
	var tc llmstream.ToolCall
	if err := json.Unmarshal(raw, &tc); err != nil {
		return err
	}
	var ix struct{ Index *int }
	if err := json.Unmarshal(raw, &ix); err != nil {
		return err
	}
	d.fragments = append(d.fragments, tc.Function.Arguments)
	pos, ok := -1, false
	if ix.Index != nil {
		pos, ok = index[*ix.Index]
	}
	if !ok {
		pos = len(d.msg.ToolCalls)
		d.msg.ToolCalls = append(d.msg.ToolCalls, tc)
		d.callIndex = append(d.callIndex, pos)
		if ix.Index != nil {
			index[*ix.Index] = pos
			d.callIndex[pos] = *ix.Index
		}
		return nil
	}
	d.msg.ToolCalls[pos].Function.Arguments += tc.Function.Arguments
	return nil
}
