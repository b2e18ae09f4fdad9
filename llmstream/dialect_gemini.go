package llmstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unsafe"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the Gemini dialect (DialectGemini): the decoder of
// streamGenerateContent's events and its error bodies. The request encoder
// is in encode_gemini.go, the builder of streamed call arguments in
// gemini_partialargs.go.
//
// Each event is one GenerateContentResponse. The decoder follows the
// candidate with index 0 (an absent index means 0) and reads its
// content.parts in order:
//
//	{"text": ...}                          answer text: Content
//	{"text": ..., "thought": true}         reasoning, kept as a "thought" block
//	{"functionCall": {name, args, id}}     a whole call; no id: call_<n>
//	{"functionCall": {name, willContinue}} a streamed call opens; partialArgs
//	                                       parts build it; one without
//	                                       willContinue closes it
//	{"executableCode": ...}, inlineData,   kept whole as a block of that
//	codeExecutionResult, ...               type, never in Content
//	"thoughtSignature" on any part         kept on that part's block
//
// Consecutive text parts are one text block, and so are consecutive
// thought parts; a part carrying a signature ends its block, so the
// signature goes back on the text it came with. A part that carries only a
// signature signs the block before it, or stands alone as an empty text.
//
// The candidate's finishReason ends the answer: STOP and MAX_TOKENS are
// normal ends; the safety family (SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII, IMAGE_SAFETY, ...) and MALFORMED_FUNCTION_CALL
// and UNEXPECTED_TOOL_CALL fail the stream with an *APIError, since the
// response holds no usable answer; promptFeedback.blockReason does too.
// usageMetadata is cumulative: the last one wins; modelVersion, on every
// event, names the model once (the first). The stream ends properly
// at its end after a finishReason; before one, it is truncated.

// DefaultGeminiBaseURL is the base URL of a Gemini [Client] when none is
// set.
const DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta"

type geminiProtocol struct{}

func (geminiProtocol) defaultBase() string  { return DefaultGeminiBaseURL }
func (geminiProtocol) providerName() string { return "gcp.gemini" }
func (geminiProtocol) emptyPath() string    { return "/v1beta" }
func (geminiProtocol) doneSentinel() string { return "" }

// endpoint is {base}/models/{model}:streamGenerateContent?alt=sse. A model
// given with its collection ("models/gemini-2.5-flash",
// "tunedModels/my-model") keeps it.
func (geminiProtocol) endpoint(base *url.URL, model string) (string, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return "", fmt.Errorf("%w: Gemini names the model in the URL, and the request has none (set Request.Model or WithModel)", ErrInvalidRequest)
	}
	if !strings.Contains(model, "/") {
		model = "models/" + model
	}
	segs := strings.Split(model, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Errorf("%w: model %q is not a model name", ErrInvalidRequest, model)
		}
		segs[i] = url.PathEscape(s)
	}
	u := *base
	if err := setPath(&u, u.EscapedPath()+"/"+strings.Join(segs, "/")+":streamGenerateContent"); err != nil {
		return "", fmt.Errorf("%w: model %q is not a model name", ErrInvalidRequest, model)
	}
	if u.RawQuery == "" {
		u.RawQuery = "alt=sse"
	} else {
		u.RawQuery += "&alt=sse"
	}
	return u.String(), nil
}

func (geminiProtocol) header(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("X-Goog-Api-Key", apiKey)
	}
}

func (geminiProtocol) newDecoder(s sink) decoder { return &geminiDecoder{b: s, open: -1} }

// parseError reads {"error":{"code","message","status","details"}} (also
// inside a one-element array, as a stream answers), as an HTTP body and
// inside a stream. A key Gemini rejects is a 400 INVALID_ARGUMENT whose
// details say API_KEY_INVALID: it is an authentication failure.
func (geminiProtocol) parseError(raw []byte, status int) (*APIError, bool) {
	e, ok := parseClassified(raw, status)
	if ok && geminiKeyInvalid(raw) {
		e.Kind = ErrorAuthentication
	}
	return e, ok
}

// geminiKeyInvalid reports an error whose details carry the reason
// API_KEY_INVALID (google.rpc.ErrorInfo).
func geminiKeyInvalid(raw []byte) bool {
	if !strings.Contains(string(raw), "API_KEY_INVALID") {
		return false
	}
	type body struct {
		Error struct {
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	var one body
	if json.Unmarshal(raw, &one) != nil {
		var list []body
		if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
			return false
		}
		one = list[0]
	}
	for _, d := range one.Error.Details {
		if d.Reason == "API_KEY_INVALID" {
			return true
		}
	}
	return false
}

// gemPart is one part of the followed candidate, as spans of the event.
// It holds no pointer and nothing a rare kind of part needs, so that an
// event of many tiny parts costs a few words a part, which the GC does not
// scan: a function call's fields are in gemFuncCall, another kind's in
// gemOther.
type gemPart struct {
	at        int           // the part's object, as an offset
	text, sig jsonscan.Span // "text", "thoughtSignature"
	call      int32         // its functionCall, in geminiDecoder.calls, plus 1; 0 for none
	other     int32         // the member naming another kind of part, in geminiDecoder.others, plus 1; 0 for none
	flags     gemFlags
}

type gemFlags uint8

const (
	partThought gemFlags = 1 << iota
	partFCBad            // functionCall is not an object (nor null)
)

// gemFuncCall is the functionCall object of a part.
type gemFuncCall struct {
	name, id, args jsonscan.Span
	will           bool // willContinue
	partial        bool // has a partialArgs member
	argFrom, argTo int  // its partialArgs, in geminiDecoder.args
}

// gemOther is a part of another kind: kept whole.
type gemOther struct {
	key string // the member naming its kind
	end int    // the offset past the part's object
}

// gemArg is one partial argument.
type gemArg struct {
	at      int
	bad     bool // not an object
	path    jsonscan.Span
	value   jsonscan.Span
	kind    argValue
	kinds   int // value members present
	will    bool
	nullBad bool // nullValue is neither null nor "NULL_VALUE"
	segFrom int  // its parsed path, in geminiDecoder.segs
	segTo   int
}

// gemUsage is one usageMetadata object.
type gemUsage struct {
	seen                                                 bool
	prompt, candidates, thoughts, cached, total, toolUse int
	hasTotal                                             bool
}

// runKind is the kind of block the parts are adding text to.
type runKind uint8

const (
	runNone runKind = iota
	runText
	runThought
)

// geminiDecoder reads streamGenerateContent events into a sink.
type geminiDecoder struct {
	b   sink
	doc jsonscan.Doc

	// The current event, read in the one walk that validates it.
	parts                                []gemPart
	fcs                                  []gemFuncCall
	others                               []gemOther
	args                                 []gemArg
	segs                                 []pathSeg
	names                                []byte
	cur                                  int           // the part being walked
	chosen                               bool          // the followed candidate was read
	candIndex, candFinish, candFinishMsg jsonscan.Span // the candidate being walked
	finish, finishMsg                    jsonscan.Span // the followed candidate's
	usage                                gemUsage
	blockReason, blockMsg                jsonscan.Span
	model                                jsonscan.Span // modelVersion
	apiErr                               bool

	// The stream.
	finished bool
	calls    int    // calls started: the next call's assembler index
	open     int    // the index of the call being streamed, -1 for none
	openSlot int    // its block
	openName []byte // its name
	pa       partialArgs
	run      runKind
	runSlot  int // the open run's block
	runStart int // where its text began in its buffer
	scratch  []byte
	path     []byte
}

func (g *geminiDecoder) event(ev *sse.Event) error {
	b := g.b
	if len(ev.Data) == 0 {
		return nil
	}
	g.parts, g.fcs, g.others = g.parts[:0], g.fcs[:0], g.others[:0]
	g.args, g.segs, g.names = g.args[:0], g.segs[:0], g.names[:0]
	g.chosen, g.apiErr = false, false
	g.finish, g.finishMsg, g.blockReason, g.blockMsg, g.model = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	g.usage = gemUsage{}
	if err := readEvent(b, &g.doc, g, ev, (*geminiDecoder).member); err != nil {
		return err
	}
	if g.apiErr {
		return b.fail(b.apiError(ev.Data))
	}
	if at, err := g.check(); err != nil {
		return b.fail(b.eventError(ev.Data, at, err))
	}
	b.setModel(&g.doc, g.model)
	if g.usage.seen {
		g.applyUsage()
	}
	// The unspecified reason is no block: the Gemini API names it
	// BLOCK_REASON_UNSPECIFIED, Vertex BLOCKED_REASON_UNSPECIFIED.
	if g.doc.IsString(g.blockReason) && !g.doc.Is(g.blockReason, "BLOCK_REASON_UNSPECIFIED") && !g.doc.Is(g.blockReason, "BLOCKED_REASON_UNSPECIFIED") {
		return g.blocked()
	}
	for i := range g.parts {
		if err := g.applyPart(ev, &g.parts[i]); err != nil {
			return err
		}
	}
	if g.doc.IsString(g.finish) {
		return g.applyFinish(ev)
	}
	return nil
}

// complete closes the block still open and reports a proper end: a
// finishReason arrived.
func (g *geminiDecoder) complete() bool {
	g.closeRun()
	return g.finished
}

func (g *geminiDecoder) member(key []byte, i, depth int) (int, error) {
	d := g.doc.Data
	switch string(key) {
	case "candidates":
		if d[i] == '[' {
			return jsonscan.WalkArray(&g.doc, g, i, depth, (*geminiDecoder).candidate)
		}
	case "usageMetadata":
		if d[i] == '{' {
			g.usage = gemUsage{}
			return jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).usageMember)
		}
	case "promptFeedback":
		if d[i] == '{' {
			return jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).feedbackMember)
		}
	}
	s, end, err := g.doc.ValueSpan(i, depth)
	switch string(key) {
	case "error":
		g.apiErr = g.apiErr || s.OK()
	case "modelVersion":
		g.model = s
	}
	return end, err
}

// candidate reads one candidate; the parts of any but the followed one
// are dropped again.
func (g *geminiDecoder) candidate(_, i, depth int) (int, error) {
	if g.doc.Data[i] != '{' {
		_, end, err := g.doc.ValueSpan(i, depth)
		return end, err
	}
	nparts, nfcs, nothers := len(g.parts), len(g.fcs), len(g.others)
	nargs, nsegs, nnames := len(g.args), len(g.segs), len(g.names)
	g.candIndex, g.candFinish, g.candFinishMsg = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	end, err := jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).candidateMember)
	if err != nil {
		return end, err
	}
	if !g.chosen && (!g.candIndex.OK() || string(g.doc.Data[g.candIndex.Start:g.candIndex.End]) == "0") {
		g.chosen = true
		g.finish, g.finishMsg = g.candFinish, g.candFinishMsg
		return end, nil
	}
	g.parts, g.fcs, g.others = g.parts[:nparts], g.fcs[:nfcs], g.others[:nothers]
	g.args, g.segs, g.names = g.args[:nargs], g.segs[:nsegs], g.names[:nnames]
	return end, nil
}

func (g *geminiDecoder) candidateMember(key []byte, i, depth int) (int, error) {
	if string(key) == "content" && g.doc.Data[i] == '{' {
		return jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).contentMember)
	}
	s, end, err := g.doc.ValueSpan(i, depth)
	switch string(key) {
	case "index":
		g.candIndex = s
	case "finishReason":
		g.candFinish = s
	case "finishMessage":
		g.candFinishMsg = s
	}
	return end, err
}

func (g *geminiDecoder) contentMember(key []byte, i, depth int) (int, error) {
	if string(key) == "parts" && g.doc.Data[i] == '[' {
		return jsonscan.WalkArray(&g.doc, g, i, depth, (*geminiDecoder).part)
	}
	_, end, err := g.doc.ValueSpan(i, depth)
	return end, err
}

func (g *geminiDecoder) part(_, i, depth int) (int, error) {
	if g.doc.Data[i] != '{' {
		_, end, err := g.doc.ValueSpan(i, depth) // not a part: ignored
		return end, err
	}
	if len(g.parts) == cap(g.parts) {
		// Doubled, not by append's quarter for large slices: an event of
		// many parts then allocates about twice its parts, not five times.
		g.parts = slices.Grow(g.parts, len(g.parts)+1)
	}
	g.parts = append(g.parts, gemPart{at: i, text: jsonscan.NoSpan, sig: jsonscan.NoSpan})
	g.cur = len(g.parts) - 1
	end, err := jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).partMember)
	if o := g.parts[g.cur].other; o != 0 {
		g.others[o-1].end = end
	}
	return end, err
}

func (g *geminiDecoder) partMember(key []byte, i, depth int) (int, error) {
	d := g.doc.Data
	if string(key) == "functionCall" && d[i] == '{' {
		p := &g.parts[g.cur]
		if p.call == 0 {
			g.fcs = append(g.fcs, gemFuncCall{name: jsonscan.NoSpan, id: jsonscan.NoSpan, args: jsonscan.NoSpan})
			p.call = int32(len(g.fcs))
		}
		c := &g.fcs[p.call-1]
		c.argFrom = len(g.args)
		end, err := jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).callMember)
		g.fcs[p.call-1].argTo = len(g.args)
		return end, err
	}
	s, end, err := g.doc.ValueSpan(i, depth)
	p := &g.parts[g.cur]
	switch string(key) {
	case "text":
		p.text = s
	case "thought":
		p.flags &^= partThought
		if d[i] == 't' {
			p.flags |= partThought
		}
	case "thoughtSignature":
		p.sig = s
	case "functionCall":
		p.flags &^= partFCBad
		if s.OK() {
			p.flags |= partFCBad
		}
	case "partMetadata", "videoMetadata", "mediaResolution":
	default:
		if s.OK() && p.other == 0 && len(key) > 0 {
			// rare: code execution, inline data, ...
			g.others = append(g.others, gemOther{key: string(key)})
			p.other = int32(len(g.others))
		}
	}
	return end, err
}

func (g *geminiDecoder) callMember(key []byte, i, depth int) (int, error) {
	d := g.doc.Data
	c := &g.fcs[g.parts[g.cur].call-1]
	if string(key) == "partialArgs" && d[i] == '[' {
		c.partial = true
		return jsonscan.WalkArray(&g.doc, g, i, depth, (*geminiDecoder).partialArg)
	}
	if string(key) == "args" {
		depth = jsonscan.ArgsDepth
	}
	s, end, err := g.doc.ValueSpan(i, depth)
	switch string(key) {
	case "name":
		c.name = s
	case "id":
		c.id = s
	case "args":
		c.args = s
	case "willContinue":
		c.will = d[i] == 't'
	case "partialArgs":
		c.partial = c.partial || s.OK()
		if s.OK() {
			g.args = append(g.args, gemArg{at: i, bad: true})
		}
	}
	return end, err
}

func (g *geminiDecoder) partialArg(_, i, depth int) (int, error) {
	g.args = append(g.args, gemArg{at: i, bad: g.doc.Data[i] != '{', path: jsonscan.NoSpan, value: jsonscan.NoSpan})
	if g.doc.Data[i] != '{' {
		_, end, err := g.doc.ValueSpan(i, depth)
		return end, err
	}
	return jsonscan.WalkObject(&g.doc, g, i, depth, (*geminiDecoder).argMember)
}

func (g *geminiDecoder) argMember(key []byte, i, depth int) (int, error) {
	d := g.doc.Data
	s, end, err := g.doc.ValueSpan(i, depth)
	a := &g.args[len(g.args)-1]
	var kind argValue
	switch string(key) {
	case "jsonPath":
		a.path = s
		return end, err
	case "willContinue":
		a.will = d[i] == 't'
		return end, err
	case "stringValue":
		kind = argString
		if s.OK() && d[i] != '"' {
			a.bad = true
		}
	case "numberValue":
		kind = argNumber
		if s.OK() && d[i] != '-' && (d[i] < '0' || d[i] > '9') {
			a.bad = true
		}
	case "boolValue":
		kind = argBool
		if s.OK() && d[i] != 't' && d[i] != 'f' {
			a.bad = true
		}
	case "nullValue":
		// Proto's NullValue: JSON null, or the enum's name.
		a.kinds++
		a.kind = argNull
		if s.OK() && !g.doc.Is(s, "NULL_VALUE") {
			a.nullBad = true
		}
		return end, err
	default:
		return end, err
	}
	if s.OK() { // null is absent
		a.kinds++
		a.kind, a.value = kind, s
	}
	return end, err
}

func (g *geminiDecoder) usageMember(key []byte, i, depth int) (int, error) {
	s, end, err := g.doc.ValueSpan(i, depth)
	n, ok := jsonscan.Int(g.doc.Data, s)
	if !ok {
		return end, err
	}
	u := &g.usage
	u.seen = true // a count came, not only trafficType
	switch string(key) {
	case "promptTokenCount":
		u.prompt = n
	case "candidatesTokenCount":
		u.candidates = n
	case "thoughtsTokenCount":
		u.thoughts = n
	case "cachedContentTokenCount":
		u.cached = n
	case "toolUsePromptTokenCount":
		u.toolUse = n
	case "totalTokenCount":
		u.total, u.hasTotal = n, true
	}
	return end, err
}

func (g *geminiDecoder) feedbackMember(key []byte, i, depth int) (int, error) {
	s, end, err := g.doc.ValueSpan(i, depth)
	switch string(key) {
	case "blockReason":
		g.blockReason = s
	case "blockReasonMessage":
		g.blockMsg = s
	}
	return end, err
}

// check validates what the walk could not: the JSON types of the parts'
// members and the syntax of every partial argument, before any of the
// event is applied. It returns the offset of the first bad one.
func (g *geminiDecoder) check() (int, error) {
	d := &g.doc
	for i := range g.parts {
		p := &g.parts[i]
		switch {
		case p.text.OK() && !d.IsString(p.text):
			return p.at, fmt.Errorf("part %d: text is not a string", i)
		case p.sig.OK() && !d.IsString(p.sig):
			return p.at, fmt.Errorf("part %d: thoughtSignature is not a string", i)
		case p.flags&partFCBad != 0:
			return p.at, fmt.Errorf("part %d: functionCall is not an object", i)
		}
		if p.call == 0 {
			continue
		}
		c := &g.fcs[p.call-1]
		switch {
		case c.name.OK() && !d.IsString(c.name), c.id.OK() && !d.IsString(c.id):
			return p.at, fmt.Errorf("part %d: a functionCall name or id is not a string", i)
		case c.args.OK() && d.Data[c.args.Start] != '{':
			return p.at, fmt.Errorf("part %d: functionCall args is not an object", i)
		}
		for j := c.argFrom; j < c.argTo; j++ {
			if err := g.checkArg(&g.args[j]); err != nil {
				return g.args[j].at, fmt.Errorf("part %d: %w", i, err)
			}
		}
	}
	return 0, nil
}

// checkArg validates one partial argument and parses its path.
func (g *geminiDecoder) checkArg(a *gemArg) error {
	d := &g.doc
	switch {
	case a.bad:
		return fmt.Errorf("%w: a partial argument that is not an object with one value of its JSON type", ErrArgumentPath)
	case a.nullBad:
		return fmt.Errorf("%w: nullValue is neither null nor \"NULL_VALUE\"", ErrArgumentPath)
	case a.kinds > 1:
		return fmt.Errorf("%w: a partial argument with more than one value", ErrArgumentPath)
	case !d.IsString(a.path):
		return fmt.Errorf("%w: a partial argument without a jsonPath string", ErrArgumentPath)
	}
	g.path = d.Str(g.path[:0], a.path)
	a.segFrom = len(g.segs)
	var err error
	g.segs, g.names, err = parsePath(g.path, g.segs, g.names)
	a.segTo = len(g.segs)
	return err
}

// applyUsage replaces the usage: each usageMetadata is the whole so far.
func (g *geminiDecoder) applyUsage() {
	u := &g.usage
	total := u.total
	if !u.hasTotal {
		total = u.prompt + u.toolUse + u.candidates + u.thoughts
	}
	*g.b.usageRef() = Usage{
		PromptTokens: u.prompt, CompletionTokens: u.candidates + u.thoughts, TotalTokens: total,
		CachedTokens: u.cached, ReasoningTokens: u.thoughts,
	}
}

// blocked fails the stream for a prompt Gemini refused to answer.
func (g *geminiDecoder) blocked() error {
	reason := string(g.doc.Str(nil, g.blockReason))
	msg := "the prompt was blocked: " + reason
	if g.doc.IsString(g.blockMsg) {
		msg = string(g.doc.Str(nil, g.blockMsg))
	}
	e := &APIError{Message: msg, Type: reason, Kind: ErrorContentFiltered}
	g.b.redact(e)
	return g.b.fail(e)
}

// applyPart applies one part of the followed candidate.
func (g *geminiDecoder) applyPart(ev *sse.Event, p *gemPart) error {
	b, d := g.b, &g.doc
	switch {
	case p.call != 0:
		return g.applyCall(ev, p, &g.fcs[p.call-1])
	case p.flags&partThought != 0:
		if g.run != runThought {
			g.closeRun()
			g.openRun(runThought, Block{Type: "thought"}, len(b.reasoning()))
		}
		if d.IsString(p.text) {
			if err := b.text(inReasoning, d, p.text); err != nil {
				return err
			}
		}
		if d.IsString(p.sig) {
			b.block(g.runSlot).Signature = string(d.Str(nil, p.sig))
			g.closeRun()
		}
	case d.IsString(p.text) && p.text.End-p.text.Start == 2 && !d.IsString(p.sig):
		// An empty text part (the last chunk often has one): nothing.
	case d.IsString(p.text) || (d.IsString(p.sig) && p.other == 0):
		if !p.text.OK() && g.run != runNone {
			// A part with only a signature signs the block before it.
			b.block(g.runSlot).Signature = string(d.Str(nil, p.sig))
			g.closeRun()
			b.progress()
			return nil
		}
		if g.run != runText {
			g.closeRun()
			g.openRun(runText, Block{Type: BlockText}, len(b.content()))
		}
		if p.text.OK() {
			if err := b.text(inContent, d, p.text); err != nil {
				return err
			}
			b.block(g.runSlot).Bytes = len(b.content()) - g.runStart
		}
		if d.IsString(p.sig) {
			b.block(g.runSlot).Signature = string(d.Str(nil, p.sig))
			g.closeRun()
			b.progress()
		}
	case p.other != 0:
		g.closeRun()
		o := &g.others[p.other-1]
		b.addBlock(Block{Type: o.key, Raw: append(json.RawMessage(nil), d.Data[p.at:o.end]...), Signature: d.Text(p.sig)})
		b.progress()
	}
	return nil
}

func (g *geminiDecoder) openRun(k runKind, blk Block, start int) {
	g.run, g.runSlot, g.runStart = k, g.b.addBlock(blk), start
}

// closeRun ends the open text or thought block; a thought block is then
// written whole, as the part Gemini takes back.
func (g *geminiDecoder) closeRun() {
	b := g.b
	if g.run == runThought {
		blk := b.block(g.runSlot)
		text := b.reasoning()[g.runStart:]
		if len(text) == 0 && blk.Signature == "" && g.runSlot == b.blockCount()-1 {
			b.truncateBlocks(g.runSlot) // nothing to keep
		} else {
			raw := jsonscan.AppendQuoted([]byte(`{"thought":true,"text":`), text)
			if blk.Signature != "" {
				raw = append(raw, `,"thoughtSignature":`...)
				raw = jsonscan.AppendQuoted(raw, []byte(blk.Signature))
			}
			blk.Raw = append(raw, '}')
		}
	}
	g.run = runNone
}

// applyCall applies a functionCall part: a whole call, the opening of a
// streamed one, or more of the streamed one's arguments. A streamed call's
// parts may carry an empty args object, and the parts that continue it its
// name and id again: neither starts anything.
func (g *geminiDecoder) applyCall(ev *sse.Event, p *gemPart, c *gemFuncCall) error {
	b, d := g.b, &g.doc
	named := d.IsString(c.name) && c.name.End-c.name.Start > 2 // not ""
	args := c.args.OK() && !jsonscan.IsEmptyObject(d.Data[c.args.Start:c.args.End])
	if g.open >= 0 {
		if args || (named && !g.continuesOpen(c)) {
			return g.b.outOfOrder(ev, p.at, fmt.Sprintf("a new function call while call %d is still streaming its arguments", g.open))
		}
		if blk := b.block(g.openSlot); blk.Signature == "" && d.IsString(p.sig) {
			blk.Signature = string(d.Str(nil, p.sig))
		}
		return g.streamArgs(ev, c, toolcall.Fragment{Index: g.open}, false)
	}
	if !named {
		if !c.partial && !c.args.OK() && !c.id.OK() {
			return nil // an empty functionCall: the end of a call already closed
		}
		return g.b.outOfOrder(ev, p.at, "function-call arguments for a call that was never opened (no name)")
	}
	if args && (c.will || c.partial) {
		return g.b.outOfOrder(ev, p.at, "a function call with both args and streamed arguments")
	}
	g.closeRun()
	n := g.calls
	g.calls++
	blk := Block{Type: BlockToolCall, Call: n, Signature: d.Text(p.sig)}
	f := toolcall.Fragment{Index: n, Type: "function", Name: string(d.Str(nil, c.name))}
	if d.IsString(c.id) && c.id.End-c.id.Start > 2 {
		f.ID = string(d.Str(nil, c.id))
		blk.ID = f.ID
		b.keepContinuity() // only the state says the id is Gemini's own, to send back
	}
	b.addBlock(blk)
	if c.will || c.partial {
		if c.will {
			g.open, g.openSlot = n, b.blockCount()-1
			g.openName = append(g.openName[:0], f.Name...)
		}
		return g.streamArgs(ev, c, f, true)
	}
	if c.args.OK() {
		// The object as sent: validated JSON, which the assembler copies.
		raw := d.Data[c.args.Start:c.args.End]
		f.Arguments = unsafe.String(unsafe.SliceData(raw), len(raw))
	}
	return b.addFragment(f)
}

// continuesOpen reports that a named part names the call being streamed:
// its name, and no id or the call's own.
func (g *geminiDecoder) continuesOpen(c *gemFuncCall) bool {
	d := &g.doc
	if g.path = d.Str(g.path[:0], c.name); string(g.path) != string(g.openName) {
		return false
	}
	if !d.IsString(c.id) || c.id.End-c.id.Start <= 2 {
		return true
	}
	g.path = d.Str(g.path[:0], c.id)
	return string(g.path) == g.b.block(g.openSlot).ID
}

// streamArgs adds a part's partial arguments to the streamed call of f
// (opening its object first when first), and closes the call when the
// part does not say more will come. What the part adds is one fragment,
// checked against the assembler's limits as a whole.
func (g *geminiDecoder) streamArgs(ev *sse.Event, c *gemFuncCall, f toolcall.Fragment, first bool) error {
	b, d := g.b, &g.doc
	frag := g.scratch[:0]
	if first {
		frag = g.pa.begin(frag)
	}
	for j := c.argFrom; j < c.argTo; j++ {
		a := &g.args[j]
		var raw []byte
		switch {
		case a.value.OK():
			raw = d.Data[a.value.Start:a.value.End]
			if a.kind == argString {
				raw = raw[1 : len(raw)-1] // the content, escapes kept
			}
		case a.kind == argNull:
			raw = jsonNull
		}
		var err error
		frag, err = g.pa.add(frag, g.segs[a.segFrom:a.segTo], g.names, a.kind, raw, a.will, d.Str(g.path[:0], a.path))
		if err != nil {
			return b.fail(b.eventError(ev.Data, a.at, err))
		}
	}
	if !c.will {
		frag = g.pa.end(frag)
		g.open = -1
	}
	g.scratch = frag
	if len(frag) == 0 && !first {
		return nil
	}
	// Not copied: Add copies the arguments and keeps nothing of them.
	f.Arguments = unsafe.String(unsafe.SliceData(frag), len(frag))
	return b.addFragment(f)
}

var jsonNull = []byte("null")

// applyFinish records the candidate's finishReason; the reasons that mean
// no usable answer fail the stream.
func (g *geminiDecoder) applyFinish(ev *sse.Event) error {
	b, d := g.b, &g.doc
	if g.finish.End-g.finish.Start > 2 && !d.Is(g.finish, b.finish()) {
		raw := string(d.Str(nil, g.finish)) // kept on a failure too: MAX_TOKENS says why a call was cut
		b.setFinish(raw, geminiStopReason(raw))
	}
	if g.open >= 0 {
		return g.b.outOfOrder(ev, g.finish.Start, fmt.Sprintf("the candidate finished (%s) while function call %d was still streaming its arguments", b.finish(), g.open))
	}
	if g.finish.End-g.finish.Start <= 2 {
		return nil // "": no reason
	}
	g.finished = true
	b.progress()
	if !geminiFailure(b.finish()) {
		return nil
	}
	msg := "Gemini stopped the response: finishReason " + b.finish()
	if d.IsString(g.finishMsg) {
		msg = string(d.Str(nil, g.finishMsg))
	}
	e := &APIError{Message: msg, Type: b.finish()}
	e.classify()
	b.redact(e)
	return b.fail(e)
}

// geminiStopReason maps a Gemini finishReason.
func geminiStopReason(r string) StopReason {
	switch r {
	case "STOP":
		return StopEndTurn
	case "MAX_TOKENS", "CONTINUATION": // CONTINUATION: the per-request token limit, more to come
		return StopLength
	case "":
		return 0
	}
	if geminiFailure(r) && (geminiProtocol{}).errorKind(r) == ErrorContentFiltered {
		return StopContentFilter
	}
	return StopOther
}

// geminiFailure reports a finishReason after which the response holds no
// usable answer: a safety or policy block, or a call the model botched.
func geminiFailure(r string) bool {
	switch r {
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION",
		"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL":
		return true
	}
	return false
}

// errorKind maps Gemini's error statuses (google.rpc codes) and the
// finish and block reasons that fail a stream.
func (geminiProtocol) errorKind(t string) ErrorKind {
	switch t {
	case "RESOURCE_EXHAUSTED":
		return ErrorRateLimited
	case "UNAVAILABLE":
		return ErrorOverloaded
	case "UNAUTHENTICATED":
		return ErrorAuthentication
	case "PERMISSION_DENIED":
		return ErrorPermission
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION":
		return ErrorInvalidRequest
	case "NOT_FOUND":
		return ErrorNotFound
	case "SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII",
		"RECITATION", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return ErrorContentFiltered
	case "INTERNAL", "DEADLINE_EXCEEDED",
		"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL": // the model botched a call: try again
		return ErrorServer
	}
	return ErrorUnknown
}
