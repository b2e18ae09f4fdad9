package llmstreamtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
)

// bedrockWire is Amazon Bedrock's ConverseStream, served on
// /model/{modelId}/converse-stream (the model comes from the path). The
// answer is AWS event-stream frames (application/vnd.amazon.eventstream),
// not SSE, each an event frame (":message-type" event, ":event-type" its
// name, ":content-type" application/json) whose payload carries Bedrock's
// padding member "p".
//
// A turn streams as messageStart, then one content block per part, each
// ended by contentBlockStop: the reasoning as reasoningContent text deltas
// and a signature delta; the text, then the refusal (Bedrock has none: it
// is sent as text) as text deltas; each call opened by contentBlockStart
// with its toolUse id and name, its input in 1–6 byte toolUse deltas. Then
// messageStop with the stop reason ("tool_use" with calls, else
// "end_turn", unless the turn says otherwise) and metadata with the usage,
// a latency and, when the turn names a Model, a prompt router's trace.
//
// Errors: an HTTP error is {"message":...} with its type in the
// x-amzn-ErrorType header (ValidationException, ThrottlingException, ...,
// by status, unless the fault names one of ConverseStream's errors); an
// in-stream error is an exception frame (":message-type" exception,
// ":exception-type" one of the five ConverseStream's stream carries:
// the fault's Type when it names one, else by its Status, else
// modelStreamErrorException). A Type in another provider's words
// ("server_error") is never sent as a Bedrock exception: a client reads an
// exception type it does not know as no error at all. A malformed event is
// a frame whose message CRC is wrong, and a cut connection ends inside a
// frame. Bedrock sends no keep-alives.
type bedrockWire struct{}

func (bedrockWire) dialect() llmstream.Dialect { return llmstream.DialectBedrock }
func (bedrockWire) end() []byte                { return nil }
func (bedrockWire) keepAlive() []byte          { return nil }
func (bedrockWire) contentType() string        { return "application/vnd.amazon.eventstream" }

const bedrockPaths = "/model/{modelId}/converse-stream"

// bedrockModelPath returns the model a ConverseStream path names.
func bedrockModelPath(path string) (string, bool) {
	model, ok := strings.CutPrefix(path, "/model/")
	if !ok {
		return "", false
	}
	model, ok = strings.CutSuffix(model, "/converse-stream")
	return model, ok && model != ""
}

// bedrockFrame is one frame of headers and payload.
func bedrockFrame(payload []byte, headers ...string) []byte {
	m := eventstream.Message{Payload: payload}
	for i := 0; i+1 < len(headers); i += 2 {
		m.Headers = append(m.Headers, eventstream.Header{Name: headers[i], Value: eventstream.String(headers[i+1])})
	}
	b, err := eventstream.AppendFrame(nil, m)
	if err != nil {
		panic(err) // the headers are this file's own, always valid
	}
	return b
}

// bedrockEvent is one rendered event frame.
func (r *renderer) bedrockEvent(typ string, o object, final bool) event {
	b, err := appendJSON(nil, o.with("p", bedrockPadding[:1+r.rng.IntN(len(bedrockPadding)-1)]))
	if err != nil && r.err == nil {
		r.err = err
	}
	return event{data: bedrockFrame(b, ":event-type", typ, ":content-type", "application/json", ":message-type", "event"), final: final}
}

// bedrockPadding is where the "p" member's text comes from: Bedrock pads
// its events with a run of letters so that their sizes say nothing.
const bedrockPadding = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"

func (bedrockWire) render(r *renderer) []event {
	t := r.turn
	evs := []event{r.bedrockEvent("messageStart", object{{"role", "assistant"}}, false)}
	index := 0
	stop := func() {
		evs = append(evs, r.bedrockEvent("contentBlockStop", object{{"contentBlockIndex", index}}, false))
		index++
	}
	if t.Reasoning != "" {
		for _, p := range textPieces(t.Reasoning) {
			evs = append(evs, r.bedrockEvent("contentBlockDelta", object{{"contentBlockIndex", index},
				{"delta", object{{"reasoningContent", object{{"text", p}}}}}}, false))
		}
		evs = append(evs, r.bedrockEvent("contentBlockDelta", object{{"contentBlockIndex", index},
			{"delta", object{{"reasoningContent", object{{"signature", r.bedrockSignature()}}}}}}, false))
		stop()
	}
	for _, s := range []string{t.Text, t.Refusal} {
		if s == "" {
			continue
		}
		for _, p := range textPieces(s) {
			evs = append(evs, r.bedrockEvent("contentBlockDelta", object{{"contentBlockIndex", index}, {"delta", object{{"text", p}}}}, false))
		}
		stop()
	}
	for i, c := range t.ToolCalls {
		id := c.ID
		if id == "" {
			id = "tooluse_" + strconv.Itoa(r.seq) + "_" + strconv.Itoa(i)
		}
		evs = append(evs, r.bedrockEvent("contentBlockStart", object{{"contentBlockIndex", index},
			{"start", object{{"toolUse", object{{"name", c.Name}, {"toolUseId", id}}}}}}, false))
		for _, f := range argFragments(c.Arguments, r.rng) {
			evs = append(evs, r.bedrockEvent("contentBlockDelta", object{{"contentBlockIndex", index},
				{"delta", object{{"toolUse", object{{"input", f}}}}}}, false))
		}
		stop()
	}
	reason := t.FinishReason
	switch {
	case reason != "":
	case len(t.ToolCalls) > 0:
		reason = "tool_use"
	default:
		reason = "end_turn"
	}
	u := t.Usage
	if u == nil {
		u = &llmstream.Usage{}
	}
	usage := object{{"inputTokens", u.PromptTokens}, {"outputTokens", u.CompletionTokens}, {"totalTokens", u.TotalTokens}}
	if u.CachedTokens > 0 || u.CacheWriteTokens > 0 {
		usage = usage.with("cacheReadInputTokens", u.CachedTokens).with("cacheWriteInputTokens", u.CacheWriteTokens)
	}
	meta := object{{"usage", usage}, {"metrics", object{{"latencyMs", 100 + r.seq}}}}
	if t.Model != "" {
		meta = meta.with("trace", object{{"promptRouter", object{{"invokedModelId", t.Model}}}})
	}
	return append(evs,
		r.bedrockEvent("messageStop", object{{"stopReason", reason}}, true),
		r.bedrockEvent("metadata", meta, true))
}

// bedrockSignature is the reasoning's signature: as scripted, else made
// from the request number.
func (r *renderer) bedrockSignature() string {
	if r.turn.Signature != "" {
		return r.turn.Signature
	}
	return base64.StdEncoding.EncodeToString([]byte("llmstreamtest signature " + strconv.Itoa(r.seq)))
}

// bedrockErrors are the errors ConverseStream answers with over HTTP (the
// x-amzn-ErrorType of AWS's API reference), by the status each goes with.
var bedrockErrors = map[string]int{
	"AccessDeniedException": 403, "InternalServerException": 500, "ModelErrorException": 424,
	"ModelNotReadyException": 429, "ModelTimeoutException": 408, "ResourceNotFoundException": 404,
	"ServiceUnavailableException": 503, "ThrottlingException": 429, "ValidationException": 400,
	"ModelStreamErrorException": 424,
}

// bedrockStreamExceptions are the exceptions ConverseStream's stream
// carries, as its :exception-type names them.
var bedrockStreamExceptions = map[string]bool{
	"internalServerException": true, "modelStreamErrorException": true, "serviceUnavailableException": true,
	"throttlingException": true, "validationException": true,
}

// bedrockErrorType is the x-amzn-ErrorType of an HTTP error: the fault's
// Type when it is one of ConverseStream's errors (in either case of its
// first letter), else the one that goes with status.
func bedrockErrorType(status int, f Fault) string {
	if t := upperFirst(f.Type); bedrockErrors[t] != 0 {
		return t
	}
	switch status {
	case 400, 413, 422:
		return "ValidationException"
	case 401, 403:
		return "AccessDeniedException"
	case 404:
		return "ResourceNotFoundException"
	case 408:
		return "ModelTimeoutException"
	case 424:
		return "ModelErrorException"
	case 429:
		return "ThrottlingException"
	case 503, 529:
		return "ServiceUnavailableException"
	}
	return "InternalServerException"
}

// bedrockStreamException is the :exception-type of an in-stream error: the
// fault's Type when it is one of the five, else the one its Status goes
// with, else modelStreamErrorException.
func bedrockStreamException(f Fault) string {
	if t := lowerFirst(f.Type); bedrockStreamExceptions[t] {
		return t
	}
	switch s := f.Status; {
	case s == 400 || s == 413 || s == 422:
		return "validationException"
	case s == 429:
		return "throttlingException"
	case s == 503 || s == 529:
		return "serviceUnavailableException"
	case s >= 500:
		return "internalServerException"
	}
	return "modelStreamErrorException"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func (bedrockWire) errorBody(_ int, f Fault) []byte {
	b, _ := json.Marshal(object{{"message", f.message()}})
	return b
}

// errorHeader sets the header that names an HTTP error's type.
func (bedrockWire) errorHeader(h http.Header, status int, f Fault) {
	h.Set("X-Amzn-ErrorType", bedrockErrorType(status, f)+":http://internal.amazon.com/coral/com.amazon.bedrock/")
}

// errorEvent is an exception frame, after which the stream ends.
func (bedrockWire) errorEvent(_ *renderer, f Fault) []byte {
	t := bedrockStreamException(f)
	b, _ := json.Marshal(object{{"message", f.message()}})
	return bedrockFrame(b, ":exception-type", t, ":content-type", "application/json", ":message-type", "exception")
}

// malformed is a text delta whose message CRC is wrong.
func (bedrockWire) malformed(r *renderer) []byte {
	b := bedrockFrame([]byte(`{"contentBlockIndex":0,"delta":{"text":"corrupt"}}`), ":event-type", "contentBlockDelta", ":message-type", "event")
	b[len(b)-1] ^= 0xff
	return b
}

// cutFrame is the start of a frame, written before the connection drops.
func (bedrockWire) cutFrame(r *renderer) []byte {
	b := bedrockFrame([]byte(`{"contentBlockIndex":0,"delta":{"text":"never whole"}}`), ":event-type", "contentBlockDelta", ":message-type", "event")
	return b[:len(b)/2]
}

type bedrockBlock struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string `json:"toolUseId"`
		Content   []struct {
			Text *string         `json:"text"`
			JSON json.RawMessage `json:"json"`
		} `json:"content"`
		Status string `json:"status"`
	} `json:"toolResult"`
	ReasoningContent json.RawMessage `json:"reasoningContent"`
}

// decode reads a Converse request into the neutral form: "system" becomes
// a system message, toolResult blocks tool messages, an assistant's
// toolUse blocks its calls and its reasoningContent blocks its Continuity,
// in their order. The path says the answer streams.
func (bedrockWire) decode(r *Request) error {
	var w struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		ToolConfig *struct {
			Tools []struct {
				ToolSpec struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					InputSchema struct {
						JSON json.RawMessage `json:"json"`
					} `json:"inputSchema"`
				} `json:"toolSpec"`
			} `json:"tools"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	if w.Messages == nil {
		return fmt.Errorf(`"messages" is missing`)
	}
	r.Stream = true
	var sys []string
	for _, s := range w.System {
		sys = append(sys, s.Text)
	}
	if len(sys) > 0 {
		r.Messages = append(r.Messages, llmstream.Message{Role: "system", Content: strings.Join(sys, "\n\n")})
	}
	for i, m := range w.Messages {
		msgs, err := bedrockMessage(m.Role, m.Content)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		r.Messages = append(r.Messages, msgs...)
	}
	if tc := w.ToolConfig; tc != nil {
		for _, t := range tc.Tools {
			s := t.ToolSpec
			r.Tools = append(r.Tools, llmstream.Tool{Type: "function", Function: llmstream.ToolFunction{Name: s.Name, Description: s.Description, Parameters: s.InputSchema.JSON}})
		}
	}
	return nil
}

// bedrockMessage reads one message into neutral messages: a user turn may
// hold tool results (each a tool message) and text.
func bedrockMessage(role string, content []json.RawMessage) ([]llmstream.Message, error) {
	var out []llmstream.Message
	asst := llmstream.Message{Role: "assistant"}
	var blocks []llmstream.Block
	raw := false
	for _, rb := range content {
		var b bedrockBlock
		if err := json.Unmarshal(rb, &b); err != nil {
			return nil, err
		}
		switch {
		case role == "assistant" && b.Text != nil:
			asst.Content += *b.Text
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockText, Bytes: len(*b.Text)})
		case role == "assistant" && b.ToolUse != nil:
			var args bytes.Buffer
			if err := json.Compact(&args, b.ToolUse.Input); err != nil {
				return nil, fmt.Errorf("toolUse %q input: %w", b.ToolUse.ToolUseID, err)
			}
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockToolCall, Call: len(asst.ToolCalls)})
			asst.ToolCalls = append(asst.ToolCalls, llmstream.ToolCall{ID: b.ToolUse.ToolUseID, Type: "function",
				Function: llmstream.FunctionCall{Name: b.ToolUse.Name, Arguments: args.String()}})
		case role == "assistant" && b.ReasoningContent != nil:
			blocks = append(blocks, llmstream.Block{Type: "reasoningContent", Raw: bytes.Clone(b.ReasoningContent)})
			raw = true
		case b.ToolResult != nil:
			var text strings.Builder
			for _, c := range b.ToolResult.Content {
				if c.Text != nil {
					text.WriteString(*c.Text)
				} else {
					text.Write(c.JSON)
				}
			}
			out = append(out, llmstream.Message{Role: "tool", ToolCallID: b.ToolResult.ToolUseID, Content: text.String(), IsError: b.ToolResult.Status == "error"})
		case b.Text != nil:
			if n := len(out); n > 0 && out[n-1].Role == role {
				out[n-1].Content += *b.Text
			} else {
				out = append(out, llmstream.Message{Role: role, Content: *b.Text})
			}
		}
	}
	if role != "assistant" {
		return out, nil
	}
	if raw {
		asst.Continuity = &llmstream.Continuity{Dialect: llmstream.DialectBedrock, Blocks: blocks}
	}
	return []llmstream.Message{asst}, nil
}
