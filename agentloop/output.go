package agentloop

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
)

// Output makes a Loop's final answer structured ([Loop.Output]): the
// schema is sent with every turn (llmstream.Request.Output), and an
// answer without tool calls ends the run only once Check accepts it.
//
// An answer Check refuses is told to the model as a user message
// "error: your answer does not fit the output schema: <what is wrong>",
// and the run goes on; the same answer refused for the same reason twice
// in a row stops the run with an error wrapping [ErrRepeatedFailure] and
// llmstream.ErrInvalidOutput, as a recoverable tool failure does.
// Tools work as usual in the same run: only an answer without calls is
// checked.
type Output struct {
	// Schema is what the model is asked for; see llmstream.OutputSchema.
	Schema llmstream.OutputSchema
	// Check says what is wrong with an answer (the final message's
	// Content), in words for the model; nil when it fits. nil checks only
	// that the answer is one JSON object.
	Check func(answer llmstream.Message) error

	err error // why OutputFor could not build it; reported by Run
}

// OutputFor returns an Output whose schema is derived from T as [NewTool]
// derives a tool's parameters, strict, and whose Check decodes the answer
// as strictly as llmstream.DecodeOutput does (exact member names, required
// members present and not null, no unknown member). A T with no schema
// makes Run fail with [ErrInvalidLoop] wrapping [ErrUnsupportedType]
// before anything is sent. Read the decoded answer with [DecodeOutput].
func OutputFor[T any](name string) *Output {
	s, err := llmstream.OutputSchemaFor[T](name)
	if err != nil {
		return &Output{err: err}
	}
	return &Output{Schema: *s, Check: func(m llmstream.Message) error {
		_, err := llmstream.DecodeOutput[T](m)
		return err
	}}
}

// DecodeOutput decodes the structured answer of a finished run
// (Result.Output) into a T, as llmstream.DecodeOutput does; its errors
// are that function's.
func DecodeOutput[T any](res Result) (T, error) {
	return llmstream.DecodeOutput[T](llmstream.Message{Content: string(res.Output)})
}

// judgeOutput judges an answer without tool calls when the Loop has an
// Output: done when it fits; otherwise the model is told what is wrong (a
// user message joins st) and again is true, or the run stops with err when
// the same answer failed the same way just before (st.LastFailure, the
// tools' repeat rule).
func (c *Core) judgeOutput(st *State, msg llmstream.Message) (again bool, err error) {
	var problem error
	var obj map[string]json.RawMessage // every Output's check: one JSON object
	switch {
	case msg.Refusal != "":
		problem = fmt.Errorf("%w: the model refused: %s", llmstream.ErrInvalidOutput, msg.Refusal)
	case json.Unmarshal([]byte(msg.Content), &obj) != nil || obj == nil:
		problem = fmt.Errorf("%w: the answer is not one JSON object", llmstream.ErrInvalidOutput)
	case c.l.Output.Check != nil:
		problem = c.l.Output.Check(msg)
	}
	if problem == nil {
		st.LastFailure = ""
		return false, nil
	}
	text := problem.Error()
	key := "output\x00" + msg.Content + "\x00" + text
	if key == st.LastFailure {
		if !errors.Is(problem, llmstream.ErrInvalidOutput) {
			// A custom Check's own error: the doc promises both sentinels.
			problem = fmt.Errorf("%w: %w", llmstream.ErrInvalidOutput, problem)
		}
		return false, fmt.Errorf("%w: the answer does not fit the output schema: %w", ErrRepeatedFailure, problem)
	}
	st.LastFailure = key
	st.Messages = append(st.Messages, llmstream.Message{Role: "user",
		Content: "error: your answer does not fit the output schema: " + text + ". Answer again with one JSON object that fits it."})
	return true, nil
}
