package llmstreamtest

import "strconv"

// Flavor selects whose chunk shapes the server imitates. The zero value
// means unset and serves [OpenAI]. Every flavour streams valid
// chat.completion.chunk JSON; they differ where real servers differ, so a
// client can be tested against each shape it will meet.
type Flavor uint8

const (
	// OpenAI: role on the first chunk (which carries the first tool-call
	// header when the turn starts with a call); "service_tier",
	// "system_fingerprint" and a random "obfuscation" on every chunk;
	// arguments in 1–6-byte fragments; finish reason in its own
	// "delta":{} chunk; when the request asked stream_options.include_usage,
	// "usage":null on every chunk and the usage on a final "choices":[]
	// chunk; then [DONE]. Reasoning is sent as "reasoning_content" and a
	// refusal as "refusal".
	OpenAI Flavor = iota + 1
	// Azure: as OpenAI, but the first chunk has "choices":[] and
	// "prompt_filter_results", choices carry "content_filter_results", and
	// one chunk before the finish has a choice with no "delta".
	Azure
	// Ollama: "role" on every chunk, reasoning in a "reasoning" field, all
	// tool calls whole in one chunk (with indexes), the finish chunk
	// carrying role and empty content.
	Ollama
	// Gemini (its OpenAI endpoint): tool calls whole in one chunk, without
	// "index", with the id as scripted (an empty [Call.ID] is sent as
	// "id":""); the finish reason rides on the last chunk and defaults to
	// "stop" even for tool calls; usage, when scripted, rides there too.
	Gemini
	// VLLM: the tool-call header carries no "arguments"; explicit nulls
	// ("content":null, "reasoning_content":null, "stop_reason":null); for a
	// turn with calls, the last chunk carries the last argument fragment and
	// the finish reason together; an in-stream error is written the way
	// Python's json.dumps writes it (a space after ':' and ',').
	VLLM
	// LlamaCpp: "reasoning_content"; the first chunk has "content":null;
	// usage (when scripted, whether asked for or not) and "timings" on the
	// finish chunk.
	LlamaCpp

	flavorEnd // one past the last valid flavour
)

// String returns the flavour's name ("openai", "azure", "ollama", "gemini",
// "vllm", "llamacpp"), "unset" for the zero value.
func (f Flavor) String() string {
	switch f {
	case 0:
		return "unset"
	case OpenAI:
		return "openai"
	case Azure:
		return "azure"
	case Ollama:
		return "ollama"
	case Gemini:
		return "gemini"
	case VLLM:
		return "vllm"
	case LlamaCpp:
		return "llamacpp"
	}
	return "Flavor(" + strconv.Itoa(int(f)) + ")"
}
