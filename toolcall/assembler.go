package toolcall

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// MaxIndex is the largest [Fragment.Index] accepted: 2^30-1. Providers count
// calls from 0, so a larger index is a malformed fragment, refused with
// [ErrInvalidIndex]; the bound also keeps the indexes the assembler hands out
// from overflowing.
const MaxIndex = 1<<30 - 1

// linearLimit is how many calls are looked up by scanning a slice; past it,
// maps take over so that Add stays O(1) with a large [WithMaxCalls].
const linearLimit = 8

// An Assembler merges the [Fragment]s of a streamed response's tool calls
// into complete [Call]s. Create one with [NewAssembler]; after
// [Assembler.Reset] it can assemble the next response, reusing its memory.
//
// Fragments merge by index, and the calls of one response may interleave in
// any order. For each call the first non-empty ID, Name and Type win (names
// are never concatenated); Arguments are concatenated in arrival order and
// kept exactly as sent; the first non-empty Extra (the provider's own
// members, such as Gemini's extra_content with its thought_signature) is
// kept so the next request can echo it; a call no fragment gave an id is
// "call_<index>", one with no type "function", one with empty arguments
// "{}".
//
// A fragment at an index whose call already has a different non-empty id is
// merged into that call (some servers change the id mid-call), unless it
// also carries a name and the call's arguments already form complete JSON:
// then it starts a new call at the next free index (one past the highest in
// use), where later fragments with that provider index go too. Old Ollama
// versions number every parallel call 0; this keeps them apart.
//
// A fragment marked [Fragment.NoIndex] (Gemini's OpenAI endpoint sends calls
// whole without an index) starts a new call at the next free index when it
// carries an ID or a Name (unless its ID is the newest call's), and else
// continues the newest call; [WithStrictIndex] ignores such fragments.
// [Assembler.LastIndex] tells where a fragment went.
//
// An Assembler is not safe for concurrent use: one goroutine feeds it, as it
// reads the stream. It starts no goroutines. The zero Assembler is ready to
// use, with the default limits.
type Assembler struct {
	cfg   config
	ready bool // Reset has run: the fields below hold their empty values

	calls  []call  // in the order they were started; slots are reused after Reset
	routes []route // provider index → position in calls, for indexed fragments; up to linearLimit calls
	order  []int   // scratch for Finalize: positions in ascending index order

	// Past linearLimit calls, these take over: routeMap mirrors routes,
	// and indexMap holds the calls that the route of their own index does
	// not lead to (see find).
	// int32, half the room of int: a provider index is at most MaxIndex,
	// and a call index at most MaxIndex plus the calls held, which callCap
	// bounds.
	routeMap map[int32]int32 // provider index → position
	indexMap map[int32]int32 // call index → position

	hitFrom, hitPos int // the last route looked up, a one-entry cache
	newest          int // position of the newest call; -1 when none
	maxIndex        int // highest call index in use; -1 when none
	last            int // what LastIndex reports

	// The scanners of calls whose arguments are inside a value (see
	// call.sc): the first few in place, so that a response of a few calls
	// streamed at once allocates none; more are made as needed, and kept
	// for the next while no call holds them.
	scans     [inPlaceScanners]scanner
	scansHeld uint8 // bit i: a call holds scans[i]
	idle      []*scanner
}

// call is one call being assembled.
type call struct {
	index         int
	id, name, typ string
	args, extra   []byte

	// The scan of the arguments. One that is blank (whitespace so far) or
	// done (one complete value) is all in settled and len(args), and the
	// call holds no scanner: most calls end so, and a response of many
	// calls keeps a scanner only for those still inside a value, or
	// failed.
	sc      *scanner
	settled scanState // sc's state while sc is nil: scanValue or scanDone
}

// complete reports that the arguments are one whole JSON value.
func (c *call) complete() bool {
	if c.sc == nil {
		return c.settled == scanDone
	}
	return c.sc.complete()
}

// blank reports that the arguments are whitespace or nothing.
func (c *call) blank() bool { return c.sc == nil && c.settled == scanValue }

// takeScanner gives c, which holds none, a scanner standing where its
// scan settled, after its first n bytes of arguments: the arguments go on
// into a value. Given back (unscan) when the scan settles again.
func (a *Assembler) takeScanner(c *call, n int) {
	var s *scanner
	if i := bits.TrailingZeros8(^a.scansHeld); i < inPlaceScanners {
		s = &a.scans[i]
		a.scansHeld |= 1 << i
	} else if k := len(a.idle); k > 0 {
		s, a.idle = a.idle[k-1], a.idle[:k-1]
	} else {
		s = new(scanner)
	}
	s.reset()
	s.state, s.n = c.settled, n
	c.sc = s
}

// unscan gives back the scanner c holds, if any.
func (a *Assembler) unscan(c *call) {
	s := c.sc
	if s == nil {
		return
	}
	c.sc = nil
	for i := range a.scans {
		if s == &a.scans[i] {
			a.scansHeld &^= 1 << i
			return
		}
	}
	a.idle = append(a.idle, s)
}

// inPlaceScanners is how many calls may be inside their arguments at once
// before the Assembler makes scanners: parallel calls are a few.
const inPlaceScanners = 4

// route sends a provider index to a call.
type route struct{ from, pos int }

// NewAssembler returns an empty Assembler configured by opts; nil options
// are skipped. Later options override earlier ones.
func NewAssembler(opts ...Option) *Assembler {
	a := &Assembler{}
	for _, o := range opts {
		if o != nil {
			o.apply(&a.cfg)
		}
	}
	a.Reset()
	return a
}

// Reset empties the Assembler for the next response, keeping its options and
// its memory. Byte slices from earlier Previews are overwritten afterwards;
// Calls from earlier Finalizes are not affected.
func (a *Assembler) Reset() {
	for i := range a.calls {
		a.unscan(&a.calls[i])
	}
	a.calls = a.calls[:0]
	a.routes = a.routes[:0]
	clear(a.routeMap)
	clear(a.indexMap)
	a.hitFrom, a.hitPos = 0, -1
	a.newest, a.maxIndex, a.last = -1, -1, -1
	a.ready = true
}

// LastIndex reports the index ([Call.Index]) of the call that the latest
// [Assembler.Add] merged its fragment into. It is -1 before any Add, after
// Reset, and when the latest Add merged nothing: it returned an error, or
// ignored a NoIndex fragment under [WithStrictIndex]. Since NoIndex
// fragments and new calls at a reused index get their index from the
// assembler, this is how a caller learns where a fragment went.
func (a *Assembler) LastIndex() int {
	if !a.ready {
		return -1
	}
	return a.last
}

// Add merges f into the call it belongs to, starting a new call when the
// rules say so. A refused fragment changes nothing (LastIndex becomes -1),
// and the Assembler stays usable. The errors, each wrapping its sentinel:
//   - [*FragmentError] with [ErrInvalidIndex]: f.Index < 0 or > [MaxIndex]
//     without NoIndex;
//   - [*FragmentError] with [ErrInvalidExtra]: f.Extra is neither empty
//     nor a JSON object;
//   - [*LimitError] with [ErrTooManyCalls]: f would start a call past the
//     [WithMaxCalls] limit (2^30 at most);
//   - [*LimitError] with [ErrArgumentsTooLarge]: f would take its call's
//     arguments past the [WithMaxArgumentBytes] limit.
//
// Add does not judge the JSON of the arguments; [Assembler.Finalize] does.
// Add costs O(len(f.Arguments)) and, once the Assembler has warmed up, does
// not allocate (except to keep a call's first Extra).
func (a *Assembler) Add(f Fragment) error {
	if !a.ready {
		a.Reset()
	}
	a.last = -1
	if f.NoIndex {
		if a.cfg.strictIndex {
			return nil
		}
	} else if f.Index < 0 || f.Index > MaxIndex {
		return &FragmentError{Index: f.Index, Reason: "index " + strconv.Itoa(f.Index) + " is outside [0, " + strconv.Itoa(MaxIndex) + "]", Err: ErrInvalidIndex}
	}
	if len(f.Extra) > 0 && !isObjectText(f.Extra) {
		idx := f.Index
		if f.NoIndex {
			idx = -1
		}
		return &FragmentError{Index: idx, Reason: "extra is not a JSON object", Err: ErrInvalidExtra}
	}

	pos, at := a.place(&f)
	size := len(f.Arguments)
	if pos < 0 {
		if limit := a.cfg.callLimit(); len(a.calls) >= limit {
			return &LimitError{Index: at, Size: len(a.calls) + 1, Max: limit, Err: ErrTooManyCalls}
		}
	} else {
		at = a.calls[pos].index
		size += len(a.calls[pos].args)
	}
	if limit := a.cfg.argLimit(); limit >= 0 && size > limit {
		return &LimitError{Index: at, Size: size, Max: limit, Err: ErrArgumentsTooLarge}
	}

	// Nothing can fail from here on.
	if pos < 0 {
		pos = a.start(at, &f)
	}
	c := &a.calls[pos]
	if c.id == "" {
		c.id = f.ID
	}
	if c.name == "" {
		c.name = f.Name
	}
	if c.typ == "" {
		c.typ = f.Type
	}
	if len(c.extra) == 0 && len(f.Extra) > 0 {
		c.extra = append(c.extra, f.Extra...)
	}
	if f.Arguments != "" {
		c.args = append(c.args, f.Arguments...)
		if c.sc == nil {
			a.takeScanner(c, len(c.args)-len(f.Arguments))
		}
		feed(c.sc, f.Arguments)
		if c.sc.state == scanDone || c.sc.blank() {
			c.settled = c.sc.state
			a.unscan(c)
		}
	}
	a.last = c.index
	return nil
}

// place finds where f goes: the position of an existing call (pos ≥ 0), or
// the index of a call to start (pos < 0).
func (a *Assembler) place(f *Fragment) (pos, at int) {
	if f.NoIndex {
		switch {
		case a.newest < 0:
			return -1, a.maxIndex + 1
		case f.ID != "" && f.ID == a.calls[a.newest].id:
			// The newest call's header again: not a new call.
			return a.newest, 0
		case f.ID != "" || f.Name != "":
			return -1, a.maxIndex + 1
		}
		return a.newest, 0
	}
	pos = a.lookup(f.Index)
	if pos < 0 {
		if a.taken(f.Index) {
			// A call the assembler placed holds this index already.
			return -1, a.maxIndex + 1
		}
		return -1, f.Index
	}
	c := &a.calls[pos]
	if f.ID != "" && c.id != "" && f.ID != c.id && f.Name != "" && c.complete() {
		// Another call at the same index (old Ollama numbers every parallel
		// call 0). A new id alone is not enough: some servers change the id
		// in the middle of one call.
		return -1, a.maxIndex + 1
	}
	return pos, 0
}

// lookup returns the position of the call provider index p routes to, or -1.
func (a *Assembler) lookup(p int) int {
	if a.hitPos >= 0 && a.hitFrom == p {
		return a.hitPos
	}
	pos := -1
	if len(a.calls) <= linearLimit {
		for _, r := range a.routes {
			if r.from == p {
				pos = r.pos
				break
			}
		}
	} else if q, ok := a.routeMap[int32(p)]; ok {
		pos = int(q)
	}
	if pos >= 0 {
		a.hitFrom, a.hitPos = p, pos
	}
	return pos
}

// find returns the position of the call with index i, or -1.
func (a *Assembler) find(i int) int {
	if len(a.calls) <= linearLimit {
		for pos := range a.calls {
			if a.calls[pos].index == i {
				return pos
			}
		}
		return -1
	}
	if int(int32(i)) != i {
		return -1
	}
	if pos, ok := a.routeMap[int32(i)]; ok && a.calls[pos].index == i {
		return int(pos)
	}
	if pos, ok := a.indexMap[int32(i)]; ok {
		return int(pos)
	}
	return -1
}

// taken reports that a call holds index i.
func (a *Assembler) taken(i int) bool { return a.find(i) >= 0 }

// start begins a call at index at for fragment f and returns its position.
// It reuses a slot, and its buffers, left by Reset when there is one.
func (a *Assembler) start(at int, f *Fragment) int {
	pos := len(a.calls)
	if pos < cap(a.calls) {
		a.calls = a.calls[:pos+1]
		c := &a.calls[pos]
		c.index, c.id, c.name, c.typ = at, "", "", ""
		c.args, c.extra = c.args[:0], c.extra[:0]
		c.settled = scanValue // and no scanner: Reset took them back
	} else {
		// Doubled: append's growth slows to 1.25× for large slices, which
		// allocates a response of many calls five times over.
		a.calls = append(slices.Grow(a.calls, pos+1), call{index: at})
	}
	a.newest = pos
	a.maxIndex = max(a.maxIndex, at)

	if len(a.calls) <= linearLimit {
		if !f.NoIndex {
			a.setRoute(f.Index, pos)
		}
		return pos
	}
	if len(a.calls) == linearLimit+1 {
		// Switch lookups to maps, filling them with what the slices hold.
		if a.routeMap == nil {
			a.routeMap, a.indexMap = make(map[int32]int32), make(map[int32]int32)
		}
		for _, r := range a.routes {
			a.routeMap[int32(r.from)] = int32(r.pos)
		}
		for p := range pos {
			a.unrouted(p)
		}
	}
	if !f.NoIndex {
		old, ok := a.routeMap[int32(f.Index)]
		a.setRoute(f.Index, pos)
		if ok {
			a.unrouted(int(old))
		}
	}
	a.unrouted(pos)
	return pos
}

// unrouted puts the call at pos in indexMap when the route of its own
// index does not lead to it: a call the provider's index finds (nearly
// all) costs find no second map.
func (a *Assembler) unrouted(pos int) {
	i := int32(a.calls[pos].index)
	if q, ok := a.routeMap[i]; !ok || int(q) != pos {
		a.indexMap[i] = int32(pos)
	}
}

// setRoute sends provider index p to the call at pos from now on. Past
// linearLimit calls only the map is kept: lookup no longer reads the slice,
// and scanning it here would make starting n calls cost O(n²).
func (a *Assembler) setRoute(p, pos int) {
	a.hitFrom, a.hitPos = p, pos
	if len(a.calls) > linearLimit {
		a.routeMap[int32(p)] = int32(pos)
		return
	}
	if i := slices.IndexFunc(a.routes, func(r route) bool { return r.from == p }); i >= 0 {
		a.routes[i].pos = pos
	} else {
		a.routes = append(a.routes, route{from: p, pos: pos})
	}
}

// Finalize returns the calls assembled so far, in ascending index order,
// each with validated arguments (see [Call]); nil and a nil error when there
// are none. The caller owns the result. Finalize changes nothing: called
// again, it gives the same answer (more Adds may come in between).
//
// When any call's arguments are not one complete JSON value, Finalize
// returns nil and a [*CallsError] that lists every call, with the arguments
// as received, and an [*ArgumentsError] (wrapping [ErrInvalidArguments]) for
// each invalid one; errors.As finds the first invalid call in index order.
// Nothing of a failed Finalize may be executed: the error is there so that a
// caller can answer each call (tell the model what was wrong), not run it.
//
// Call Finalize only once the stream has ended properly — in OpenAI chat
// completions "[DONE]" or a finish_reason; in Anthropic Messages
// message_stop; in the Responses API response.completed or
// response.incomplete; in Gemini a candidate's finishReason — and treat any
// other end as a failure: on a stream cut short, the calls that happen to be
// complete so far look valid, and a call that never started is missing.
// (llmstream checks this for every dialect.)
//
// A call's arguments are accepted when they are exactly one JSON value as
// RFC 8259 defines it (any value, not only an object: a tool that needs an
// object checks that itself), with optional whitespace around it — the
// check encoding/json.Valid makes, byte for byte, including its two
// readings of the RFC: bytes inside strings are not checked for UTF-8
// validity, and \u escapes of unpaired surrogates are accepted. A
// byte-order mark is rejected, and so is nesting deeper than
// [MaxNestingDepth]. The check ran as the fragments arrived (each byte looked
// at once, without allocation), so Finalize costs O(calls) plus copying the
// arguments out.
func (a *Assembler) Finalize() ([]Call, error) {
	if len(a.calls) == 0 {
		return nil, nil
	}
	// Grown once: append's growth slows to 1.25× for large slices, which
	// allocated the order of many calls five times over.
	a.order = slices.Grow(a.order[:0], len(a.calls))
	for pos := range a.calls {
		a.order = append(a.order, pos)
	}
	byIndex := func(x, y int) int { return cmp.Compare(a.calls[x].index, a.calls[y].index) }
	if !slices.IsSortedFunc(a.order, byIndex) {
		slices.SortFunc(a.order, byIndex)
	}
	var invalid []*ArgumentsError
	for _, pos := range a.order {
		c := &a.calls[pos]
		if !c.complete() && !c.blank() { // then it holds a scanner
			at := c.sc.n
			if c.sc.failed() {
				at = c.sc.faultAt
			}
			invalid = append(invalid, &ArgumentsError{Index: c.index, Name: c.name, Offset: at, Reason: c.sc.reason(), Tail: tail(c.args), Err: ErrInvalidArguments})
		}
	}
	calls := a.collect()
	if invalid == nil {
		return calls, nil
	}
	for i, pos := 0, 0; i < len(invalid); pos++ {
		if calls[pos].Index == invalid[i].Index {
			invalid[i].ID = calls[pos].ID // made up like a valid call's
			i++
		}
	}
	return nil, &CallsError{Calls: calls, Invalid: invalid}
}

// collect copies the calls out in a.order, arguments as they stand.
func (a *Assembler) collect() []Call {
	// madeUpID formats "call_<index>" into num, not with strconv.Itoa,
	// which allocates for an index of 100 or more.
	var num [32]byte
	madeUpID := func(index int) []byte { return strconv.AppendInt(append(num[:0], "call_"...), int64(index), 10) }
	size, extraSize := 0, 0
	for _, pos := range a.order {
		c := &a.calls[pos]
		if !c.blank() {
			size += len(c.args)
		}
		if c.id == "" {
			size += len(madeUpID(c.index))
		}
		extraSize += len(c.extra)
	}

	// One string holds every call's arguments and made-up id, one slice
	// every Extra: two allocations, whatever the number of calls.
	var text strings.Builder
	text.Grow(size)
	var extras []byte
	if extraSize > 0 {
		extras = make([]byte, 0, extraSize)
	}
	for _, pos := range a.order {
		c := &a.calls[pos]
		if !c.blank() {
			text.Write(c.args)
		}
		if c.id == "" {
			text.Write(madeUpID(c.index))
		}
	}
	all := text.String()
	out := make([]Call, len(a.order))
	off := 0
	for i, pos := range a.order {
		c := &a.calls[pos]
		out[i] = Call{Index: c.index, ID: c.id, Type: c.typ, Name: c.name, Arguments: "{}"}
		if !c.blank() {
			out[i].Arguments = all[off : off+len(c.args)]
			off += len(c.args)
		}
		if c.id == "" {
			n := len(madeUpID(c.index))
			out[i].ID = all[off : off+n]
			off += n
		}
		if c.typ == "" {
			out[i].Type = "function"
		}
		if len(c.extra) > 0 {
			start := len(extras)
			extras = append(extras, c.extra...)
			out[i].Extra = extras[start:len(extras):len(extras)]
		}
	}
	return out
}

// isObjectText reports that b is one complete JSON object, allowing
// surrounding whitespace.
func isObjectText(b []byte) bool {
	var s scanner
	feed(&s, b)
	if !s.complete() {
		return false
	}
	for _, c := range b {
		if !isWhite(c) {
			return c == '{'
		}
	}
	return false
}
