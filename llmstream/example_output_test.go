package llmstream_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// A typed answer: the schema derived from a Go type goes in the
// dialect's native form, and the answer decodes strictly into the type.
func ExampleDecodeOutput() {
	type step struct {
		Title string `json:"title"`
	}
	type plan struct {
		Steps []step `json:"steps"`
	}
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{Text: `{"steps":[{"title":"write"},{"title":"test"}]}`}))
	defer srv.Close()
	client := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL),
		llmstream.WithHTTPClient(srv.Client()), llmstream.WithModel("m"), llmstream.WithAPIKey("k"))

	out, err := llmstream.OutputSchemaFor[plan]("plan")
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, err := client.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "plan it"}},
		Output:   out,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := llmstream.DecodeOutput[plan](msg)
	fmt.Println(p.Steps, err, srv.Requests()[0].Output != nil)
	_, err = llmstream.DecodeOutput[plan](llmstream.Message{Content: `{"Steps":[]}`})
	fmt.Println(err)
	// Output:
	// [{write} {test}] <nil> true
	// llmstream: invalid structured output: the member "Steps" is not in the schema; names are exact: "steps"
}
