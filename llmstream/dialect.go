package llmstream

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/airlock-go/airlock/sse"
)

// Dialect is the wire protocol a [Client] speaks and a [Bridge] reads. Every
// dialect gives the same [Message], with the same guarantees: bounded,
// independent of how the bytes were split, typed errors, no half-formed
// call. The README's Dialects section gives each one's endpoint, auth and
// proper end; each dialect_X.go file (decoding) and encode_X.go (the
// request) is its spec. The zero value means [DialectChat].
type Dialect uint8

const (
	// DialectChat is OpenAI Chat Completions and every compatible server
	// (Azure, vLLM, Ollama, llama.cpp, OpenRouter, Groq, ...); its wire is
	// described in dialect_chat.go.
	DialectChat Dialect = iota + 1
	// DialectAnthropic is Anthropic's Messages API (dialect_anthropic.go).
	DialectAnthropic
	// DialectResponses is OpenAI's Responses API (dialect_responses.go).
	DialectResponses
	// DialectGemini is Google's Gemini API, streamGenerateContent
	// (dialect_gemini.go).
	DialectGemini
	// DialectBedrock is Amazon Bedrock's Converse API, streamed as AWS
	// event-stream frames, not SSE (dialect_bedrock.go).
	DialectBedrock

	dialectEnd
)

// String returns the dialect's name: "chat", "anthropic", "responses",
// "gemini" or "bedrock" ("chat" for the zero value, which means it).
func (d Dialect) String() string {
	switch d.normal() {
	case DialectChat:
		return "chat"
	case DialectAnthropic:
		return "anthropic"
	case DialectResponses:
		return "responses"
	case DialectGemini:
		return "gemini"
	case DialectBedrock:
		return "bedrock"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// ParseDialect returns the dialect named s, as flags and configuration
// files give it: "chat", "anthropic", "responses", "gemini" or "bedrock", in any case;
// "openai" is taken for "chat". Any other name is an error that lists the
// names.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "chat", "openai":
		return DialectChat, nil
	case "anthropic":
		return DialectAnthropic, nil
	case "responses":
		return DialectResponses, nil
	case "gemini":
		return DialectGemini, nil
	case "bedrock":
		return DialectBedrock, nil
	}
	return 0, fmt.Errorf("llmstream: unknown dialect %q (want chat, anthropic, responses, gemini or bedrock)", s)
}

// ProviderName is the name the OpenTelemetry GenAI conventions give the
// provider whose API d is (gen_ai.provider.name): "openai" for
// [DialectChat] and [DialectResponses], "anthropic", "gcp.gemini",
// "aws.bedrock"; "" for an unknown dialect. A Client at Vertex AI says
// more: see [Client.ProviderName].
func (d Dialect) ProviderName() string {
	if d >= dialectEnd {
		return ""
	}
	return d.protocol().providerName()
}

// MarshalText returns the dialect's name, so a Dialect marshals as a JSON
// string and works with flag.TextVar.
func (d Dialect) MarshalText() ([]byte, error) {
	if d >= dialectEnd {
		return nil, fmt.Errorf("llmstream: unknown dialect %d", uint8(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads a name as [ParseDialect] does.
func (d *Dialect) UnmarshalText(text []byte) error {
	v, err := ParseDialect(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// normal is d with the zero value resolved to DialectChat.
func (d Dialect) normal() Dialect {
	if d == 0 {
		return DialectChat
	}
	return d
}

// protocol is one wire dialect: how to build its request, read its stream
// and read its errors. One implementation per dialect_*.go file.
type protocol interface {
	// defaultBase is the base URL when none is set; emptyPath is the path
	// a base URL with none gets ("/v1").
	defaultBase() string
	emptyPath() string
	// endpoint returns the request URL for a normalized base URL.
	endpoint(base *url.URL, model string) (string, error)
	// header sets the dialect's authentication and protocol headers.
	header(h http.Header, apiKey string)
	// encode writes the request body for r, with every default applied.
	encode(r *Request, cfg *config) ([]byte, error)
	// doneSentinel is the SSE data that ends the stream, "" for none.
	doneSentinel() string
	// newDecoder returns the decoder of one stream into s.
	newDecoder(s sink) decoder
	// parseError reads an error body or an in-stream error, its Kind set;
	// ok is false when raw is of no known shape.
	parseError(raw []byte, status int) (e *APIError, ok bool)
	// providerName is the gen_ai.provider.name the OpenTelemetry GenAI
	// conventions give the provider whose API this is.
	providerName() string
}

// wholeReader is a protocol whose servers may answer with one whole JSON
// completion instead of a stream (a server that ignored "stream": true);
// readWhole reads it into s, at most limit bytes.
type wholeReader interface {
	readWhole(s sink, r io.Reader, limit int)
}

// maxWholeBytes bounds a whole JSON completion, in bytes.
const maxWholeBytes = 64 << 20

// framedProtocol is a protocol whose stream is not SSE (Bedrock's AWS
// event stream): it names the answer's media type and reads the body into
// events itself.
type framedProtocol interface {
	mediaType() string
	newSource(r io.Reader, b *Bridge) EventSource
}

// headerErrorParser is a protocol whose HTTP error answers may name their
// type in a header only (Bedrock's x-amzn-ErrorType); it is used instead
// of parseError for them.
type headerErrorParser interface {
	parseErrorHeader(raw []byte, status int, h http.Header) (*APIError, bool)
}

// decoder reads one stream's events into its sink. A decoder applies
// nothing of an event that fails: it validates the whole event first.
type decoder interface {
	// event applies one SSE event and returns the Bridge's error.
	event(ev *sse.Event) error
	// complete reports whether the stream, ending now, ended properly.
	complete() bool
}

// protocol returns d's implementation.
func (d Dialect) protocol() protocol {
	switch d.normal() {
	case DialectAnthropic:
		return anthropicProtocol{}
	case DialectResponses:
		return responsesProtocol{}
	case DialectGemini:
		return geminiProtocol{}
	case DialectBedrock:
		return bedrockProtocol{}
	}
	return chatProtocol{}
}
