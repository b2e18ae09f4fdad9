package llmstream_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

type reviewPlan struct {
	Goal  string       `json:"goal"`
	Steps []reviewStep `json:"steps"`
	Note  *string      `json:"note"`
}

type reviewStep struct {
	Title string `json:"title"`
	N     int8   `json:"n"`
}

// TestReviewDecodeOutputStrict: every relaxation encoding/json allows is
// refused with ErrInvalidOutput, the error naming the member; the strict
// answers decode.
func TestReviewDecodeOutputStrict(t *testing.T) {
	good := []string{
		`{"goal":"g","steps":[],"note":null}`,
		` {"goal":"g","steps":[{"title":"t","n":127}],"note":"x"} `,
		`{"goal":"\u0067","steps":[{"title":"t","n":-128}],"note":null}`,
	}
	for _, text := range good {
		if _, err := llmstream.DecodeOutput[reviewPlan](llmstream.Message{Content: text}); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	bad := map[string]string{
		`{"Goal":"g","steps":[],"note":null}`:                          "goal",
		`{"goal":"g","goal":"h","steps":[],"note":null}`:               "goal",
		`{"goal":"g","steps":[],"note":null,"x":1}`:                    "x",
		`{"goal":null,"steps":[],"note":null}`:                         "goal",
		`{"goal":"g","steps":null,"note":null}`:                        "steps",
		`{"goal":"g","steps":[{"title":"t"}],"note":null}`:             "n",
		`{"goal":"g","steps":[{"title":"t","n":128}],"note":null}`:     "n",
		`{"goal":"g","steps":[{"title":"t","n":1.5}],"note":null}`:     "n",
		`{"goal":"g","steps":[{"title":"t","n":"1"}],"note":null}`:     "n",
		`{"goal":"g","steps":[{"title":"t","n":1,"N":2}],"note":null}`: "N",
		`{"goal":"g","steps":[],"note":null}{}`:                        "",
		`{"goal":"g","steps":[],"note":null`:                           "",
		`{"goal":"g","steps":[],"note":null,"goal\u0000":1}`:           "",
		`{"goal":"g","steps":[],"note":null,"\u0067oal":"h"}`:          "goal",
		`[]`: "",
		``:   "",
		`{"goal":"g","steps":[{"title":"t","n":1},null],"note":null}`:      "steps",
		`{"goal":"g","steps":[{"title":"t","n":1e0}],"note":null}`:         "n",
		`{"goal":"g","steps":[{"title":"t","n":-0}],"note":null} trailing`: "",
	}
	for text, member := range bad {
		v, err := llmstream.DecodeOutput[reviewPlan](llmstream.Message{Content: text})
		if !errors.Is(err, llmstream.ErrInvalidOutput) || !strings.Contains(err.Error(), member) {
			t.Errorf("%s: %+v, %v; want ErrInvalidOutput naming %q", text, v, err, member)
		}
		if err != nil && (v.Goal != "" || v.Steps != nil || v.Note != nil) {
			t.Errorf("%s: a half-decoded value %+v came with the error", text, v)
		}
	}
	if _, err := llmstream.DecodeOutput[reviewPlan](llmstream.Message{Content: good[0], StopReason: llmstream.StopLength}); !errors.Is(err, llmstream.ErrInvalidOutput) {
		t.Errorf("a cut answer: %v", err)
	}
	if _, err := llmstream.DecodeOutput[reviewPlan](llmstream.Message{Content: good[0], Refusal: "no"}); !errors.Is(err, llmstream.ErrInvalidOutput) {
		t.Errorf("a refusal: %v", err)
	}
	if _, err := llmstream.DecodeOutput[chan int](llmstream.Message{Content: "{}"}); !errors.Is(err, llmstream.ErrUnsupportedType) {
		t.Errorf("chan: %v", err)
	}
}

// TestReviewOutputSchemaForStrict: Strict is promised by OpenAI's rules
// only for a schema whose every property is required and whose objects
// allow nothing else; OutputSchemaFor sets it only then.
func TestReviewOutputSchemaForStrict(t *testing.T) {
	type allRequired struct {
		Steps []reviewStep `json:"steps"`
		Inner struct {
			A string `json:"a"`
		} `json:"inner"`
	}
	type optionalDeep struct {
		Steps []struct {
			Note *string `json:"note"`
		} `json:"steps"`
	}
	type withMap struct {
		M map[string]int `json:"m"`
	}
	check := func(name string, o *llmstream.OutputSchema, err error, want bool) {
		t.Helper()
		if err != nil || o.Strict != want {
			t.Errorf("%s: Strict %v (%v), want %v; schema %s", name, o != nil && o.Strict, err, want, o.Schema)
		}
	}
	o, err := llmstream.OutputSchemaFor[allRequired]("a")
	check("all required", o, err, true)
	o, err = llmstream.OutputSchemaFor[reviewPlan]("p")
	check("a pointer member", o, err, false)
	o, err = llmstream.OutputSchemaFor[optionalDeep]("d")
	check("a pointer member in an array's objects", o, err, false)
	o, err = llmstream.OutputSchemaFor[withMap]("m")
	check("a map", o, err, false)
}
