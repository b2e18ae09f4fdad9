package llmstreamtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// geminiWire is Gemini's native API, served on
// /v1beta/models/{model}:streamGenerateContent (the model comes from the
// path; the server answers SSE whether or not the query says alt=sse).
//
// A turn streams as GenerateContentResponse events ("data: <json>\r\n\r\n",
// as the Gemini API frames them), one part per event: the reasoning as
// thought parts, the last of them signed; the text, then the refusal (Gemini
// has none: it is sent as text); the calls, whole by default (args an
// object, id only when the script gives one, the first call signed), or
// with [WithStreamedArguments] opened by name and willContinue, their
// arguments sent leaf by leaf as partialArgs and closed by a part without
// willContinue. Arguments that are not a JSON object go as a string args
// (a client must refuse them); arguments with an empty object or array
// inside, which partial arguments cannot express, go whole even then. The
// last event carries the finishReason ("STOP" unless the turn says
// otherwise), the usage and, for a turn with neither reasoning nor calls,
// the signature on an empty text part; a MALFORMED_FUNCTION_CALL (with its
// finishMessage) or a safety finish comes, as from Gemini, in a candidate
// without content. A FinishReason "blockReason:<REASON>" streams instead
// one event whose promptFeedback blocks the prompt for that reason.
//
// Errors are {"error":{"code","message","status","details"}}, status a
// google.rpc.Code name (400 INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403
// PERMISSION_DENIED, 404 NOT_FOUND, 429 RESOURCE_EXHAUSTED, 500 INTERNAL,
// 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED, ...): the fault's Type when it
// is such a name, else the one of the HTTP status. A 429 lists a
// QuotaFailure, and with [Fault.RetryAfter] a RetryInfo whose retryDelay
// carries the wait (no Retry-After header: Gemini sends none). An
// in-stream error is such a body as an event: the fault's Status, else
// the one its Type names, else 503 UNAVAILABLE. Gemini sends no keep-alives, so
// [Turn.KeepAlive] sends nothing here (Google's SDK fails on a comment).
type geminiWire struct{}

func (geminiWire) dialect() llmstream.Dialect { return llmstream.DialectGemini }
func (geminiWire) end() []byte                { return nil }
func (geminiWire) keepAlive() []byte          { return nil }

// retryInBody tells the server that the wait of a FaultStatus goes in the
// error body, not in a Retry-After header.
func (geminiWire) retryInBody() {}

// geminiModelPath returns the model a Gemini path names.
func geminiModelPath(path string) (string, bool) {
	model, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return "", false
	}
	model, ok = strings.CutSuffix(model, ":streamGenerateContent")
	if !ok || model == "" || strings.Contains(model, "/") {
		return "", false
	}
	return model, true
}

type streamedArgsOption bool

// WithStreamedArguments makes, when on, the Gemini dialect stream each tool
// call's arguments as partialArgs (Gemini 3 on Vertex with
// streamFunctionCallArguments): the call opens with its name, every leaf of
// the arguments follows with its JSON path, strings in pieces of 1 to 6
// bytes, and a last part closes it, either an empty functionCall or the last
// leaf without willContinue (chosen by the seed). The default is off: calls
// whole, as the Gemini API sends them. The other dialects are not affected.
func WithStreamedArguments(on bool) Option { return streamedArgsOption(on) }

func (o streamedArgsOption) apply(c *config) { c.streamArgs = bool(o) }

func (o streamedArgsOption) String() string {
	return fmt.Sprintf("llmstreamtest.WithStreamedArguments(%t)", bool(o))
}

// geminiEvent is one rendered event of a Gemini stream.
func (r *renderer) geminiEvent(o object, final bool) event {
	b, err := appendJSON([]byte("data: "), o)
	if err != nil && r.err == nil {
		r.err = err
	}
	return event{data: append(b, "\r\n\r\n"...), final: final}
}

// geminiChunk is an event whose candidate holds parts.
func (r *renderer) geminiChunk(parts []any, extra object, final bool) event {
	cand := object{{"content", object{{"parts", parts}, {"role", "model"}}}}.join(extra).with("index", 0)
	return r.geminiEvent(object{{"candidates", []any{cand}}, {"modelVersion", r.model}, {"responseId", r.geminiResponseID()}}, final)
}

func (r *renderer) geminiResponseID() string { return "llmstreamtest-" + strconv.Itoa(r.seq) }

// geminiSignature is the signature of one place in the turn: as scripted,
// else one made from the request number and the place.
func (r *renderer) geminiSignature(place string) string {
	if r.turn.Signature != "" {
		return r.turn.Signature
	}
	return base64.StdEncoding.EncodeToString([]byte("llmstreamtest signature " + strconv.Itoa(r.seq) + " " + place))
}

// geminiUsage is the turn's usage as usageMetadata, nil for none.
func geminiUsage(u *llmstream.Usage) any {
	if u == nil {
		return nil
	}
	candidates := max(u.CompletionTokens-u.ReasoningTokens, 0)
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + candidates + u.ReasoningTokens
	}
	o := object{{"promptTokenCount", u.PromptTokens}, {"candidatesTokenCount", candidates}, {"totalTokenCount", total}}
	if u.CachedTokens > 0 {
		o = o.with("cachedContentTokenCount", u.CachedTokens)
	}
	if u.ReasoningTokens > 0 {
		o = o.with("thoughtsTokenCount", u.ReasoningTokens)
	}
	return o
}

func (geminiWire) render(r *renderer) []event {
	t := r.turn
	if reason, ok := strings.CutPrefix(t.FinishReason, "blockReason:"); ok {
		o := object{{"promptFeedback", object{{"blockReason", reason}}}}
		if u := geminiUsage(t.Usage); u != nil {
			o = o.with("usageMetadata", u)
		}
		o = o.join(object{{"modelVersion", r.model}, {"responseId", r.geminiResponseID()}})
		return []event{r.geminiEvent(o, true)}
	}
	var evs []event
	if t.Reasoning != "" {
		pieces := textPieces(t.Reasoning)
		for i, p := range pieces {
			part := object{{"text", p}, {"thought", true}}
			if i == len(pieces)-1 {
				part = part.with("thoughtSignature", r.geminiSignature("thought"))
			}
			evs = append(evs, r.geminiChunk([]any{part}, nil, false))
		}
	}
	for _, s := range []string{t.Text, t.Refusal} {
		for _, p := range textPieces(s) {
			evs = append(evs, r.geminiChunk([]any{object{{"text", p}}}, nil, false))
		}
	}
	for i, c := range t.ToolCalls {
		sig := ""
		if i == 0 {
			sig = r.geminiSignature("call")
		}
		evs = append(evs, r.geminiCall(c, sig)...)
	}
	finish := t.FinishReason
	if finish == "" {
		finish = "STOP"
	}
	last := object{{"text", ""}}
	if t.Reasoning == "" && len(t.ToolCalls) == 0 {
		last = last.with("thoughtSignature", r.geminiSignature("text"))
	}
	cand := object{{"content", object{{"parts", []any{last}}, {"role", "model"}}}, {"finishReason", finish}}
	switch finish {
	case "MALFORMED_FUNCTION_CALL":
		// Gemini sends the candidate of a botched call, and one its safety
		// filters stopped, with no content at all.
		cand = object{{"finishReason", finish}, {"finishMessage", "Malformed function call: llmstreamtest scripted a malformed call"}}
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		cand = object{{"finishReason", finish}}
	}
	fin := object{{"candidates", []any{cand.with("index", 0)}}}
	if u := geminiUsage(t.Usage); u != nil {
		fin = fin.with("usageMetadata", u)
	}
	fin = fin.join(object{{"modelVersion", r.model}, {"responseId", r.geminiResponseID()}})
	return append(evs, r.geminiEvent(fin, true))
}

// geminiCall renders one call: whole, or streamed leaf by leaf.
func (r *renderer) geminiCall(c Call, sig string) []event {
	head := object{{"name", c.Name}}
	if c.ID != "" {
		head = object{{"id", c.ID}, {"name", c.Name}}
	}
	part := func(fc object, sig string) []any {
		p := object{{"functionCall", fc}}
		if sig != "" {
			p = p.with("thoughtSignature", sig)
		}
		return []any{p}
	}
	args := strings.TrimSpace(c.Arguments)
	leaves, ok := argLeaves(args)
	if !r.streamArgs || !ok {
		switch {
		case args == "":
		case ok || (json.Valid([]byte(args)) && args[0] == '{'):
			head = head.with("args", json.RawMessage(args))
		default:
			head = head.with("args", c.Arguments) // not an object: a client must refuse it
		}
		return []event{r.geminiChunk(part(head, sig), nil, false)}
	}
	evs := []event{r.geminiChunk(part(head.with("willContinue", true), sig), nil, false)}
	closeWithLast := r.rng.IntN(2) == 0
	for li, l := range leaves {
		values := []object{{{"numberValue", l.value}}}
		switch l.value.(type) {
		case string:
			values = nil
			for _, p := range argFragments(l.value.(string), r.rng) {
				values = append(values, object{{"stringValue", p}})
			}
			if len(values) == 0 {
				values = []object{{{"stringValue", ""}}}
			}
		case bool:
			values = []object{{{"boolValue", l.value}}}
		case nil:
			values = []object{{{"nullValue", "NULL_VALUE"}}}
		}
		for vi, v := range values {
			pa := object{{"jsonPath", l.path}}.join(v)
			if vi < len(values)-1 {
				pa = pa.with("willContinue", true)
			}
			fc := object{{"partialArgs", []any{pa}}}
			lastOne := closeWithLast && li == len(leaves)-1 && vi == len(values)-1
			if !lastOne {
				fc = fc.with("willContinue", true)
			}
			evs = append(evs, r.geminiChunk(part(fc, ""), nil, false))
		}
	}
	if !closeWithLast {
		evs = append(evs, r.geminiChunk(part(object{}, ""), nil, false))
	}
	return evs
}

// argLeaf is one scalar of an arguments object and its JSON path.
type argLeaf struct {
	path  string
	value any // string, json.Number, bool or nil
}

// argLeaves flattens arguments into their scalars in document order; ok
// is false for text that is not one JSON object, or that holds an empty
// object or array or a member name twice in one object (partial arguments
// cannot say those).
func argLeaves(args string) ([]argLeaf, bool) {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []argLeaf
	var walk func(path string, obj bool) bool
	walk = func(path string, obj bool) bool {
		n := 0
		seen := map[string]bool{}
		for dec.More() {
			p := path
			if obj {
				k, err := dec.Token()
				if err != nil || seen[k.(string)] {
					return false
				}
				seen[k.(string)] = true
				p += geminiPathName(k.(string))
			} else {
				p += "[" + strconv.Itoa(n) + "]"
			}
			n++
			tok, err := dec.Token()
			if err != nil {
				return false
			}
			if d, ok := tok.(json.Delim); ok {
				if !walk(p, d == '{') {
					return false
				}
				continue
			}
			out = append(out, argLeaf{p, tok})
		}
		_, err := dec.Token()
		return err == nil && n > 0
	}
	if !walk("$", true) {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return out, true
}

// geminiPathName is a member step: .name when the name is plain, else
// ['name'] with its quote and backslashes escaped.
func geminiPathName(k string) string {
	plain := k != ""
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	var b strings.Builder
	b.WriteString("['")
	for _, c := range k {
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString("']")
	return b.String()
}

// geminiStatus is the google.rpc status name of an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case 400, 405, 413, 422:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 408, 504:
		return "DEADLINE_EXCEEDED"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

// geminiRetryDelay is a Retry-After value as a google.protobuf.Duration
// ("7s"), "" when it is neither delay seconds nor a date.
func geminiRetryDelay(v string) string {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && !math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64) + "s"
	}
	if t, err := http.ParseTime(v); err == nil {
		return strconv.Itoa(int(math.Ceil(max(time.Until(t), 0).Seconds()))) + "s"
	}
	return ""
}

// geminiCodes are the values Gemini sends in error.status (google.rpc.Code
// names) and the HTTP status each goes with.
var geminiCodes = map[string]int{
	"CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504,
	"NOT_FOUND": 404, "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "UNAUTHENTICATED": 401,
	"RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400, "ABORTED": 409, "OUT_OF_RANGE": 400,
	"UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500,
}

// geminiError is Gemini's error object for an answer with status. Its
// "status" is a google.rpc.Code name, as Gemini sends: the fault's Type
// when it is one, else the name that goes with status — never a word of
// another provider's ("server_error").
func geminiError(status int, f Fault) []byte {
	name := f.Type
	if _, ok := geminiCodes[name]; !ok {
		name = geminiStatus(status)
	}
	e := object{{"code", status}, {"message", f.message()}, {"status", name}}
	if status == http.StatusTooManyRequests {
		details := []any{object{{"@type", "type.googleapis.com/google.rpc.QuotaFailure"}, {"violations", []any{object{
			{"quotaMetric", "generativelanguage.googleapis.com/generate_content_free_tier_requests"},
			{"quotaId", "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}, {"quotaValue", "10"}}}}}}
		if d := geminiRetryDelay(f.RetryAfter); d != "" {
			details = append(details, object{{"@type", "type.googleapis.com/google.rpc.RetryInfo"}, {"retryDelay", d}})
		}
		e = e.with("details", details)
	}
	b, _ := appendJSON(nil, object{{"error", e}})
	return b
}

func (geminiWire) errorBody(status int, f Fault) []byte { return geminiError(status, f) }

// errorEvent is Gemini's in-stream error: the error body as an event,
// after which the stream ends.
func (geminiWire) errorEvent(_ *renderer, f Fault) []byte {
	status := f.Status
	if status == 0 {
		status = geminiCodes[f.Type] // the HTTP status a Gemini status name goes with
	}
	if status == 0 {
		status = http.StatusServiceUnavailable // "The model is overloaded", in practice
	}
	b := append([]byte("data: "), geminiError(status, f)...)
	return append(b, "\r\n\r\n"...)
}

func (geminiWire) malformed(*renderer) []byte {
	return []byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"unterminated\r\n\r\n")
}

// gemPart is a request part as the server reads it.
type gemPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type gemContent struct {
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

// decode reads a generateContent request into the neutral form:
// systemInstruction becomes a system message per part, each user text part
// a user message, each functionResponse a tool message (its id, else the
// id of the call it answers by name; a response that is {"result": text}
// or {"error": text} alone gives that text), a model turn one assistant
// message whose calls have Gemini's id or call_<n> like the client's, and
// whose thought parts, other parts, signatures and ids are its Continuity.
func (geminiWire) decode(r *Request) error {
	var w struct {
		Contents          *[]gemContent `json:"contents"`
		SystemInstruction *gemContent   `json:"systemInstruction"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	if w.Contents == nil {
		return errors.New(`"contents" is missing`)
	}
	r.Stream = true // the endpoint is the streaming one
	if w.SystemInstruction != nil {
		for i, raw := range w.SystemInstruction.Parts {
			var p gemPart
			if err := json.Unmarshal(raw, &p); err != nil {
				return fmt.Errorf("systemInstruction.parts[%d]: %w", i, err)
			}
			if p.Text != nil {
				r.Messages = append(r.Messages, llmstream.Message{Role: "system", Content: *p.Text})
			}
		}
	}
	for i, c := range *w.Contents {
		var err error
		if c.Role == "model" {
			err = r.geminiModel(c.Parts)
		} else {
			err = r.geminiUser(c.Parts)
		}
		if err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
	}
	for _, t := range w.Tools {
		for _, f := range t.FunctionDeclarations {
			params := f.Parameters
			if params == nil {
				params = f.ParametersJSONSchema
			}
			r.Tools = append(r.Tools, llmstream.Tool{Type: "function", Function: llmstream.ToolFunction{Name: f.Name, Description: f.Description, Parameters: params}})
		}
	}
	return nil
}

func (r *Request) geminiModel(parts []json.RawMessage) error {
	m := llmstream.Message{Role: "assistant"}
	var blocks []llmstream.Block
	state := false
	for i, raw := range parts {
		var p gemPart
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("parts[%d]: %w", i, err)
		}
		switch {
		case p.FunctionCall != nil:
			n := len(m.ToolCalls)
			args := "{}"
			if a := bytes.TrimSpace(p.FunctionCall.Args); len(a) > 0 && string(a) != "null" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, a); err != nil {
					return fmt.Errorf("parts[%d] functionCall args: %w", i, err)
				}
				args = buf.String()
			}
			id := p.FunctionCall.ID
			if id == "" {
				id = "call_" + strconv.Itoa(n)
			}
			m.ToolCalls = append(m.ToolCalls, llmstream.ToolCall{ID: id, Type: "function", Function: llmstream.FunctionCall{Name: p.FunctionCall.Name, Arguments: args}})
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockToolCall, Call: n, ID: p.FunctionCall.ID, Signature: p.ThoughtSignature})
			state = state || p.FunctionCall.ID != "" || p.ThoughtSignature != ""
		case p.Text != nil && !p.Thought:
			m.Content += *p.Text
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockText, Bytes: len(*p.Text), Signature: p.ThoughtSignature})
			state = state || p.ThoughtSignature != ""
		default:
			typ := "thought"
			if !p.Thought {
				typ = partType(raw)
			}
			blocks = append(blocks, llmstream.Block{Type: typ, Raw: bytes.Clone(raw), Signature: p.ThoughtSignature})
			state = true
		}
	}
	if state {
		m.Continuity = &llmstream.Continuity{Dialect: llmstream.DialectGemini, Blocks: blocks}
	}
	r.Messages = append(r.Messages, m)
	return nil
}

// partType is the member that names a part's kind ("executableCode", ...).
func partType(raw json.RawMessage) string {
	var members map[string]json.RawMessage
	json.Unmarshal(raw, &members)
	for k := range members {
		switch k {
		case "thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution":
		default:
			return k
		}
	}
	return "part"
}

func (r *Request) geminiUser(parts []json.RawMessage) error {
	for i, raw := range parts {
		var p gemPart
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("parts[%d]: %w", i, err)
		}
		switch {
		case p.FunctionResponse != nil:
			fr := p.FunctionResponse
			m := llmstream.Message{Role: "tool", ToolCallID: fr.ID}
			if m.ToolCallID == "" {
				m.ToolCallID = r.answered(fr.Name)
			}
			var one map[string]json.RawMessage
			text, isText := "", false
			if json.Unmarshal(fr.Response, &one) == nil && len(one) == 1 {
				for k, v := range one {
					if (k == "result" || k == "error") && json.Unmarshal(v, &text) == nil {
						isText, m.IsError = true, k == "error"
					}
				}
			}
			if isText {
				m.Content = text
			} else {
				var buf bytes.Buffer
				if err := json.Compact(&buf, fr.Response); err != nil {
					return fmt.Errorf("parts[%d] functionResponse response: %w", i, err)
				}
				m.Content = buf.String()
			}
			r.Messages = append(r.Messages, m)
		case p.Text != nil:
			r.Messages = append(r.Messages, llmstream.Message{Role: "user", Content: *p.Text})
		}
	}
	return nil
}

// answered is the id of the first call named name, in the latest
// assistant message, that no tool message has answered yet.
func (r *Request) answered(name string) string {
	done := map[string]bool{}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "tool" {
			done[m.ToolCallID] = true
			continue
		}
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.ToolCalls {
			if c.Function.Name == name && !done[c.ID] {
				return c.ID
			}
		}
		return ""
	}
	return ""
}
