package agentloop_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
)

// NewTool derives the JSON Schema from the input type and decodes the
// arguments strictly; a mistake is answered to the model, naming the
// member, so it can send the call again.
func ExampleNewTool() {
	type repeatIn struct {
		Text  string `json:"text" jsonschema:"what to repeat"`
		Times int    `json:"times,omitempty" jsonschema:"how many times, 1 if absent"`
	}
	repeat := agentloop.NewTool("repeat", "Repeats text.", func(_ context.Context, in repeatIn) (string, error) {
		return strings.Repeat(in.Text, max(in.Times, 1)), nil
	})
	fmt.Println(string(repeat.Parameters))
	out, err := repeat.Run(context.Background(), []byte(`{"text":"ab","times":3}`))
	fmt.Println(out, err)
	_, err = repeat.Run(context.Background(), []byte(`{"text":"ab","times":"3"}`))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"text":{"type":"string","description":"what to repeat"},"times":{"type":"integer","description":"how many times, 1 if absent"}},"required":["text"],"additionalProperties":false}
	// ababab <nil>
	// the argument "times" is a JSON string, not an integer in the range of int
}
