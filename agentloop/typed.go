package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/airlock-go/airlock/internal/typedjson"
)

// NewTool returns a Tool whose arguments are decoded into an In, with the
// JSON Schema of its Parameters derived from In, so a tool is written
// against a Go type rather than raw JSON:
//
//	type readIn struct {
//		Path  string `json:"path" jsonschema:"file to read, relative to the workspace"`
//		Lines int    `json:"lines,omitempty" jsonschema:"at most this many lines"`
//	}
//	read := agentloop.NewTool("read_file", "Reads a file.", func(ctx context.Context, in readIn) (string, error) { ... })
//
// In must be a struct or a map with string keys (or a pointer to one),
// since arguments are a JSON object. The schema follows encoding/json:
//
//   - a struct is an object of its exported fields, named by their json
//     tag, "-" left out, embedded structs' fields promoted, with
//     "additionalProperties": false; a field is required unless it is a
//     pointer or tagged omitempty or omitzero; a `jsonschema:"..."` tag
//     is its description;
//   - bool is "boolean"; every integer type "integer"; float32 and float64
//     "number"; string and []byte (base64) "string"; time.Time a string
//     of format "date-time"; a type with UnmarshalText a "string";
//   - a slice is an "array" of its element's schema, an array the same
//     with minItems = maxItems = its length; a map with string keys an
//     "object" whose additionalProperties is its value's schema; a pointer
//     its element's schema;
//   - any (an interface without methods), json.RawMessage and any other
//     type with UnmarshalJSON accept any JSON: {}.
//
// Refused, with an error wrapping [ErrUnsupportedType]: channels,
// functions, complex numbers, interfaces with methods, maps whose keys are
// not strings, recursive types, the ",string" tag option, two fields with
// the same JSON name (but for case) at the same depth, and an embedded
// pointer to an unexported struct. NewTool returns no error: a Loop with
// such a tool fails at Run with [ErrInvalidLoop] wrapping it, before
// anything is sent, and the tool's Run returns it.
//
// The arguments are decoded strictly, as the schema says: a member In has
// no field for (names are exact: "PATH" is not "path", although
// encoding/json would match it), a member given twice, a value of the
// wrong JSON type, a required member missing or null where its type is
// not a pointer (at any depth: members, array elements, map values), or
// anything after the object fails the call with a [Recoverable] error
// naming the member, e.g. `the argument "lines" is a JSON string, not an
// integer`, so the model sees it and may send the call again; run is not
// called then. null is taken for an optional member (a pointer, or tagged
// omitempty or omitzero) and leaves it zero. A nil run leaves Run nil, which the Loop refuses.
func NewTool[In any](name, description string, run func(ctx context.Context, in In) (string, error)) Tool {
	t := Tool{Name: name, Description: description}
	var err error
	if t.Parameters, err = typedjson.ObjectSchema(reflect.TypeFor[In]()); err != nil {
		t.err = fmt.Errorf("tool %q: %w", name, err)
		t.Run = func(context.Context, json.RawMessage) (string, error) { return "", t.err }
		return t
	}
	if run == nil {
		return t
	}
	t.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
		var in In
		if err := typedjson.Decode(args, &in, argumentWords); err != nil {
			return "", Recoverable(err)
		}
		return run(ctx, in)
	}
	return t
}

// argumentWords name a tool's arguments in what the model is told.
var argumentWords = typedjson.Words{Member: "argument", Whole: "the arguments", Unknown: "is not a parameter of this tool"}

// ErrUnsupportedType: [NewTool]'s input type has a part no JSON Schema
// describes the way encoding/json decodes it. The error names the part.
var ErrUnsupportedType = typedjson.ErrUnsupportedType
