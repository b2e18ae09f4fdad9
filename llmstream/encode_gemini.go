package llmstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file writes Gemini generateContent requests from the neutral
// Request. The model is not in the body: it is in the URL (see
// geminiProtocol.endpoint).

type gemRequest struct {
	Contents          []gemContent  `json:"contents"`
	SystemInstruction *gemContent   `json:"systemInstruction,omitempty"`
	Tools             []gemTool     `json:"tools,omitempty"`
	ToolConfig        *gemToolConf  `json:"toolConfig,omitempty"`
	GenerationConfig  *gemGenConfig `json:"generationConfig,omitempty"`
}

type gemContent struct {
	Role  string            `json:"role,omitempty"`
	Parts []json.RawMessage `json:"parts"`
}

type gemTool struct {
	FunctionDeclarations []gemFunction `json:"functionDeclarations"`
}

// gemFunction is a function declaration. Its parameters go as
// parametersJsonSchema, which takes JSON Schema as tools declare it:
// "parameters" takes only Gemini's OpenAPI subset and refuses the request
// (400 INVALID_ARGUMENT, "Unknown name \"additionalProperties\"") for
// additionalProperties, $schema, $ref and the like, which schemas generated
// from Go types and MCP servers' tools carry.
type gemFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type gemToolConf struct {
	FunctionCallingConfig gemCallingConf `json:"functionCallingConfig"`
}

type gemCallingConf struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type gemGenConfig struct {
	MaxOutputTokens *int         `json:"maxOutputTokens,omitempty"`
	Temperature     *float64     `json:"temperature,omitempty"`
	TopP            *float64     `json:"topP,omitempty"`
	StopSequences   []string     `json:"stopSequences,omitempty"`
	ThinkingConfig  *gemThinking `json:"thinkingConfig,omitempty"`

	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

type gemThinking struct {
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
}

type gemTextPart struct {
	Text             string `json:"text"`
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

type gemCallPart struct {
	FunctionCall     gemCall `json:"functionCall"`
	ThoughtSignature string  `json:"thoughtSignature,omitempty"`
}

type gemCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type gemResponsePart struct {
	FunctionResponse gemResponse `json:"functionResponse"`
}

type gemResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// encode writes the generateContent request: system messages become
// systemInstruction, the rest contents of role "user" or "model", with
// consecutive turns of one role merged (tool answers and the user message
// after them are one user turn); an assistant's calls become functionCall
// parts, each tool answer a functionResponse part named after the call it
// answers, and an assistant's Gemini state (thought parts, signatures,
// call ids) goes back where it was. For Gemini 3 and later, an assistant
// whose calls are all unsigned gets Google's sentinel on its first one (see
// geminiSkipSignature).
func (geminiProtocol) encode(r *Request, _ *config) ([]byte, error) {
	r.Messages = portable(r.Messages, DialectGemini) // a conversation may come from another dialect
	w := gemRequest{Contents: []gemContent{}}
	checked := geminiChecksSignatures(r.Model)
	var system []json.RawMessage
	for i := range r.Messages {
		m := &r.Messages[i]
		var role string
		var parts []json.RawMessage
		var err error
		switch m.Role {
		case "system", "developer":
			if m.Content != "" {
				part, err := json.Marshal(gemTextPart{Text: m.Content})
				if err != nil {
					return nil, err
				}
				system = append(system, part)
			}
			continue
		case "assistant":
			role = "model"
			parts, err = geminiAssistant(m)
			if err == nil && checked {
				err = signStep(parts)
			}
		case "tool":
			role = "user"
			parts, err = geminiToolAnswer(r.Messages[:i], m)
		default:
			role = "user"
			if m.Content != "" {
				var part []byte
				part, err = json.Marshal(gemTextPart{Text: m.Content})
				parts = []json.RawMessage{part}
			}
		}
		if err != nil {
			return nil, err
		}
		if len(parts) == 0 {
			continue // Gemini refuses a turn without parts
		}
		if n := len(w.Contents); n > 0 && w.Contents[n-1].Role == role {
			w.Contents[n-1].Parts = append(w.Contents[n-1].Parts, parts...)
			continue
		}
		w.Contents = append(w.Contents, gemContent{Role: role, Parts: parts})
	}
	if len(system) > 0 {
		w.SystemInstruction = &gemContent{Parts: system}
	}
	if len(r.Tools) > 0 {
		decls := make([]gemFunction, len(r.Tools))
		for i, t := range r.Tools {
			decls[i] = gemFunction{Name: t.Function.Name, Description: t.Function.Description}
			if !emptySchema(t.Function.Parameters) {
				decls[i].Parameters = t.Function.Parameters
			}
		}
		w.Tools = []gemTool{{FunctionDeclarations: decls}}
	}
	w.ToolConfig = geminiToolConfig(r.ToolChoice)
	var err error
	if w.GenerationConfig, err = geminiGeneration(r); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// emptySchema reports parameters that declare nothing: none, or an object
// schema without properties, which Gemini refuses ("properties: should be
// non-empty for OBJECT type"); such a function is sent without parameters.
func emptySchema(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	for k, v := range s {
		switch k {
		case "type":
			if string(bytes.TrimSpace(v)) != `"object"` {
				return false
			}
		case "properties":
			var props map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil || len(props) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// geminiToolConfig is the toolConfig for a choice; nil sends none.
func geminiToolConfig(c ToolChoice) *gemToolConf {
	var mode string
	var names []string
	switch c.Mode {
	case ToolChoiceAuto:
		mode = "AUTO"
	case ToolChoiceNone:
		mode = "NONE"
	case ToolChoiceRequired:
		mode = "ANY"
	case ToolChoiceFunction:
		mode, names = "ANY", []string{c.Name}
	default:
		return nil
	}
	return &gemToolConf{gemCallingConf{Mode: mode, AllowedFunctionNames: names}}
}

// geminiLevels are the thinkingLevel values Gemini takes.
var geminiLevels = []string{"MINIMAL", "LOW", "MEDIUM", "HIGH"}

// geminiGeneration is the generationConfig; nil when nothing is set. A
// thinking budget wins over an effort (Gemini refuses both at once), and
// thinking that is on includes the thoughts, so the reasoning shows. An
// effort is a thinkingLevel of Gemini's enum, in its case ("LOW"); "none"
// is no level but thinking off, a budget of 0, as Anthropic and Bedrock
// take it; any other effort is refused here rather than by Gemini.
func geminiGeneration(r *Request) (*gemGenConfig, error) {
	g := gemGenConfig{MaxOutputTokens: r.maxTokens(), Temperature: r.Temperature, TopP: r.TopP, StopSequences: r.Stop}
	switch {
	case r.ThinkingBudget != nil:
		g.ThinkingConfig = &gemThinking{ThinkingBudget: r.ThinkingBudget, IncludeThoughts: *r.ThinkingBudget != 0}
	case r.ReasoningEffort == "none":
		g.ThinkingConfig = &gemThinking{ThinkingBudget: new(int)}
	case r.ReasoningEffort != "":
		level := strings.ToUpper(r.ReasoningEffort)
		if !slices.Contains(geminiLevels, level) {
			return nil, fmt.Errorf("reasoning effort %q is no Gemini thinkingLevel (want minimal, low, medium, high or none, or set ThinkingBudget)", r.ReasoningEffort)
		}
		g.ThinkingConfig = &gemThinking{ThinkingLevel: level, IncludeThoughts: true}
	}
	geminiOutput(&g, r.Output)
	if g.MaxOutputTokens == nil && g.Temperature == nil && g.TopP == nil && len(g.StopSequences) == 0 && g.ThinkingConfig == nil && g.ResponseMimeType == "" {
		return nil, nil
	}
	return &g, nil
}

// geminiAssistant writes an assistant's parts: from its Gemini state when
// it has one (thoughts, then text and calls with their signatures, in the
// order they came), else its text and then its calls.
func geminiAssistant(m *Message) ([]json.RawMessage, error) {
	var out []json.RawMessage
	if c := m.Continuity; c != nil && c.Dialect == DialectGemini {
		if placed, ok := placeBlocks(m, c.Blocks); ok {
			for _, p := range placed {
				var part json.RawMessage
				var err error
				switch {
				case p.call != nil:
					var id, sig string
					if p.block != nil {
						id, sig = p.block.ID, p.block.Signature
					}
					part, err = geminiCallPart(p.call, id, sig)
				case p.text:
					if p.content != "" || p.block.Signature != "" {
						part, err = json.Marshal(gemTextPart{Text: p.content, ThoughtSignature: p.block.Signature})
					}
				default:
					part = p.raw
				}
				if err != nil {
					return nil, err
				}
				if len(part) > 0 {
					out = append(out, part)
				}
			}
			return out, nil
		}
		// The message no longer matches its state: the provider's own
		// pieces first, then the text and the calls, unsigned.
		for _, blk := range c.Blocks {
			if len(blk.Raw) > 0 {
				out = append(out, blk.Raw)
			}
		}
	}
	if m.Content != "" {
		part, err := json.Marshal(gemTextPart{Text: m.Content})
		if err != nil {
			return nil, err
		}
		out = append(out, part)
	}
	for i := range m.ToolCalls {
		part, err := geminiCallPart(&m.ToolCalls[i], "", extraSignature(m.ToolCalls[i].Extra))
		if err != nil {
			return nil, err
		}
		out = append(out, part)
	}
	return out, nil
}

// geminiSkipSignature is the thoughtSignature Google documents for a call
// whose real one is not at hand, which Gemini takes without validating it
// (https://ai.google.dev/gemini-api/docs/thought-signatures). Gemini 3
// refuses a model turn with unsigned calls (400 "Function call is missing
// a thought_signature in functionCall parts"). A conversation has such calls
// whenever they did not come from Gemini with their state: from another
// dialect, a hand-built or trimmed history, a message edited so that its
// state no longer fits it.
const geminiSkipSignature = "skip_thought_signature_validator"

// geminiChecksSignatures reports whether model is Gemini 3 or later, which
// validates call signatures: "gemini-<major>" followed by "." or "-", with
// major 3 or more, alone or after "models/" or a path ending in "/models/"
// (Vertex's "publishers/google/models/..."). Other names (tuned models,
// "gemini-exp-1206", "learnlm-...") are not taken for one.
func geminiChecksSignatures(model string) bool {
	model = strings.TrimSpace(model)
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		if dir := model[:i+1]; dir != "models/" && !strings.HasSuffix(dir, "/models/") {
			return false
		}
		model = model[i+1:]
	}
	rest, ok := strings.CutPrefix(model, "gemini-")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	if n == 0 || n == len(rest) || (rest[n] != '.' && rest[n] != '-') {
		return false
	}
	major, err := strconv.Atoi(rest[:n])
	return err == nil && major >= 3
}

// signStep puts geminiSkipSignature on the first functionCall part of one
// assistant message's parts when none of them is signed. The message is one
// step of the model's: Gemini signs the first call of a step and leaves its
// parallel calls unsigned, so those stay as they are; consecutive assistant
// messages, sent as one model content, are each a step of their own. A real
// signature is never replaced.
func signStep(parts []json.RawMessage) error {
	first := -1
	for i, raw := range parts {
		var p struct {
			FunctionCall     json.RawMessage `json:"functionCall"`
			ThoughtSignature string          `json:"thoughtSignature"`
		}
		if json.Unmarshal(raw, &p) != nil || len(p.FunctionCall) == 0 || string(p.FunctionCall) == "null" {
			continue
		}
		if p.ThoughtSignature != "" {
			return nil
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(parts[first], &members); err != nil {
		return err
	}
	members["thoughtSignature"] = json.RawMessage(strconv.Quote(geminiSkipSignature))
	part, err := json.Marshal(members)
	if err != nil {
		return err
	}
	parts[first] = part
	return nil
}

// geminiCallPart is a call as a functionCall part. Arguments that are not
// a JSON object (an invalid call answered by agentloop) are sent as {}, the
// only args Gemini takes. id is sent only when Gemini gave the call one.
func geminiCallPart(c *ToolCall, id, sig string) (json.RawMessage, error) {
	args := json.RawMessage(strings.TrimSpace(sentArguments(c.Function.Arguments)))
	return json.Marshal(gemCallPart{FunctionCall: gemCall{ID: id, Name: c.Function.Name, Args: args}, ThoughtSignature: sig})
}

// extraSignature is the thought signature Gemini's OpenAI endpoint puts on
// a call (extra_content.google.thought_signature), so that a conversation
// begun there keeps it here; "" when there is none.
func extraSignature(extra json.RawMessage) string {
	if len(extra) == 0 {
		return ""
	}
	var e struct {
		ExtraContent struct {
			Google struct {
				ThoughtSignature string `json:"thought_signature"`
			} `json:"google"`
		} `json:"extra_content"`
	}
	if json.Unmarshal(extra, &e) != nil {
		return ""
	}
	return e.ExtraContent.Google.ThoughtSignature
}

// geminiToolAnswer writes a tool message as a functionResponse part named
// after the call it answers, found by its id in the messages before it
// (Gemini pairs an answer with its call by name, and by id when the call
// had one). A result that is a JSON object is the response as it is; any
// other text is wrapped as {"result": text}, or {"error": text} for a
// failed tool.
func geminiToolAnswer(before []Message, m *Message) ([]json.RawMessage, error) {
	name, id := m.Name, ""
	if c, blk := answeredCall(before, m.ToolCallID); c != nil {
		name = c.Function.Name
		if blk != nil {
			id = blk.ID
		}
	}
	if name == "" {
		return nil, fmt.Errorf("tool message for call %q answers no call of an earlier assistant message, and has no Name", m.ToolCallID)
	}
	resp := json.RawMessage(bytes.TrimSpace([]byte(m.Content)))
	if len(resp) == 0 || resp[0] != '{' || !json.Valid(resp) {
		key := "result"
		if m.IsError {
			key = "error"
		}
		var err error
		if resp, err = json.Marshal(map[string]string{key: m.Content}); err != nil {
			return nil, err
		}
	}
	part, err := json.Marshal(gemResponsePart{gemResponse{ID: id, Name: name, Response: resp}})
	return []json.RawMessage{part}, err
}

// answeredCall finds the call with id in the latest assistant message that
// has one, with its Gemini block when the message carries Gemini state.
func answeredCall(before []Message, id string) (*ToolCall, *Block) {
	for i := len(before) - 1; i >= 0; i-- {
		m := &before[i]
		if m.Role != "assistant" {
			continue
		}
		for j := range m.ToolCalls {
			if m.ToolCalls[j].ID != id {
				continue
			}
			if c := m.Continuity; c != nil && c.Dialect == DialectGemini {
				if _, ok := placeBlocks(m, c.Blocks); !ok {
					return &m.ToolCalls[j], nil // written without its state
				}
				for k := range c.Blocks {
					if c.Blocks[k].Type == BlockToolCall && c.Blocks[k].Call == j {
						return &m.ToolCalls[j], &c.Blocks[k]
					}
				}
			}
			return &m.ToolCalls[j], nil
		}
	}
	return nil, nil
}

// geminiOutput sets the generationConfig members that ask for a
// structured answer: "responseMimeType": "application/json" and the
// schema as "responseJsonSchema", which takes JSON Schema as it is
// ("responseSchema" takes only Gemini's OpenAPI subset, as "parameters"
// does for tools), as https://ai.google.dev/gemini-api/docs/structured-output
// and https://ai.google.dev/api/generate-content#generationconfig document.
// Gemini has no name and no strict flag.
func geminiOutput(g *gemGenConfig, o *OutputSchema) {
	if o == nil {
		return
	}
	g.ResponseMimeType, g.ResponseJSONSchema = "application/json", o.Schema
}
