package typedjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Words name what is decoded in the errors the model reads: a tool's
// "argument"s or a structured answer's "member"s.
type Words struct {
	Member  string // one member: "argument"
	Whole   string // the whole value: "the arguments"
	Unknown string // after a member's name, when the schema has no such member
	One     bool   // Whole is singular: "the answer is", not "the arguments are"
}

// verb picks the form of a verb that agrees with Whole.
func (w Words) verb(many, one string) string {
	if w.One {
		return one
	}
	return many
}

// Decode decodes data, one JSON object, into v (a non-nil pointer to the
// type [ObjectSchema] described), refusing what that schema refuses:
//
//   - a member the type has no field for, compared exactly (encoding/json
//     would match "PATH" to a field named "path"; the schema says
//     additionalProperties: false, so it is refused, naming both);
//   - a member given twice in one object (encoding/json keeps the last);
//   - a required member missing, or null where its type is not a
//     pointer, an interface or a type that decodes itself (encoding/json
//     would leave the zero value), at any depth: members, array elements
//     and map values alike; null is taken for an optional member;
//   - a value of the wrong JSON type, and anything after the object.
//
// The error is in words for the model and names the member by its path
// ("steps[2].title"). The walk follows the type, whose depth is finite,
// and skips values the type takes whole (any, json.RawMessage) without
// recursion; data is at most encoding/json's nesting deep.
func Decode(data []byte, v any, w Words) error {
	if !json.Valid(data) {
		if json.NewDecoder(bytes.NewReader(data)).Decode(new(json.RawMessage)) == nil {
			return fmt.Errorf("%s %s more after the object; send one JSON object", w.Whole, w.verb("have", "has"))
		}
		return fmt.Errorf("%s %s not decode: %w", w.Whole, w.verb("do", "does"), json.Unmarshal(data, new(any)))
	}
	t := reflect.TypeOf(v).Elem()
	st := strictWalk{dec: json.NewDecoder(bytes.NewReader(data)), w: w}
	if err := st.value(t, "", false); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return st.typeError(err)
	}
	return nil
}

// strictWalk reads one value's tokens against a type.
type strictWalk struct {
	dec *json.Decoder
	w   Words
}

// name says which member path is, for an error.
func (s *strictWalk) name(path string) string {
	if path == "" {
		return s.w.Whole
	}
	return fmt.Sprintf("the %s %q", s.w.Member, path)
}

// value checks the next value of the stream against t at path; nullOK
// says null is taken there.
func (s *strictWalk) value(t reflect.Type, path string, nullOK bool) error {
	tok, err := s.dec.Token()
	if err != nil {
		return fmt.Errorf("%s %s not decode: %w", s.w.Whole, s.w.verb("do", "does"), err)
	}
	if tok == nil {
		if nullOK || takesNull(t) {
			return nil
		}
		if path == "" {
			return fmt.Errorf("%s %s null, not an object", s.w.Whole, s.w.verb("are", "is"))
		}
		return fmt.Errorf("%s is null; it is required and takes %s", s.name(path), kindWord(t))
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	open, _ := tok.(json.Delim)
	if open != '{' && open != '[' {
		return nil // a scalar: its type is encoding/json's to check
	}
	if takesWhole(t) {
		return s.skip()
	}
	if open == '[' && isBytes(t) {
		// encoding/json takes an array of numbers too; the schema, a
		// base64 string only.
		return fmt.Errorf("%s is a JSON array, not %s", s.name(path), kindWord(t))
	}
	switch {
	case open == '{' && t.Kind() == reflect.Struct:
		return s.object(t, path)
	case open == '{' && t.Kind() == reflect.Map:
		return s.members(path, func(key, p string) error { return s.value(t.Elem(), p, false) })
	case open == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		i := 0
		for ; s.dec.More(); i++ {
			if err := s.value(t.Elem(), path+"["+strconv.Itoa(i)+"]", false); err != nil {
				return err
			}
		}
		if t.Kind() == reflect.Array && i != t.Len() {
			// The schema's minItems = maxItems; encoding/json would
			// zero-fill or drop the difference silently.
			return fmt.Errorf("%s has %d %s; it takes exactly %d", s.name(path), i, plural(i, "item", "items"), t.Len())
		}
		_, err := s.dec.Token()
		return err
	}
	return s.skip() // the wrong JSON type: encoding/json names it
}

// object checks a struct's members: exact names, each once, the required
// ones present.
func (s *strictWalk) object(t reflect.Type, path string) error {
	fields, err := structFields(t, t.String())
	if err != nil {
		return err
	}
	byName := make(map[string]*field, len(fields))
	for i := range fields {
		byName[fields[i].name] = &fields[i]
	}
	seen := make(map[string]bool, len(fields))
	err = s.members(path, func(key, p string) error {
		f, ok := byName[key]
		if !ok {
			for _, g := range fields {
				if strings.EqualFold(g.name, key) {
					return fmt.Errorf("%s %s; names are exact: %q", s.name(p), s.w.Unknown, join(path, g.name))
				}
			}
			return fmt.Errorf("%s %s", s.name(p), s.w.Unknown)
		}
		seen[key] = true
		return s.value(f.typ, p, f.optional)
	})
	if err != nil {
		return err
	}
	for _, f := range fields {
		if !f.optional && !seen[f.name] {
			return fmt.Errorf("%s is missing", s.name(join(path, f.name)))
		}
	}
	return nil
}

// members reads an object's members after its '{', refusing a name given
// twice, and calls each with the member's name and path.
func (s *strictWalk) members(path string, each func(key, path string) error) error {
	seen := map[string]bool{}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // json.Valid held, so a member starts with its name
		p := join(path, key)
		if seen[key] {
			return fmt.Errorf("%s is given twice; send it once", s.name(p))
		}
		seen[key] = true
		if err := each(key, p); err != nil {
			return err
		}
	}
	_, err := s.dec.Token()
	return err
}

// skip reads the rest of a value whose opening delimiter was read.
func (s *strictWalk) skip() error {
	for depth := 1; depth > 0; {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// takesWhole reports a type that takes any JSON there is (its schema is
// {}) or decodes itself from its own text.
func takesWhole(t reflect.Type) bool {
	return t == timeType || t.Kind() == reflect.Interface ||
		t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// takesNull reports a type whose schema lets a value be null: a pointer
// (optional), an interface, a type that decodes itself.
func takesNull(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface ||
		(t != timeType && (t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType)))
}

// typeError says what an encoding/json error means, naming the member.
func (s *strictWalk) typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("%s %s a JSON %s, not %s", s.w.Whole, s.w.verb("are", "is"), te.Value, kindWord(te.Type))
		}
		return fmt.Errorf("%s is a JSON %s, not %s", s.name(te.Field), te.Value, kindWord(te.Type))
	}
	return fmt.Errorf("%s %s not decode: %w", s.w.Whole, s.w.verb("do", "does"), err)
}

// kindWord names the JSON a Go type takes.
func kindWord(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "a date-time string"
	case isBytes(t):
		return "a base64 string"
	case t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType):
		return "a string"
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

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// plural picks the form of a noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isBytes reports a []byte, which encoding/json writes as base64 text.
func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}
