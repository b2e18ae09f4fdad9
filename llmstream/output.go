package llmstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/airlock-go/airlock/internal/typedjson"
	"github.com/airlock-go/airlock/toolcall"
)

// OutputSchema asks the model for an answer that is one JSON value of a
// schema (structured output): [Request.Output]. Every dialect sends it in
// its own native form (see each encoder's output function for the
// provider's documentation):
//
//   - DialectChat: "response_format": {"type": "json_schema",
//     "json_schema": {"name", "schema", "strict"}};
//   - DialectResponses: "text": {"format": {"type": "json_schema", "name",
//     "schema", "strict"}};
//   - DialectAnthropic: "output_config": {"format": {"type":
//     "json_schema", "schema"}} (Anthropic has no name or strict flag:
//     the format is always enforced);
//   - DialectGemini: generationConfig "responseMimeType":
//     "application/json" and "responseJsonSchema";
//   - DialectBedrock: "outputConfig": {"textFormat": {"type":
//     "json_schema", "structure": {"jsonSchema": {"name", "schema"}}}},
//     the schema as a string, as Converse takes it.
//
// With AsTool the schema goes instead as a tool the model is made to call
// (Vercel's AI SDK does the same for models without a native form: older
// Claude models, Bedrock models without structured outputs, local
// servers): the call's arguments become the answer's Content, its
// argument deltas reach OnDelta as [DeltaText], and the call is not in the
// Message — the caller sees an answer, not a call.
//
// The answer is the Message's Content; [DecodeOutput] decodes it into a Go
// type strictly. A provider may still answer otherwise (a refusal, a cut
// at the token limit, a model that ignores a non-strict schema): decode
// and check.
type OutputSchema struct {
	// Name names the schema (the tool's name with AsTool): 1 to 64
	// letters, digits, '_' or '-'. Empty means "output".
	Name string
	// Schema is the JSON Schema of the answer, a JSON object; required.
	// OpenAI's strict mode accepts a subset (every property required,
	// additionalProperties false): a schema outside it is the provider's
	// 400, not checked here.
	Schema json.RawMessage
	// Strict asks the provider to enforce the schema where it has the flag
	// (chat, Responses); Anthropic, Gemini and Bedrock enforce it always.
	Strict bool
	// AsTool sends the schema as a forced tool call instead of the
	// dialect's native form. The request's ToolChoice must then be unset:
	// with no other tools the call is forced by name, with tools any call
	// is required (so the model may call a tool or answer).
	AsTool bool
}

// defaultOutputName is the name an OutputSchema without one gets.
const defaultOutputName = "output"

// name is the schema's name as sent.
func (o *OutputSchema) name() string {
	if o.Name == "" {
		return defaultOutputName
	}
	return o.Name
}

// check reports what makes r's Output unsendable, before anything is sent.
func (o *OutputSchema) check(r *Request) error {
	name := o.name()
	if len(name) > 64 || !validOutputName(name) {
		return fmt.Errorf("%w: output schema name %q: use 1 to 64 letters, digits, '_' or '-'", ErrInvalidRequest, name)
	}
	var schema map[string]json.RawMessage
	if len(o.Schema) == 0 || json.Unmarshal(o.Schema, &schema) != nil || schema == nil {
		return fmt.Errorf("%w: output schema %q is not a JSON object", ErrInvalidRequest, name)
	}
	if !o.AsTool {
		return nil
	}
	if r.ToolChoice.Mode != 0 {
		return fmt.Errorf("%w: output schema %q sent as a tool with tool choice %v: the output sets the choice", ErrInvalidRequest, name, r.ToolChoice.Mode)
	}
	if slices.ContainsFunc(r.Tools, func(t Tool) bool { return t.Function.Name == name }) {
		return fmt.Errorf("%w: output schema %q sent as a tool has the name of a tool", ErrInvalidRequest, name)
	}
	return nil
}

func validOutputName(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// outputTool rewrites r (the client's copy) to carry its Output as a
// forced tool call, for OutputSchema.AsTool.
func outputTool(r *Request) {
	o := r.Output
	r.Tools = append(slices.Clip(r.Tools), Tool{Type: "function", Function: ToolFunction{
		Name: o.name(), Description: "Answer with this tool: its arguments are the answer.", Parameters: o.Schema,
	}})
	r.ToolChoice = ToolChoice{Mode: ToolChoiceRequired}
	if len(r.Tools) == 1 {
		r.ToolChoice = ToolChoice{Mode: ToolChoiceFunction, Name: o.name()}
	}
	r.Output = nil
}

// outputDeltas wraps onDelta so that the output tool's argument deltas
// arrive as answer text; nil stays nil.
func outputDeltas(name string, onDelta func(Delta) error) func(Delta) error {
	if onDelta == nil {
		return nil
	}
	return func(d Delta) error {
		if d.Kind == DeltaToolCall && d.Call.Name == name {
			if d.Text == "" {
				return nil
			}
			return onDelta(Delta{Kind: DeltaText, Text: d.Text})
		}
		return onDelta(d)
	}
}

// outputAnswer moves the output tool's call in m into its Content: the
// call's arguments are the answer. With no other call left the message
// ends its turn.
func outputAnswer(name string, m *Message) {
	i := slices.IndexFunc(m.ToolCalls, func(c ToolCall) bool { return c.Function.Name == name })
	if i < 0 {
		return
	}
	m.Content += m.ToolCalls[i].Function.Arguments
	m.ToolCalls = slices.Delete(slices.Clone(m.ToolCalls), i, i+1)
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
		if m.StopReason == StopToolCalls {
			m.StopReason = StopEndTurn
		}
	}
}

// OutputSchemaFor returns an OutputSchema named name for the answers T
// decodes, its Schema derived from T as agentloop.NewTool derives a
// tool's parameters (T is a struct, a map with string keys, or a pointer
// to one). Strict is set when the schema is in OpenAI's strict subset:
// every object's properties all required and no other member allowed; a
// pointer member (optional) or a map makes it false, since strict mode
// answers such a schema with a 400. An error wraps [ErrUnsupportedType]
// and names the part of T no schema describes.
func OutputSchemaFor[T any](name string) (*OutputSchema, error) {
	s, err := typedjson.ObjectSchema(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(s, &tree); err != nil {
		return nil, err
	}
	return &OutputSchema{Name: name, Schema: s, Strict: strictSubset(tree)}, nil
}

// strictSubset reports whether the schema node (decoded JSON) keeps
// OpenAI's strict rules at every depth: an object lists every property as
// required and has additionalProperties false.
func strictSubset(node any) bool {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if !strictSubset(e) {
				return false
			}
		}
	case map[string]any:
		if n["type"] == "object" {
			props, _ := n["properties"].(map[string]any)
			required, _ := n["required"].([]any)
			if n["additionalProperties"] != false || len(required) != len(props) {
				return false
			}
		}
		for _, v := range n {
			if !strictSubset(v) {
				return false
			}
		}
	}
	return true
}

// ErrUnsupportedType: a type given to [OutputSchemaFor] or [DecodeOutput]
// has a part no JSON Schema describes the way encoding/json decodes it.
// It is the same value as agentloop.ErrUnsupportedType: one reflection
// serves tools and structured answers.
var ErrUnsupportedType = typedjson.ErrUnsupportedType

// ErrInvalidOutput: a structured answer does not decode into its type
// ([DecodeOutput]). The error says what is wrong in words a model can act
// on, naming the member by its path ("the member \"steps[2].title\" is
// missing").
var ErrInvalidOutput = errors.New("llmstream: invalid structured output")

// outputWords name a structured answer's parts in what DecodeOutput says.
var outputWords = typedjson.Words{Member: "member", Whole: "the answer", Unknown: "is not in the schema", One: true}

// DecodeOutput decodes m's answer (its Content, one JSON object) into a T
// as strictly as [OutputSchemaFor]'s schema says: member names exact (no
// case folding), each member once, every required member present and not
// null unless its type is a pointer (at any depth), no member the schema
// lacks, values of the right JSON type, nothing after the object. An
// error wraps [ErrInvalidOutput] with what is wrong, or
// [ErrUnsupportedType] when T has no schema; a refusal (m.Refusal, or a
// turn stopped with StopRefusal, whose Content is then the refusal) or a
// cut answer (StopLength) is reported as such, wrapping ErrInvalidOutput.
func DecodeOutput[T any](m Message) (T, error) {
	var v T
	if _, err := typedjson.ObjectSchema(reflect.TypeFor[T]()); err != nil {
		return v, err
	}
	switch {
	case m.Refusal != "":
		return v, fmt.Errorf("%w: the model refused: %s", ErrInvalidOutput, m.Refusal)
	case m.StopReason == StopRefusal: // Anthropic's refusal is the text of a turn stopped for it
		return v, fmt.Errorf("%w: the model refused: %s", ErrInvalidOutput, m.Content)
	case m.StopReason == StopLength:
		return v, fmt.Errorf("%w: the answer was cut at the token limit", ErrInvalidOutput)
	}
	if err := typedjson.Decode([]byte(m.Content), &v, outputWords); err != nil {
		var zero T
		return zero, fmt.Errorf("%w: %w", ErrInvalidOutput, err)
	}
	return v, nil
}

// FeedMembers returns an OnDelta callback that writes every [DeltaText]
// delta's text to m — so m reports each member of a structured answer
// the moment it completes, with its path (see [toolcall.Members]) — and
// then hands every delta on to next (nil for none). With
// [OutputSchema.AsTool] the answer's deltas are text too, so the same
// callback serves both forms. A [DeltaRestart] (a [Failover] starting the
// answer over) resets m before next sees it, so the members after the
// seam are the new answer's; a [DeltaResume] keeps m, the text going on.
//
// The answer's own faults do not end the stream: once m refuses the text
// (it is not JSON, or it passed m's size or depth limit) the rest is not
// written to it (until [toolcall.Members.Reset], say for the next turn
// of an agent loop), and [DecodeOutput] says what is wrong at the end. The
// error of m's own callback does end it, as an OnDelta error does
// ([WithOnDelta]). Use m from that callback's goroutine only; take
// [toolcall.Members.Snapshot] there too, at the rate the display needs:
// each costs the answer's size so far.
func FeedMembers(m *toolcall.Members, next func(Delta) error) func(Delta) error {
	return func(d Delta) error {
		if d.Kind == DeltaRestart {
			m.Reset()
		}
		if d.Kind == DeltaText && !answerRefused(m.Err()) {
			if _, err := m.Write([]byte(d.Text)); err != nil && !answerRefused(err) {
				return err
			}
		}
		if next == nil {
			return nil
		}
		return next(d)
	}
}

// answerRefused reports m's refusal of the answer's text itself (not
// JSON, past a limit), as opposed to its callback's error.
func answerRefused(err error) bool {
	return errors.Is(err, toolcall.ErrInvalidArguments) || errors.Is(err, toolcall.ErrArgumentsTooLarge)
}
