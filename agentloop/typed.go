package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
// The arguments are decoded strictly: a member In has no field for, a
// value of the wrong JSON type, a required member missing (at any depth)
// or anything after the object fails the call with a [Recoverable] error
// naming the member, e.g. `the argument "lines" is a JSON string, not an
// integer`, so the model sees it and may send the call again; run is not
// called then. A nil run leaves Run nil, which the Loop refuses.
func NewTool[In any](name, description string, run func(ctx context.Context, in In) (string, error)) Tool {
	t := Tool{Name: name, Description: description}
	typ := reflect.TypeFor[In]()
	s, err := inputSchema(typ)
	if err == nil {
		t.Parameters, err = json.Marshal(s)
	}
	if err != nil {
		t.err = fmt.Errorf("tool %q: %w", name, err)
		t.Run = func(context.Context, json.RawMessage) (string, error) { return "", t.err }
		return t
	}
	if run == nil {
		return t
	}
	t.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
		var in In
		if err := decodeStrict(args, &in); err != nil {
			return "", Recoverable(err)
		}
		return run(ctx, in)
	}
	return t
}

// decodeStrict decodes one JSON object into v (a pointer), refusing
// unknown members, mistyped values, missing required members and
// trailing data, with an error in words for the model.
func decodeStrict(args []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return argumentsError(err)
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("the arguments have more after the object; send one JSON object")
	}
	var tree any
	if err := json.Unmarshal(args, &tree); err != nil {
		return argumentsError(err)
	}
	return missing(reflect.TypeOf(v).Elem(), tree, "")
}

// argumentsError says what a decoding error means, naming the member.
func argumentsError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		name := te.Field
		if name == "" {
			return fmt.Errorf("the arguments are a JSON %s, not %s", te.Value, kindWord(te.Type))
		}
		return fmt.Errorf("the argument %q is a JSON %s, not %s", name, te.Value, kindWord(te.Type))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("the argument %s is not a parameter of this tool", name)
	}
	return fmt.Errorf("the arguments do not decode: %w", err)
}

// kindWord names the JSON a Go type takes.
func kindWord(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer in the range of " + t.Kind().String()
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// missing finds the first required member absent from tree (the
// arguments decoded as any) for type t, at path.
func missing(t reflect.Type, tree any, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType || t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return nil // null, which leaves the zero value
		}
		fields, err := structFields(t, t.String())
		if err != nil {
			return err
		}
		for _, f := range fields {
			p := join(path, f.name)
			val, ok := lookupFold(obj, f.name)
			if !ok {
				if !f.optional {
					return fmt.Errorf("the argument %q is missing", p)
				}
				continue
			}
			if err := missing(f.typ, val, p); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		arr, _ := tree.([]any)
		for i, e := range arr {
			if err := missing(t.Elem(), e, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, _ := tree.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := missing(t.Elem(), obj[k], join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// lookupFold finds name in obj as encoding/json matches members: exactly,
// else without regard to case.
func lookupFold(obj map[string]any, name string) (any, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}
