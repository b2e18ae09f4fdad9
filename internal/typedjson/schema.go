// Package typedjson derives a JSON Schema from a Go type and decodes JSON
// into that type strictly, the one implementation behind
// agentloop.NewTool's arguments and llmstream.DecodeOutput's answer: the
// schema it writes and the values it accepts are the same rules.
package typedjson

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"reflect"
	"strings"
	"time"
)

// ErrUnsupportedType: a type has a part no JSON Schema describes the way
// encoding/json decodes it. The error names the part.
var ErrUnsupportedType = errors.New("airlock: unsupported type for a JSON Schema")

// schema is the subset of JSON Schema [Schema] writes.
type schema struct {
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
}

// field is one member of a struct's JSON object.
type field struct {
	name     string
	index    []int
	typ      reflect.Type
	optional bool
	doc      string
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// ObjectSchema returns the JSON Schema of t, which must describe a JSON
// object: a struct, a map with string keys, or a pointer to one. The
// rules are agentloop.NewTool's doc; an error wraps [ErrUnsupportedType].
func ObjectSchema(t reflect.Type) (json.RawMessage, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() != reflect.Struct && base.Kind() != reflect.Map {
		return nil, fmt.Errorf("%w: %v is not a struct or map, so its JSON is not an object", ErrUnsupportedType, t)
	}
	s, err := schemaOf(t, map[reflect.Type]bool{}, t.String())
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// schemaOf returns the schema of t; path names the part for errors, and
// open holds the struct types being described, to refuse recursion.
func schemaOf(t reflect.Type, open map[reflect.Type]bool, path string) (*schema, error) {
	unsupported := func(why string) (*schema, error) {
		return nil, fmt.Errorf("%w: %s (%v): %s", ErrUnsupportedType, path, t, why)
	}
	switch {
	case t == timeType:
		return &schema{Type: "string", Format: "date-time"}, nil
	case t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		// json.RawMessage, or a type that decodes itself: any JSON.
		return &schema{}, nil
	case t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType):
		return &schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}, nil
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return &schema{}, nil
		}
		return unsupported("an interface with methods cannot be decoded into")
	case reflect.Pointer:
		return schemaOf(t.Elem(), open, path)
	case reflect.Slice, reflect.Array:
		if isBytes(t) {
			return &schema{Type: "string"}, nil // base64, as encoding/json writes []byte
		}
		items, err := schemaOf(t.Elem(), open, path+"[]")
		if err != nil {
			return nil, err
		}
		s := &schema{Type: "array", Items: items}
		if t.Kind() == reflect.Array {
			n := t.Len()
			s.MinItems, s.MaxItems = &n, &n
		}
		return s, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return unsupported("map keys must be strings")
		}
		values, err := schemaOf(t.Elem(), open, path+"{}")
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(values)
		if err != nil {
			return nil, err
		}
		return &schema{Type: "object", AdditionalProperties: b}, nil
	case reflect.Struct:
		if open[t] {
			return unsupported("a recursive type has no finite schema")
		}
		open[t] = true
		defer delete(open, t)
		fields, err := structFields(t, path)
		if err != nil {
			return nil, err
		}
		s := &schema{Type: "object", Properties: map[string]*schema{}, AdditionalProperties: json.RawMessage("false")}
		for _, f := range fields {
			p, err := schemaOf(f.typ, open, path+"."+f.name)
			if err != nil {
				return nil, err
			}
			p.Description = f.doc
			s.Properties[f.name] = p
			if !f.optional {
				s.Required = append(s.Required, f.name)
			}
		}
		return s, nil
	}
	return unsupported("no JSON value decodes into a " + t.Kind().String())
}

// structFields lists the members of t's JSON object as encoding/json
// decodes them: exported fields, named by their json tag, with the fields
// of embedded structs promoted. A name that two fields at the same depth
// would take, or a ",string" option, is refused rather than guessed.
func structFields(t reflect.Type, path string) ([]field, error) {
	type found struct {
		field
		depth int
	}
	var all []found
	var walk func(t reflect.Type, index []int, depth int) error
	walk = func(t reflect.Type, index []int, depth int) error {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if ft.Kind() == reflect.Pointer && !token.IsExported(et.Name()) {
						return fmt.Errorf("%w: %s: embedded pointer %v, which decoding may have to allocate through an unexported type", ErrUnsupportedType, path, ft)
					}
					if err := walk(et, idx, depth+1); err != nil {
						return err
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			var omit bool
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					omit = true
				case "string":
					return fmt.Errorf("%w: %s.%s: the \",string\" option", ErrUnsupportedType, path, f.Name)
				}
			}
			all = append(all, found{field{name: name, index: idx, typ: ft, optional: omit || ft.Kind() == reflect.Pointer, doc: f.Tag.Get("jsonschema")}, depth})
		}
		return nil
	}
	if err := walk(t, nil, 0); err != nil {
		return nil, err
	}
	var out []field
	for i, f := range all {
		shadowed := false
		for j, g := range all {
			if i == j || !strings.EqualFold(f.name, g.name) {
				continue
			}
			if g.depth == f.depth {
				return nil, fmt.Errorf("%w: %s: two fields are named %q (or the same but for case)", ErrUnsupportedType, path, f.name)
			}
			shadowed = shadowed || g.depth < f.depth
		}
		if !shadowed {
			out = append(out, f.field)
		}
	}
	return out, nil
}
