package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unsafe"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is Amazon Bedrock's ConverseStream dialect (DialectBedrock):
// its frames read as events, the decoder of those events, and its error
// bodies. The request encoder is in encode_bedrock.go.
//
// The body is not SSE but AWS event-stream frames
// (application/vnd.amazon.eventstream, package eventstream). Each frame
// with ":message-type" "event" is one event named by ":event-type", its
// payload one JSON object:
//
//	messageStart       {"role":"assistant"}
//	contentBlockStart  {"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}
//	contentBlockDelta  {"contentBlockIndex":0,"delta":{"text":"Hi"}}
//	                   {"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}}
//	                   {"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"..."}}}
//	                   ... "reasoningContent":{"signature":"..."} or {"redactedContent":"<base64>"}
//	contentBlockStop   {"contentBlockIndex":0}
//	messageStop        {"stopReason":"end_turn"}
//	metadata           {"usage":{"inputTokens":..,"outputTokens":..,"totalTokens":..},"metrics":{"latencyMs":..}}
//
// A block may be started with a start of any kind, or none ("start":{}),
// or begin with its first delta; content may come with no messageStart
// before it (real streams do both). A toolUse whose "type" is
// "server_tool_use" is a tool the provider runs itself (Nova's code
// interpreter): not a call, and, like the toolResult, image or citation
// blocks around it, not kept. Frames with ":message-type" "exception" (their type in
// ":exception-type") or "error" (":error-code", ":error-message") are the
// provider's errors.
//
// POST {base}/model/{modelId}/converse-stream (base [DefaultBedrockBaseURL],
// or [BedrockBaseURL] of a region) with a Bedrock API key as
// "Authorization: Bearer" (or no key, and a Doer that signs the request
// with SigV4: contrib/aws). What each event gives:
//
//	contentBlockDelta text               → text
//	contentBlockStart toolUse +          → calls by contentBlockIndex (ID is
//	  contentBlockDelta toolUse.input      toolUseId), the input fragments joined
//	contentBlockDelta reasoningContent   → reasoning; the block with its signature,
//	  (text, signature, redactedContent)   or its redactedContent, kept in
//	                                       Continuity and written back in place
//	messageStop stopReason               → kept; guardrail_intervened and
//	                                       content_filtered are StopContentFilter
//	metadata usage                       → usage (before or after messageStop)
//	metadata trace.promptRouter.         → Message.Model (a prompt router's
//	  invokedModelId                       choice; else the request's model)
//	exception frames (throttlingException, → *APIError with the exception type and
//	  modelStreamErrorException, ...)       message kept exactly
//
// The stream ends properly at messageStop; reading goes on until its
// metadata arrived or the body ended. A second messageStart, a block
// started twice, a delta for a block that stopped, a tool-use delta for a
// block never started, or content after messageStop is [ErrOutOfOrder].
// A bad frame (a CRC, a cut frame, headers over 128 KiB) is the
// eventstream package's error, in the chain. A frame's payload is one
// event's data, under the same limit as every dialect's events
// ([DefaultMaxEventSize], or sse.WithMaxEventSize in [WithSSEOptions]):
// past it, an *sse.EventSizeError (errors.Is sse.ErrEventTooLarge). A
// request without a model fails with [ErrInvalidRequest]: the URL names
// it.

// DefaultBedrockBaseURL is the base URL of a Bedrock [Client] when none is
// set: the us-east-1 endpoint. [BedrockBaseURL] gives another region's.
const DefaultBedrockBaseURL = "https://bedrock-runtime.us-east-1.amazonaws.com"

// BedrockBaseURL returns the Bedrock runtime endpoint of an AWS region,
// "https://bedrock-runtime.<region>.amazonaws.com", for [WithBaseURL].
func BedrockBaseURL(region string) string {
	return "https://bedrock-runtime." + url.PathEscape(region) + ".amazonaws.com"
}

// bedrockMediaType is the Content-Type of a ConverseStream answer.
const bedrockMediaType = "application/vnd.amazon.eventstream"

type bedrockProtocol struct{}

func (bedrockProtocol) defaultBase() string  { return DefaultBedrockBaseURL }
func (bedrockProtocol) providerName() string { return "aws.bedrock" }
func (bedrockProtocol) emptyPath() string    { return "" }
func (bedrockProtocol) doneSentinel() string { return "" }
func (bedrockProtocol) mediaType() string    { return bedrockMediaType }

// endpoint is {base}/model/{modelId}/converse-stream; the model id (an ARN
// has slashes and colons) is one escaped path segment.
func (bedrockProtocol) endpoint(base *url.URL, model string) (string, error) {
	if model == "" {
		return "", fmt.Errorf("%w: a Bedrock request needs a model: its URL names it", ErrInvalidRequest)
	}
	u := *base
	if err := setPath(&u, u.EscapedPath()+"/model/"+url.PathEscape(model)+"/converse-stream"); err != nil {
		return "", fmt.Errorf("%w: model %q makes a bad path", ErrInvalidRequest, model)
	}
	return u.String(), nil
}

// header sends a Bedrock API key as a bearer token; without one the
// request goes unsigned, for a Doer that signs it (contrib/aws).
func (bedrockProtocol) header(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	h.Set("Accept", bedrockMediaType)
}

func (bedrockProtocol) newDecoder(s sink) decoder { return &bedrockDecoder{b: s} }

// newSource reads frames under the event size limit every dialect reads
// with ([DefaultMaxEventSize], or sse.WithMaxEventSize in
// [WithSSEOptions]): a frame's payload is its event's data.
func (bedrockProtocol) newSource(r io.Reader, b *Bridge) EventSource {
	limit, err := eventSizeLimit(b.config().sseOpts)
	// A frame is buffered whole: bound it by the payload limit plus what
	// the rest of a frame may hold, so that memory follows the limit too.
	frameMax := min(eventstream.DefaultMaxFrameSize, limit+bedrockFrameOverhead)
	return &bedrockSource{r: eventstream.NewReader(r, eventstream.WithMaxFrameSize(frameMax)), limit: limit, frameMax: frameMax, err: err}
}

// bedrockFrameOverhead is the most a frame holds besides its payload: the
// prelude and CRCs, and a headers section at its limit.
const bedrockFrameOverhead = 16 + eventstream.MaxHeadersSize

// parseError reads Bedrock's error bodies, {"message":"..."} (or
// "Message"), with the type in "__type" when the body names it.
func (p bedrockProtocol) parseError(raw []byte, status int) (*APIError, bool) {
	return p.parseErrorHeader(raw, status, nil)
}

// parseErrorHeader is parseError with the answer's headers: an HTTP error
// names its type in x-amzn-ErrorType ("ValidationException:http://...").
func (bedrockProtocol) parseErrorHeader(raw []byte, status int, h http.Header) (*APIError, bool) {
	var body struct {
		Message      *string `json:"message"`
		UpperMessage *string `json:"Message"`
		Type         string  `json:"__type"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Message == nil && body.UpperMessage == nil && body.Type == "" {
		return nil, false
	}
	e := &APIError{StatusCode: status, Type: body.Type}
	if body.Message != nil {
		e.Message = *body.Message
	} else if body.UpperMessage != nil {
		e.Message = *body.UpperMessage
	}
	if e.Type == "" && h != nil {
		e.Type = h.Get("X-Amzn-Errortype")
	}
	e.Type = bedrockErrorType(e.Type)
	kind := bedrockErrorKind(e.Type)
	e.classify()
	// The exception type decides, except that a validation error may be
	// a too-long prompt, which classify told from its message.
	if kind != ErrorUnknown && !(kind == ErrorInvalidRequest && e.Kind == ErrorContextLength) {
		e.Kind = kind
	}
	return e, true
}

// bedrockErrorType is an AWS error type without its decorations: the
// namespace before '#' and the URL after ':'.
func bedrockErrorType(t string) string {
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimSpace(t)
}

// bedrockErrorKind maps Bedrock's exception types, as frames
// (lowerCamel) and HTTP answers (UpperCamel) name them.
func bedrockErrorKind(t string) ErrorKind {
	if t == "" {
		return ErrorUnknown
	}
	switch strings.ToLower(t[:1]) + t[1:] {
	case "throttlingException", "serviceQuotaExceededException":
		return ErrorRateLimited
	case "serviceUnavailableException", "modelNotReadyException":
		return ErrorOverloaded
	case "internalServerException", "internalFailure", "modelStreamErrorException", "modelTimeoutException", "modelErrorException":
		return ErrorServer
	case "validationException":
		return ErrorInvalidRequest
	case "accessDeniedException":
		return ErrorPermission
	case "unrecognizedClientException", "expiredTokenException", "invalidSignatureException", "missingAuthenticationTokenException":
		return ErrorAuthentication
	case "resourceNotFoundException":
		return ErrorNotFound
	}
	return ErrorUnknown
}

// bedrockStopReason maps a ConverseStream stopReason.
func bedrockStopReason(r string) StopReason {
	switch r {
	case "end_turn", "stop_sequence":
		return StopEndTurn
	case "tool_use":
		return StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return StopLength
	case "guardrail_intervened", "content_filtered":
		return StopContentFilter
	case "":
		return 0
	}
	return StopOther
}

// bedrockSource reads frames as events: an event frame's Type is its
// ":event-type", its Data the payload; an exception or error frame becomes
// an event of Type "error" whose data is {"__type":...,"message":...}, the
// shape of an HTTP error body. A frame of another message type is skipped.
type bedrockSource struct {
	r        *eventstream.Reader
	limit    int // on a payload, in bytes
	frameMax int // on a frame, in bytes
	err      error
	ev       sse.Event
	buf      []byte // an error frame's data
}

// NextRef returns the next frame as an event, valid until the next call.
// A bad frame's *eventstream.FrameError is returned as it is; a payload
// over the limit is an *sse.EventSizeError, as an SSE event's would be.
// The first error sticks.
func (s *bedrockSource) NextRef() (*sse.Event, error) {
	if s.err != nil {
		return nil, s.err
	}
	for {
		m, err := s.r.Next()
		if err == nil && len(m.Payload) > s.limit {
			err = &sse.EventSizeError{Size: len(m.Payload), Max: s.limit}
		}
		if err != nil {
			err = s.payloadLimit(err)
			s.ev, s.err = sse.Event{}, err
			return nil, err
		}
		mt, _ := m.Header(":message-type")
		switch string(mt.Bytes()) {
		case "event":
			t, _ := m.Header(":event-type")
			s.ev = sse.Event{Type: bedrockEventType(t.Bytes()), Data: m.Payload}
			return &s.ev, nil
		case "exception":
			t, _ := m.Header(":exception-type")
			s.buf = bedrockErrorData(s.buf[:0], t.Bytes(), m.Payload)
		case "error":
			code, _ := m.Header(":error-code")
			msg, _ := m.Header(":error-message")
			s.buf = bedrockErrorData(s.buf[:0], code.Bytes(), mustJSON(string(msg.Bytes())))
		default:
			continue
		}
		s.ev = sse.Event{Type: "error", Data: s.buf}
		return &s.ev, nil
	}
}

// payloadLimit is err, or for a frame over the bound that the event size
// limit set, the error of its payload over that limit.
func (s *bedrockSource) payloadLimit(err error) error {
	var fse *eventstream.FrameSizeError
	if errors.As(err, &fse) && s.frameMax < eventstream.DefaultMaxFrameSize {
		return &sse.EventSizeError{Size: int(fse.Size) - bedrockFrameOverhead, Max: s.limit}
	}
	return err
}

// Next is NextRef for callers that keep the event (Data is still borrowed).
func (s *bedrockSource) Next() (sse.Event, error) {
	ev, err := s.NextRef()
	if err != nil {
		return sse.Event{}, err
	}
	return *ev, nil
}

// bedrockEventType interns the event types the decoder reads, so that a
// frame costs no allocation; others get their own string.
func bedrockEventType(t []byte) string {
	switch string(t) {
	case "contentBlockDelta":
		return "contentBlockDelta"
	case "contentBlockStart":
		return "contentBlockStart"
	case "contentBlockStop":
		return "contentBlockStop"
	case "messageStart":
		return "messageStart"
	case "messageStop":
		return "messageStop"
	case "metadata":
		return "metadata"
	}
	return string(t)
}

// bedrockErrorData writes an exception as an error body: the payload's
// members with "__type" first; a payload that is not an object becomes the
// message.
func bedrockErrorData(dst, typ, payload []byte) []byte {
	dst = append(dst, `{"__type":`...)
	dst = append(dst, mustJSON(string(typ))...)
	p := bytes.TrimSpace(payload)
	switch {
	case len(p) >= 2 && p[0] == '{' && json.Valid(p):
		if rest := bytes.TrimSpace(p[1 : len(p)-1]); len(rest) > 0 {
			dst = append(dst, ',')
			dst = append(dst, rest...)
		}
	case len(p) > 0 && p[0] == '"' && json.Valid(p):
		dst = append(dst, `,"message":`...)
		dst = append(dst, p...)
	case len(p) > 0:
		dst = append(dst, `,"message":`...)
		dst = append(dst, mustJSON(string(p))...)
	}
	return append(dst, '}')
}

// mustJSON is s as a JSON string (invalid UTF-8 as U+FFFD).
func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// bedrockKind is what a content block holds.
type bedrockKind uint8

const (
	// bedrockKindOpen: a block opened by a start or delta this decoder does
	// not read (an empty start, a toolResult, an image, a citation); its
	// first text or reasoning delta makes it that kind.
	bedrockKindOpen bedrockKind = iota
	bedrockKindText
	bedrockKindReasoning
	bedrockKindRedacted
	bedrockKindToolUse
	// bedrockKindServerTool: a toolUse the provider runs itself (Nova's
	// code interpreter, "type":"server_tool_use"): not a call.
	bedrockKindServerTool
)

// bedrockBlock is one content block, from its first event to its stop.
type bedrockBlock struct {
	index     int
	kind      bedrockKind
	slot      int  // its position in Bridge.blocks, once its kind is read
	open      bool // not stopped
	textStart int  // text and reasoning: where its text began in the buffer
	signature []byte
	redacted  []byte
}

// bedrockDecoder reads ConverseStream events into a sink.
type bedrockDecoder struct {
	b        sink
	doc      jsonscan.Doc
	started  bool // messageStart arrived
	stopped  bool // messageStop arrived: the proper end
	metadata bool // metadata arrived
	blocks   []bedrockBlock
	byIndex  map[int]int // contentBlockIndex → position in blocks
	arena    []byte

	// The current event's members, as spans of doc.data, read in the one
	// walk that validates it. level says which object the walk is in.
	level                                                    bedrockLevel
	index, stop, usage, model                                jsonscan.Span
	toolID, toolName, toolType                               jsonscan.Span
	text, input, reasonText, reasonSignature, reasonRedacted jsonscan.Span
	hasStart, hasTool, hasReason                             bool
}

type bedrockLevel uint8

const (
	levelTop bedrockLevel = iota
	levelStart
	levelStartTool
	levelDelta
	levelDeltaTool
	levelDeltaReasoning
	levelTrace       // metadata's trace
	levelTraceRouter // its promptRouter
)

func (d *bedrockDecoder) complete() bool { return d.stopped }

func (d *bedrockDecoder) event(ev *sse.Event) error {
	b := d.b
	d.level = levelTop
	d.index, d.stop, d.usage, d.model, d.toolID, d.toolName, d.toolType = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	d.text, d.input, d.reasonText, d.reasonSignature, d.reasonRedacted = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	d.hasStart, d.hasTool, d.hasReason = false, false, false
	if err := readEvent(b, &d.doc, d, ev, (*bedrockDecoder).member); err != nil {
		return err
	}
	switch ev.Type {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop":
		if d.stopped {
			return d.b.outOfOrder(ev, 0, ev.Type+" after messageStop")
		}
	}
	switch ev.Type {
	case "contentBlockDelta":
		return d.delta(ev)
	case "messageStart":
		if d.started {
			return d.b.outOfOrder(ev, 0, "a second messageStart")
		}
		d.started = true
		return nil
	case "contentBlockStart":
		return d.start(ev)
	case "contentBlockStop":
		blk, err := d.block(ev, false)
		if err != nil {
			return err
		}
		d.close(blk)
		return nil
	case "messageStop":
		return d.messageStop()
	case "metadata":
		if d.metadata {
			return d.b.outOfOrder(ev, 0, "a second metadata")
		}
		d.metadata = true
		d.applyUsage()
		d.b.setModel(&d.doc, d.model)
		if d.stopped {
			b.end()
		}
		return nil
	}
	return nil // event types added later
}

// member records the members the decoder reads, at every level it follows.
func (d *bedrockDecoder) member(key []byte, i, depth int) (int, error) {
	if d.doc.Data[i] == '{' {
		if next, ok := d.nested(key); ok {
			outer := d.level
			d.level = next
			end, err := jsonscan.WalkObject(&d.doc, d, i, depth, (*bedrockDecoder).member)
			d.level = outer
			return end, err
		}
	}
	s, end, err := d.doc.ValueSpan(i, depth)
	switch d.level {
	case levelTop:
		switch string(key) {
		case "contentBlockIndex":
			d.index = s
		case "stopReason":
			d.stop = s
		case "usage":
			d.usage = s
		}
	case levelStartTool:
		switch string(key) {
		case "toolUseId":
			d.toolID = s
		case "name":
			d.toolName = s
		case "type":
			d.toolType = s
		}
	case levelDelta:
		if string(key) == "text" {
			d.text = s
		}
	case levelDeltaTool:
		if string(key) == "input" {
			d.input = s
		}
	case levelTraceRouter:
		if string(key) == "invokedModelId" {
			d.model = s
		}
	case levelDeltaReasoning:
		switch string(key) {
		case "text":
			d.reasonText = s
		case "signature":
			d.reasonSignature = s
		case "redactedContent":
			d.reasonRedacted = s
		}
	}
	return end, err
}

// nested is the level an object member leads to, if the decoder follows it.
func (d *bedrockDecoder) nested(key []byte) (bedrockLevel, bool) {
	switch d.level {
	case levelTop:
		switch string(key) {
		case "start":
			d.hasStart = true
			return levelStart, true
		case "delta":
			return levelDelta, true
		case "trace":
			return levelTrace, true
		}
	case levelTrace:
		if string(key) == "promptRouter" {
			return levelTraceRouter, true
		}
	case levelStart:
		if string(key) == "toolUse" {
			d.hasTool = true
			return levelStartTool, true
		}
	case levelDelta:
		switch string(key) {
		case "toolUse":
			d.hasTool = true
			return levelDeltaTool, true
		case "reasoningContent":
			d.hasReason = true
			return levelDeltaReasoning, true
		}
	}
	return 0, false
}

// eventIndex is the event's contentBlockIndex.
func (d *bedrockDecoder) eventIndex(ev *sse.Event) (int, error) {
	s := d.index
	if !s.OK() || d.doc.Data[s.Start] < '0' || d.doc.Data[s.Start] > '9' {
		return 0, d.b.outOfOrder(ev, 0, ev.Type+" without a contentBlockIndex")
	}
	n, ok := jsonscan.ParseIndex(d.doc.Data[s.Start:s.End])
	if !ok || n > toolcall.MaxIndex {
		return 0, d.b.outOfOrder(ev, 0, "a contentBlockIndex that is not a small integer")
	}
	return n, nil
}

// block is the open block the event names; a delta may open it (open),
// of a kind its first readable delta sets.
func (d *bedrockDecoder) block(ev *sse.Event, open bool) (*bedrockBlock, error) {
	n, err := d.eventIndex(ev)
	if err != nil {
		return nil, err
	}
	if i, ok := d.byIndex[n]; ok {
		blk := &d.blocks[i]
		if !blk.open {
			return nil, d.b.outOfOrder(ev, 0, fmt.Sprintf("%s for block %d after its stop", ev.Type, n))
		}
		return blk, nil
	}
	if !open {
		return nil, d.b.outOfOrder(ev, 0, fmt.Sprintf("%s for block %d, which never began", ev.Type, n))
	}
	return d.begin(n), nil
}

// begin opens block n, of no kind yet. Content before messageStart means
// the message began: Vercel's and AWS's own readers take such streams.
func (d *bedrockDecoder) begin(n int) *bedrockBlock {
	if d.byIndex == nil {
		d.byIndex = make(map[int]int)
	}
	d.byIndex[n] = len(d.blocks)
	d.blocks = append(d.blocks, bedrockBlock{index: n, open: true, slot: -1})
	return &d.blocks[len(d.blocks)-1]
}

// setKind makes blk, of no kind yet, a block of kind k, kept in the
// Bridge's blocks in the order kinds were set.
func (d *bedrockDecoder) setKind(blk *bedrockBlock, k bedrockKind) {
	b := d.b
	blk.kind = k
	switch k {
	case bedrockKindText:
		blk.textStart = len(b.content())
		blk.slot = b.addBlock(Block{Type: BlockText})
	case bedrockKindToolUse:
		blk.slot = b.addBlock(Block{Type: BlockToolCall, Call: blk.index})
	case bedrockKindReasoning, bedrockKindRedacted:
		blk.textStart = len(b.reasoning())
		blk.slot = b.addBlock(Block{Type: bedrockReasoningBlock})
	}
}

// bedrockReasoningBlock is the Block type of a reasoningContent block,
// whose Raw is the block's value as a request sends it back.
const bedrockReasoningBlock = "reasoningContent"

// start opens a block: a start of any kind does (or none, "start":{}); a
// toolUse start begins a call, unless the provider runs the tool itself.
func (d *bedrockDecoder) start(ev *sse.Event) error {
	n, err := d.eventIndex(ev)
	if err != nil {
		return err
	}
	if _, ok := d.byIndex[n]; ok {
		return d.b.outOfOrder(ev, 0, fmt.Sprintf("block %d began twice", n))
	}
	blk := d.begin(n)
	if !d.hasTool {
		return nil
	}
	if d.doc.IsString(d.toolType) && string(d.doc.Str(d.arena[:0], d.toolType)) == "server_tool_use" {
		blk.kind = bedrockKindServerTool
		return nil
	}
	f := toolcall.Fragment{Index: n, Type: "function", ID: d.doc.Text(d.toolID), Name: d.doc.Text(d.toolName)}
	if err := d.b.addFragment(f); err != nil {
		return err
	}
	d.setKind(blk, bedrockKindToolUse)
	return nil
}

func (d *bedrockDecoder) delta(ev *sse.Event) error {
	b := d.b
	var kind bedrockKind
	switch {
	case d.hasTool:
		kind = bedrockKindToolUse
	case d.hasReason && d.reasonRedacted.OK():
		kind = bedrockKindRedacted
	case d.hasReason:
		kind = bedrockKindReasoning
	case d.text.OK():
		kind = bedrockKindText
	default:
		// A delta of a kind not read here (a citation, a toolResult, an
		// image) opens its block, or goes to one that is open.
		_, err := d.block(ev, true)
		return err
	}
	// A call needs its start: the id and name.
	blk, err := d.block(ev, kind != bedrockKindToolUse)
	if err != nil {
		return err
	}
	switch {
	case blk.kind == bedrockKindOpen && kind != bedrockKindToolUse:
		d.setKind(blk, kind)
	case blk.kind == bedrockKindServerTool && kind == bedrockKindToolUse:
		return nil // the provider's own call: its input is not ours to run
	case blk.kind != kind && !(blk.kind == bedrockKindReasoning && kind == bedrockKindRedacted || blk.kind == bedrockKindRedacted && kind == bedrockKindReasoning):
		return d.b.outOfOrder(ev, 0, fmt.Sprintf("a delta of another kind for block %d", blk.index))
	}
	switch kind {
	case bedrockKindText:
		if d.doc.IsString(d.text) {
			return b.text(inContent, &d.doc, d.text)
		}
	case bedrockKindToolUse:
		if !d.doc.IsString(d.input) {
			return nil
		}
		d.arena = d.doc.Str(d.arena[:0], d.input)
		if len(d.arena) == 0 {
			return nil
		}
		// Not copied: Add copies the arguments and keeps nothing.
		args := unsafe.String(unsafe.SliceData(d.arena), len(d.arena))
		if err := b.addFragment(toolcall.Fragment{Index: blk.index, Arguments: args}); err != nil {
			return err
		}
	default:
		if d.doc.IsString(d.reasonRedacted) {
			blk.kind = bedrockKindRedacted
			blk.redacted = d.doc.Str(blk.redacted, d.reasonRedacted)
			b.progress()
		}
		if d.doc.IsString(d.reasonSignature) {
			blk.signature = d.doc.Str(blk.signature, d.reasonSignature)
			b.progress()
		}
		if d.doc.IsString(d.reasonText) {
			return b.text(inReasoning, &d.doc, d.reasonText)
		}
	}
	return nil
}

// close stops a block and records what it became.
func (d *bedrockDecoder) close(blk *bedrockBlock) {
	b := d.b
	blk.open = false
	if blk.slot < 0 {
		b.progress()
		return // nothing of it is kept
	}
	slot := b.block(blk.slot)
	switch blk.kind {
	case bedrockKindText:
		slot.Bytes = len(b.content()) - blk.textStart
	case bedrockKindReasoning:
		var v struct {
			ReasoningText struct {
				Text      string `json:"text"`
				Signature string `json:"signature,omitempty"`
			} `json:"reasoningText"`
		}
		v.ReasoningText.Text = string(b.reasoning()[blk.textStart:])
		v.ReasoningText.Signature = string(blk.signature)
		slot.Raw, _ = json.Marshal(v)
	case bedrockKindRedacted:
		slot.Raw, _ = json.Marshal(struct {
			RedactedContent string `json:"redactedContent"`
		}{string(blk.redacted)})
	}
	blk.signature, blk.redacted = nil, nil
	b.progress()
}

func (d *bedrockDecoder) messageStop() error {
	b := d.b
	// A block left open ends with the message: its content is whole.
	for i := range d.blocks {
		if d.blocks[i].open {
			d.close(&d.blocks[i])
		}
	}
	if d.doc.IsString(d.stop) {
		raw := string(d.doc.Str(d.arena[:0], d.stop))
		b.setFinish(raw, bedrockStopReason(raw))
	}
	d.stopped = true
	b.progress()
	if d.metadata {
		b.end()
	}
	return nil
}

// applyUsage reads metadata's usage. inputTokens leaves the cache out, as
// Anthropic's does; totalTokens is Bedrock's own total, else the sum.
func (d *bedrockDecoder) applyUsage() {
	s := d.usage
	if !s.OK() || d.doc.Data[s.Start] != '{' {
		return
	}
	u := &Usage{PromptExcludesCache: true}
	jsonscan.WalkObject(&d.doc, u, s.Start, 0, func(u *Usage, key []byte, i, depth int) (int, error) {
		v, end, err := d.doc.ValueSpan(i, depth)
		n, ok := jsonscan.Int(d.doc.Data, v)
		if !ok {
			return end, err
		}
		switch string(key) {
		case "inputTokens":
			u.PromptTokens = n
		case "outputTokens":
			u.CompletionTokens = n
		case "totalTokens":
			u.TotalTokens = n
		case "cacheReadInputTokens":
			u.CachedTokens = n
		case "cacheWriteInputTokens":
			u.CacheWriteTokens = n
		}
		return end, err
	})
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CachedTokens + u.CacheWriteTokens + u.CompletionTokens
	}
	d.b.setUsage(u)
}
