package llmstreamtest

import (
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// wire is one dialect the server speaks: how its requests are read, how a
// turn is streamed, how a fault looks in it. One implementation per
// wire_*.go file.
type wire interface {
	dialect() llmstream.Dialect
	// decode fills r's neutral fields from r.Body.
	decode(r *Request) error
	// render returns the turn's events; the last ones end the stream
	// properly, except for chat, whose [DONE] is end's.
	render(rd *renderer) []event
	// end is written after the events: chat's [DONE], nothing elsewhere.
	end() []byte
	// errorBody is an HTTP error answer's body; errorEvent the in-stream
	// error; malformed an event whose data is not JSON; keepAlive the
	// dialect's keep-alive.
	errorBody(status int, f Fault) []byte
	errorEvent(rd *renderer, f Fault) []byte
	malformed(rd *renderer) []byte
	keepAlive() []byte
}

// The paths the server answers, by dialect.
const (
	chatPaths      = "/chat/completions or /v1/chat/completions"
	anthropicPaths = "/messages or /v1/messages"
	responsesPaths = "/responses or /v1/responses"
	geminiPaths    = "/v1beta/models/{model}:streamGenerateContent"
)

// wireFor is the dialect served at path, and the model a Gemini path
// names; ok is false for a path the server does not serve.
func wireFor(path string) (w wire, model string, ok bool) {
	switch path {
	case "/chat/completions", "/v1/chat/completions":
		return chatWire{}, "", true
	case "/messages", "/v1/messages":
		return anthropicWire{}, "", true
	case "/responses", "/v1/responses":
		return responsesWire{}, "", true
	}
	if model, ok := geminiModelPath(path); ok {
		return geminiWire{}, model, true
	}
	if model, ok := bedrockModelPath(path); ok {
		return bedrockWire{}, model, true
	}
	return nil, "", false
}

// allPaths lists every path served, for the error of a wrong one.
func allPaths() string {
	return strings.Join([]string{chatPaths, anthropicPaths, responsesPaths, geminiPaths, bedrockPaths}, ", ")
}

// sseEvent is one SSE event named typ with data.
func sseEvent(typ string, data []byte) []byte {
	out := make([]byte, 0, len(typ)+len(data)+16)
	out = append(out, "event: "...)
	out = append(out, typ...)
	out = append(out, "\ndata: "...)
	out = append(out, data...)
	return append(out, '\n', '\n')
}
