module github.com/airlock-go/airlock/llmstream/llmstreamtest/compat

go 1.24

require (
	github.com/openai/openai-go/v3 v3.98.0
	github.com/sashabaranov/go-openai v1.43.0
	go.uber.org/goleak v1.3.0
)

replace github.com/airlock-go/airlock => ../../..
