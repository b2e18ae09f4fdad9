package bench

// peers_responses.go: full-pipeline peers for OpenAI Responses streams:
// SSE, the JSON of every event, and the accumulation of the output items
// (message text, reasoning summary with its encrypted_content, function
// call arguments), followed by output_index, into one message.

import (
	"bytes"

	"github.com/airlock-go/airlock/llmstream"
)

var responsesPeers = []PipelinePeer{
	{Name: "airlock", About: "airlock llmstream.ReadMessage(body, WithDialect(DialectResponses)): sse + bridge + tool-call assembler",
		New: each(func(d []byte) (Message, error) { return airlockRead(bytes.NewReader(d), llmstream.DialectResponses) })},
}
