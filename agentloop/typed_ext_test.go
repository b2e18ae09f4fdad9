package agentloop_test

//lint:file-ignore SA5008 kitchen's `json:"-,"` field is on purpose: encoding/json names it "-", and so must the schema
//lint:file-ignore U1000 kitchen's unused unexported field is on purpose: the schema must leave it out

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

type point struct {
	X, Y float64
}

type base struct {
	ID string `json:"id" jsonschema:"the record's id"`
}

type kitchen struct {
	base
	Name    string            `json:"name"`
	Count   int               `json:"count,omitempty"`
	Ratio   *float64          `json:"ratio"`
	Zero    uint8             `json:"zero,omitzero"`
	Skip    string            `json:"-"`
	Dash    string            `json:"-,"`
	Tags    []string          `json:"tags"`
	Pair    [2]int            `json:"pair"`
	Labels  map[string]bool   `json:"labels"`
	Where   point             `json:"where"`
	When    time.Time         `json:"when"`
	Raw     json.RawMessage   `json:"raw"`
	Any     any               `json:"any"`
	Blob    []byte            `json:"blob"`
	Nested  []map[string]*int `json:"nested"`
	private int
}

func schemaOf(t *testing.T, tool agentloop.Tool) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(tool.Parameters, &m); err != nil {
		t.Fatalf("Parameters %s: %v", tool.Parameters, err)
	}
	return m
}

func TestNewToolSchema(t *testing.T) {
	tool := agentloop.NewTool("k", "kitchen sink", func(context.Context, kitchen) (string, error) { return "", nil })
	const want = `{"type":"object","properties":{"-":{"type":"string"},"any":{},"blob":{"type":"string"},"count":{"type":"integer"},` +
		`"id":{"type":"string","description":"the record's id"},"labels":{"type":"object","additionalProperties":{"type":"boolean"}},` +
		`"name":{"type":"string"},"nested":{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}},` +
		`"pair":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},"ratio":{"type":"number"},"raw":{},` +
		`"tags":{"type":"array","items":{"type":"string"}},"when":{"type":"string","format":"date-time"},` +
		`"where":{"type":"object","properties":{"X":{"type":"number"},"Y":{"type":"number"}},"required":["X","Y"],"additionalProperties":false},` +
		`"zero":{"type":"integer"}},"required":["id","name","-","tags","pair","labels","where","when","raw","any","blob","nested"],"additionalProperties":false}`
	if got := string(tool.Parameters); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	if m := schemaOf(t, agentloop.NewTool("m", "", func(context.Context, map[string]int) (string, error) { return "", nil })); m["type"] != "object" {
		t.Errorf("map schema %v", m)
	}
}

func TestNewToolUnsupported(t *testing.T) {
	type recursive struct {
		Next *recursive `json:"next"`
	}
	type dup struct {
		A string `json:"a"`
		B string `json:"A"`
	}
	type str struct {
		N int `json:"n,string"`
	}
	type withChan struct{ C chan int }
	type withFunc struct{ F func() }
	type withComplex struct{ C complex128 }
	type intKeys struct{ M map[int]string }
	type iface struct{ E error }
	tools := map[string]agentloop.Tool{
		"recursive":  agentloop.NewTool("t", "", func(context.Context, recursive) (string, error) { return "", nil }),
		"dup":        agentloop.NewTool("t", "", func(context.Context, dup) (string, error) { return "", nil }),
		",string":    agentloop.NewTool("t", "", func(context.Context, str) (string, error) { return "", nil }),
		"chan":       agentloop.NewTool("t", "", func(context.Context, withChan) (string, error) { return "", nil }),
		"func":       agentloop.NewTool("t", "", func(context.Context, withFunc) (string, error) { return "", nil }),
		"complex":    agentloop.NewTool("t", "", func(context.Context, withComplex) (string, error) { return "", nil }),
		"int keys":   agentloop.NewTool("t", "", func(context.Context, intKeys) (string, error) { return "", nil }),
		"interface":  agentloop.NewTool("t", "", func(context.Context, iface) (string, error) { return "", nil }),
		"not object": agentloop.NewTool("t", "", func(context.Context, []string) (string, error) { return "", nil }),
		"string":     agentloop.NewTool("t", "", func(context.Context, string) (string, error) { return "", nil }),
	}
	for name, tool := range tools {
		t.Run(name, func(t *testing.T) {
			if _, err := tool.Run(context.Background(), json.RawMessage(`{}`)); !errors.Is(err, agentloop.ErrUnsupportedType) {
				t.Errorf("Run: %v, want ErrUnsupportedType", err)
			}
			m := &script{}
			_, err := (&agentloop.Loop{Model: m, Tools: []agentloop.Tool{tool}}).Run(context.Background(), user)
			if !errors.Is(err, agentloop.ErrInvalidLoop) || !errors.Is(err, agentloop.ErrUnsupportedType) || len(m.seen) != 0 {
				t.Errorf("Loop: %v after %d requests, want ErrInvalidLoop and ErrUnsupportedType before any", err, len(m.seen))
			}
		})
	}
}

type readIn struct {
	Path  string `json:"path"`
	Lines int    `json:"lines,omitempty"`
	Opts  *struct {
		Mode string `json:"mode"`
	} `json:"opts"`
	Ranges []struct {
		From int `json:"from"`
	} `json:"ranges,omitempty"`
}

func TestNewToolDecoding(t *testing.T) {
	var got readIn
	tool := agentloop.NewTool("read", "", func(_ context.Context, in readIn) (string, error) {
		got = in
		return "read " + in.Path, nil
	})
	tests := []struct{ args, want string }{
		{`{"path":"a.go"}`, ""},
		{`{"path":"a.go","lines":3,"opts":{"mode":"x"},"ranges":[{"from":1}]}`, ""},
		{`{"path":"a.go","colour":1}`, `the argument "colour" is not a parameter of this tool`},
		{`{"path":"a.go","lines":"3"}`, `the argument "lines" is a JSON string, not an integer in the range of int`},
		{`{"path":1}`, `the argument "path" is a JSON number, not a string`},
		{`{"lines":3}`, `the argument "path" is missing`},
		{`{"path":"a","opts":{}}`, `the argument "opts.mode" is missing`},
		{`{"path":"a","ranges":[{"from":1},{}]}`, `the argument "ranges[1].from" is missing`},
		{`{"path":"a","opts":{"mode":"x","extra":1}}`, `the argument "opts.extra" is not a parameter of this tool`},
		{`{"path":"a","lines":300000000000000000000}`, `the argument "lines" is a JSON number 300000000000000000000, not an integer in the range of int`},
		{`{"path":"a"} {}`, `the arguments have more after the object; send one JSON object`},
		// Strict means the schema's own rules (issue 26 item 6): names are
		// exact although encoding/json matches them without case, a
		// required member is not null at any depth, a member comes once.
		{`{"path":"a.go","lines":null,"opts":null}`, ""},
		{`{"PATH":"a.go"}`, `the argument "PATH" is not a parameter of this tool; names are exact: "path"`},
		{`{"path":"a.go","Lines":3}`, `the argument "Lines" is not a parameter of this tool; names are exact: "lines"`},
		{`{"path":"a","opts":{"Mode":"x"}}`, `the argument "opts.Mode" is not a parameter of this tool; names are exact: "opts.mode"`},
		{`{"path":null}`, `the argument "path" is null; it is required and takes a string`},
		{`{"path":"a","opts":{"mode":null}}`, `the argument "opts.mode" is null; it is required and takes a string`},
		{`{"path":"a","ranges":[{"from":null}]}`, `the argument "ranges[0].from" is null; it is required and takes an integer in the range of int`},
		{`{"path":"a","ranges":[null]}`, `the argument "ranges[0]" is null; it is required and takes an object`},
		{`{"path":"a.go","path":"/"}`, `the argument "path" is given twice; send it once`},
		{`null`, `the arguments are null, not an object`},
		{`[]`, `the arguments are a JSON array, not an object`},
		{`{"path":"a"`, `the arguments do not decode: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		got = readIn{}
		out, err := tool.Run(context.Background(), json.RawMessage(tt.args))
		if tt.want == "" {
			if err != nil || out != "read a.go" || got.Path != "a.go" {
				t.Errorf("%s: %q, %v", tt.args, out, err)
			}
			continue
		}
		var rec *agentloop.RecoverableError
		if !errors.As(err, &rec) || err.Error() != tt.want || got.Path != "" {
			t.Errorf("%s: err %v, want recoverable %q (run called: %v)", tt.args, err, tt.want, got.Path != "")
		}
	}
}

// TestNewToolInLoop: the model sees a decoding failure and tries again.
func TestNewToolInLoop(t *testing.T) {
	tool := agentloop.NewTool("read", "reads", func(_ context.Context, in readIn) (string, error) { return "read " + in.Path, nil })
	s := &script{turns: []llmstream.Message{asst("", call("c1", "read", `{"file":"a"}`)), asst("", call("c2", "read", `{"path":"a"}`)), asst("done")}}
	res, err := (&agentloop.Loop{Model: s, Tools: []agentloop.Tool{tool}}).Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := res.Messages[3], res.Messages[5]; !strings.Contains(a.Content, `"file" is not a parameter`) || !a.IsError || b.Content != "read a" {
		t.Errorf("answers %+v, %+v", a, b)
	}
	if string(s.tools[0][0].Function.Parameters) != string(tool.Parameters) {
		t.Errorf("offered %s", s.tools[0][0].Function.Parameters)
	}
}
