package llmstream

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Request is one model request in the neutral form every [Dialect] takes.
// Zero fields are not sent (pointers make zero values sendable); the
// client's [WithRequestDefaults] fill in what a request leaves unset, and
// each dialect sends the settings it has (see the package documentation
// for how each maps).
type Request struct {
	// Model overrides the client's model for this request. With neither,
	// no model is sent (single-model servers such as llama.cpp accept
	// that); Gemini, whose URL names the model, then fails with
	// [ErrInvalidRequest].
	Model string
	// Messages is the conversation so far. "system" messages become the
	// dialect's system prompt (Anthropic's "system", Responses'
	// "instructions", Gemini's "systemInstruction").
	Messages []Message
	// Tools are the tools the model may call; sent only when non-empty.
	Tools []Tool
	// ToolChoice says whether and which tool the model must call; the
	// zero value sends nothing (the provider's default, auto).
	ToolChoice ToolChoice
	// ParallelToolCalls allows or forbids several calls in one turn
	// (Anthropic: disable_parallel_tool_use; not sent to Gemini, which has
	// no such setting).
	ParallelToolCalls *bool
	// MaxTokens bounds the output tokens (max_tokens, max_output_tokens,
	// maxOutputTokens). Anthropic requires one: when none is set it gets
	// [DefaultAnthropicMaxTokens].
	MaxTokens *int
	// MaxCompletionTokens is the chat dialect's max_completion_tokens,
	// which OpenAI's reasoning models require instead of max_tokens; the
	// other dialects take it as MaxTokens when that is unset.
	MaxCompletionTokens *int
	// Temperature and TopP are the sampling settings.
	Temperature *float64
	TopP        *float64
	// Stop sequences end the output where they appear (not sent to
	// Responses, which has no such setting).
	Stop []string
	// Seed asks for reproducible sampling where supported (chat only).
	Seed *int64
	// ReasoningEffort is the reasoning effort ("minimal", "low", "medium",
	// "high", as the provider names them): chat's reasoning_effort,
	// Responses' reasoning.effort, Gemini's thinkingLevel (minimal to
	// high in any case, sent in its enum's, "LOW"; "none" turns thinking
	// off there, a thinkingBudget of 0; any other effort fails the call
	// with [ErrInvalidRequest]);
	// for Anthropic a thinking budget when ThinkingBudget is unset (minimal
	// 1024, low 2048, medium 8192, high 24576 tokens; "none" turns thinking
	// off, and any other effort fails the call with [ErrInvalidRequest]).
	// Claude (Anthropic, and on Bedrock) refuses thinking with a tool choice
	// that forces a call, [ToolChoiceRequired] or [ToolChoiceFunction]: the
	// call fails with [ErrInvalidRequest] naming both, before sending.
	ReasoningEffort string
	// ThinkingBudget is the reasoning budget in tokens: Anthropic's
	// thinking.budget_tokens, Gemini's thinkingBudget (0 turns thinking
	// off there); not sent in chat and Responses, which take an effort.
	ThinkingBudget *int
	// Extra members are merged into the request object, for
	// provider-specific parameters; they may not replace a member the
	// dialect writes itself (every call then fails with
	// [ErrInvalidRequest]), except that for [DialectResponses] "store",
	// "include" and "reasoning" replace the dialect's own.
	Extra map[string]any
	// Output, when set, asks for a structured answer: one JSON value of
	// its schema, sent in the dialect's native form (or as a forced tool
	// call, [OutputSchema.AsTool]); decode it with [DecodeOutput]. A bad
	// schema or a bad combination fails the call with [ErrInvalidRequest]
	// before anything is sent.
	Output *OutputSchema
	// OnDelta, when set, receives this request's deltas instead of the
	// client's [WithOnDelta] callback; see it for the rules.
	OnDelta func(Delta) error
}

// ToolChoice says whether and which tools the model must call.
type ToolChoice struct {
	// Mode is the choice; the zero value sends nothing.
	Mode ToolChoiceMode
	// Name is the function the model must call, for [ToolChoiceFunction].
	Name string
}

// ToolChoiceMode is the kind of a [ToolChoice]. The zero value means unset.
type ToolChoiceMode uint8

const (
	// ToolChoiceAuto lets the model decide whether to call tools.
	ToolChoiceAuto ToolChoiceMode = iota + 1
	// ToolChoiceNone forbids tool calls.
	ToolChoiceNone
	// ToolChoiceRequired makes the model call at least one tool
	// (Anthropic "any", Gemini "ANY").
	ToolChoiceRequired
	// ToolChoiceFunction makes the model call the function ToolChoice.Name.
	ToolChoiceFunction

	toolChoiceEnd
)

// String returns the mode's name ("auto", "none", "required", "function"),
// "unset" for the zero value.
func (m ToolChoiceMode) String() string {
	switch m {
	case 0:
		return "unset"
	case ToolChoiceAuto:
		return "auto"
	case ToolChoiceNone:
		return "none"
	case ToolChoiceRequired:
		return "required"
	case ToolChoiceFunction:
		return "function"
	}
	return fmt.Sprintf("ToolChoiceMode(%d)", uint8(m))
}

// check reports what makes the choice unsendable.
func (c ToolChoice) check() error {
	switch {
	case c.Mode >= toolChoiceEnd:
		return fmt.Errorf("%w: tool choice mode %v is unknown", ErrInvalidRequest, c.Mode)
	case c.Mode == ToolChoiceFunction && c.Name == "":
		return fmt.Errorf("%w: tool choice %v names no function", ErrInvalidRequest, c.Mode)
	case c.Mode != ToolChoiceFunction && c.Name != "":
		return fmt.Errorf("%w: tool choice %v with a function name %q", ErrInvalidRequest, c.Mode, c.Name)
	}
	return nil
}

// DefaultAnthropicMaxTokens is the max_tokens an Anthropic request gets
// when neither it nor the client's defaults set one: Anthropic requires
// the member.
const DefaultAnthropicMaxTokens = 8192

// anthropicBudgets is the thinking budget, in tokens, for a reasoning
// effort when no budget is given; "none" turns thinking off, and any other
// effort fails the request.
var anthropicBudgets = map[string]int{"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576}

// thinkingWithForcedTool refuses a request with thinking on and a tool
// choice that forces a call (required, or a named function): Claude
// refuses the pair, on Anthropic's API and on Bedrock alike.
func thinkingWithForcedTool(r *Request) error {
	var setting string
	switch r.ToolChoice.Mode {
	case ToolChoiceRequired:
		setting = "ToolChoiceRequired"
	case ToolChoiceFunction:
		setting = "ToolChoiceFunction"
	default:
		return nil
	}
	thinking := "ThinkingBudget"
	if r.ThinkingBudget == nil {
		thinking = "ReasoningEffort " + strconv.Quote(r.ReasoningEffort)
	}
	return fmt.Errorf("thinking (%s) with a forced tool choice (%s): Claude takes only auto or none with thinking on", thinking, setting)
}

// clone returns a copy of r that shares no slice or map with it (messages
// are copied shallowly: the dialects never write to them).
func (r Request) clone() Request {
	r.Messages = slices.Clone(r.Messages)
	r.Tools = slices.Clone(r.Tools)
	r.Stop = slices.Clone(r.Stop)
	r.Extra = maps.Clone(r.Extra)
	return r
}

// withDefaults returns r with every unset field taken from d and the
// client's model.
func (r Request) withDefaults(d *Request, model string) Request {
	if d == nil {
		d = &Request{}
	}
	if r.Model == "" {
		r.Model = d.Model
	}
	if r.Model == "" {
		r.Model = model
	}
	if len(r.Tools) == 0 {
		r.Tools = d.Tools
	}
	if r.ToolChoice.Mode == 0 {
		r.ToolChoice = d.ToolChoice
	}
	fill(&r.ParallelToolCalls, d.ParallelToolCalls)
	fill(&r.MaxTokens, d.MaxTokens)
	fill(&r.MaxCompletionTokens, d.MaxCompletionTokens)
	fill(&r.Temperature, d.Temperature)
	fill(&r.TopP, d.TopP)
	fill(&r.Seed, d.Seed)
	fill(&r.ThinkingBudget, d.ThinkingBudget)
	fill(&r.Output, d.Output)
	if r.Stop == nil {
		r.Stop = d.Stop
	}
	if r.ReasoningEffort == "" {
		r.ReasoningEffort = d.ReasoningEffort
	}
	if len(d.Extra) > 0 {
		extra := maps.Clone(d.Extra)
		maps.Copy(extra, r.Extra)
		r.Extra = extra
	}
	return r
}

func fill[T any](dst **T, def *T) {
	if *dst == nil {
		*dst = def
	}
}

// maxTokens is the output bound to send where a dialect has only one.
func (r *Request) maxTokens() *int {
	if r.MaxTokens != nil {
		return r.MaxTokens
	}
	return r.MaxCompletionTokens
}

// sentArguments is args as a request sends them: one JSON object, else
// "{}".
func sentArguments(args string) string {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" || trimmed[0] != '{' || !json.Valid([]byte(trimmed)) {
		return "{}"
	}
	return args
}
