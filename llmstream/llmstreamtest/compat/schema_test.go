package compat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// The schema agentloop.NewTool derives is checked against jsonschema-go's
// For, for a table of input types. The differences accepted, removed by
// normalize before comparing:
//
//   - jsonschema-go lets a pointer or a slice be null ("type":
//     ["null", T]); agentloop writes T, since a model is not meant to send
//     null, and takes a pointer field as optional (jsonschema-go requires
//     it unless it is tagged omitempty or omitzero);
//   - jsonschema-go bounds the sized integer types (minimum, maximum);
//   - agentloop adds "format": "date-time" to time.Time;
//   - jsonschema-go writes propertyOrder, and the empty schema as true.
//
// Not in the table, because the two differ on purpose: []byte and
// json.RawMessage (jsonschema-go: an array of integers; agentloop: the
// base64 string and any JSON that encoding/json reads), maps keyed by a
// TextMarshaler and interfaces with methods (jsonschema-go accepts them;
// agentloop refuses them).

type (
	flat struct {
		S string  `json:"s"`
		I int     `json:"i,omitempty"`
		U uint16  `json:"u"`
		F float32 `json:"f,omitzero"`
		B bool    `json:"b" jsonschema:"a flag"`
		N int64
		X string `json:"-"`
		y int    //lint:ignore U1000 an unexported field, which neither schema may show
	}
	inner struct {
		Name string `json:"name"`
	}
	Embedded struct {
		Shared string `json:"shared"`
	}
	nested struct {
		Embedded
		In    inner            `json:"in"`
		Ptr   *inner           `json:"ptr"`
		List  []inner          `json:"list"`
		Arr   [3]string        `json:"arr"`
		Map   map[string]inner `json:"map"`
		Any   any              `json:"any"`
		When  time.Time        `json:"when"`
		Deep  [][]map[string]int
		PtrIn *int `json:"ptr_in,omitempty"`
	}
	recursive struct {
		Next *recursive `json:"next"`
	}
	withChan struct{ C chan int }
	withFunc struct{ F func() }
	intKeys  struct{ M map[int]string }
)

func TestSchemaAgainstJSONSchemaGo(t *testing.T) {
	tests := []struct {
		name string
		ours func() agentloop.Tool
		For  func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
	}{
		{"flat", tool[flat], jsonschema.For[flat]},
		{"nested", tool[nested], jsonschema.For[nested]},
		{"pointer to struct", tool[*inner], jsonschema.For[*inner]},
		{"map", tool[map[string][]float64], jsonschema.For[map[string][]float64]},
		{"empty struct", tool[struct{}], jsonschema.For[struct{}]},
		{"recursive", tool[recursive], jsonschema.For[recursive]},
		{"chan", tool[withChan], jsonschema.For[withChan]},
		{"func", tool[withFunc], jsonschema.For[withFunc]},
		{"int keys", tool[intKeys], jsonschema.For[intKeys]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours := tt.ours()
			_, ourErr := ours.Run(context.Background(), json.RawMessage(`{}`))
			refused := errors.Is(ourErr, agentloop.ErrUnsupportedType)
			theirs, err := tt.For(nil)
			if refused || err != nil {
				if !refused || err == nil {
					t.Fatalf("agentloop refused: %v (%v); jsonschema-go: %v", refused, ourErr, err)
				}
				return
			}
			b, err := json.Marshal(theirs)
			if err != nil {
				t.Fatal(err)
			}
			want, got := normalize(t, b), normalize(t, ours.Parameters)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("schema (-jsonschema-go +agentloop):\n%s\njsonschema-go: %s\nagentloop:     %s", diff, b, ours.Parameters)
			}
		})
	}
}

func tool[In any]() agentloop.Tool {
	return agentloop.NewTool("t", "", func(context.Context, In) (string, error) { return "", nil })
}

// normalize decodes a schema and removes the differences accepted above.
func normalize(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	strip(m)
	return m
}

func strip(s map[string]any) (pointer bool) {
	for _, k := range []string{"minimum", "maximum", "format", "propertyOrder"} {
		delete(s, k)
	}
	if types, ok := s["type"].([]any); ok {
		types = slices.DeleteFunc(types, func(v any) bool { return v == "null" })
		if len(types) == 1 {
			s["type"] = types[0]
			pointer = types[0] != "array"
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		var optional []string
		for name, p := range props {
			if p == true {
				// jsonschema-go writes the empty schema as true.
				p = map[string]any{}
				props[name] = p
			}
			if strip(p.(map[string]any)) {
				optional = append(optional, name)
			}
		}
		if req, ok := s["required"].([]any); ok {
			req = slices.DeleteFunc(req, func(v any) bool { return slices.Contains(optional, v.(string)) })
			if len(req) == 0 {
				delete(s, "required")
			} else {
				s["required"] = req
			}
		}
		if len(props) == 0 {
			delete(s, "properties")
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k].(map[string]any); ok {
			strip(sub)
		}
	}
	return pointer
}
