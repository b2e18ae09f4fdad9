package llmstreamtest

import (
	"encoding/json"
	"strconv"
)

// FaultKind says which failure a [Fault] injects. The zero value means no
// fault.
//
// The shapes named below are the chat dialect's. The other dialects write
// each fault in their provider's own form: a status fault answers with
// that API's JSON error body, and an in-stream error is Anthropic's
// "error" event, the Responses API's "error" event (response.failed for
// FaultErrorFinish), Gemini's error object as an event, or Bedrock's
// exception frame (see [Fault.Type]), after which the stream ends.
// FaultErrorFinish and FaultErrorLine imitate OpenRouter and llama.cpp,
// chat servers, so the other dialects send that in-stream error for them.
// In Bedrock a malformed event is a frame whose CRC is wrong, a cut ends
// inside a frame, and no keep-alive is sent (Bedrock has none).
type FaultKind uint8

const (
	// FaultStatus answers the request with an HTTP error status and a
	// JSON error body (in chat {"error":{"message","type","param",
	// "code"}}), plus a Retry-After header when [Fault.RetryAfter] is set.
	// See [Fault.Attempts] for retry tests.
	FaultStatus FaultKind = iota + 1
	// FaultErrorEvent writes an in-stream error event
	// (data: {"error":{...}}) after [Fault.After] chunks, then [DONE].
	FaultErrorEvent
	// FaultErrorFinish writes OpenRouter's in-stream error after
	// [Fault.After] chunks: a chunk carrying a top-level "error" and a
	// choice with finish_reason "error", then [DONE].
	FaultErrorFinish
	// FaultErrorLine writes llama.cpp's non-standard SSE line
	// "error: {...}" after [Fault.After] chunks, then data: [DONE] — a
	// stream that looks cleanly ended to a client that ignores the line.
	FaultErrorLine
	// FaultCut drops the connection after [Fault.After] chunks: the client
	// sees the body end with an error (an unexpected EOF), not a clean end.
	FaultCut
	// FaultStall stops writing after [Fault.After] chunks, with the
	// connection open, until the client goes away or the server is closed.
	FaultStall
	// FaultMalformed writes one event whose data is not valid JSON after
	// [Fault.After] chunks, then carries on with the rest of the stream.
	FaultMalformed
	// FaultTruncate ends the body cleanly after [Fault.After] chunks with
	// no finish reason and no [DONE]: After counts only the chunks before
	// the first one that carries a finish reason, and is capped there.
	FaultTruncate

	faultKindEnd // one past the last valid kind
)

// String returns the kind's name ("status", "error_event", "error_finish",
// "error_line", "cut", "stall", "malformed", "truncate"), "none" for zero.
func (k FaultKind) String() string {
	switch k {
	case 0:
		return "none"
	case FaultStatus:
		return "status"
	case FaultErrorEvent:
		return "error_event"
	case FaultErrorFinish:
		return "error_finish"
	case FaultErrorLine:
		return "error_line"
	case FaultCut:
		return "cut"
	case FaultStall:
		return "stall"
	case FaultMalformed:
		return "malformed"
	case FaultTruncate:
		return "truncate"
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// Defaults of a [Fault]'s zero fields.
const (
	// DefaultFaultStatus is the HTTP status of a [FaultStatus] whose Status
	// is 0.
	DefaultFaultStatus = 500
	// DefaultFaultMessage is the error message of a fault whose Message is
	// empty.
	DefaultFaultMessage = "llmstreamtest: scripted fault"
	// DefaultFaultType is the error type of a fault whose Type is empty.
	DefaultFaultType = "server_error"
)

// Fault is a failure injected into one turn. The zero value injects none.
//
// Stream faults strike after After chunk events: 0 before the first chunk,
// and an After past the last chunk strikes just before [DONE] (for
// FaultTruncate, see its doc). Keep-alive comments are not counted. The
// fields are checked when the turn is served; a bad value fails the request
// with [ErrBadTurn]. A Fault is a plain value, copied with its [Turn].
type Fault struct {
	// Kind selects the fault; values past FaultTruncate are invalid.
	Kind FaultKind
	// After is the number of chunk events written before a stream fault
	// strikes. Negative is invalid. Unused by FaultStatus.
	After int

	// Status is the HTTP status of a FaultStatus: 400–599, 0 for
	// [DefaultFaultStatus]. Other values are invalid.
	Status int
	// Attempts shapes a FaultStatus served from [WithTurns]: the first
	// Attempts requests that reach this turn are answered with Status and
	// the next one gets the turn's stream, so a retrying client sees
	// success after Attempts failures. 0 means the turn is the error alone:
	// one request gets it and the script moves on. Negative is invalid.
	// With [WithResponder] it is ignored: every request whose turn has a
	// FaultStatus is answered with it.
	Attempts int
	// RetryAfter is the Retry-After header value of a FaultStatus, sent as
	// it is (delay-seconds or an HTTP date); empty sends none. Control
	// characters are invalid.
	RetryAfter string

	// Message, Type and Code fill the error object of FaultStatus,
	// FaultErrorEvent, FaultErrorFinish and FaultErrorLine. Empty Message
	// means [DefaultFaultMessage]. Empty Type means [DefaultFaultType],
	// except for a FaultStatus in the chat and Responses wires that names
	// neither Type nor Code: it gets the type and code OpenAI gives its
	// status (401 invalid_api_key, 429 rate_limit_exceeded, ...), so the
	// client classifies it as it would the real answer.
	//
	// Gemini and Bedrock send only their own names, so a fault written for
	// every wire (in OpenAI's words) still injects a real error there. In
	// Bedrock, Type is used only when it names one of ConverseStream's
	// errors, in either case of its first letter: over HTTP the
	// x-amzn-ErrorType (ValidationException, AccessDeniedException,
	// ResourceNotFoundException, ModelTimeoutException,
	// ModelErrorException, ModelNotReadyException, ThrottlingException,
	// ServiceUnavailableException, InternalServerException); in the stream
	// the :exception-type (validationException, throttlingException,
	// serviceUnavailableException, internalServerException,
	// modelStreamErrorException). Any other Type is replaced by the name
	// Status goes with (400 validation, 429 throttling, 503 and 529
	// service unavailable, other 5xx internal server), else
	// modelStreamErrorException in the stream: a Bedrock client reads an
	// exception type it does not know as no error at all.
	Message, Type string
	// Code is the error's "code" as JSON text — a string such as
	// `"rate_limit_exceeded"` or an integer such as `429`, as providers
	// differ; nil sends null. Text that is not valid JSON is invalid.
	Code json.RawMessage
}

// message, errType and code return the fields with their defaults applied.
func (f Fault) message() string {
	if f.Message == "" {
		return DefaultFaultMessage
	}
	return f.Message
}

func (f Fault) errType() string {
	if f.Type == "" {
		return DefaultFaultType
	}
	return f.Type
}

func (f Fault) code() json.RawMessage {
	if len(f.Code) == 0 {
		return json.RawMessage("null")
	}
	return f.Code
}

func (f Fault) status() int {
	if f.Status == 0 {
		return DefaultFaultStatus
	}
	return f.Status
}
