package llmstream

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the Responses dialect's function calls: argument deltas,
// full arguments, and the call's id and name.

// argsDelta hands an argument delta to the assembler.
func (r *responsesDecoder) argsDelta(ev *sse.Event) error {
	it, err := r.deltaItem(ev, respCall, findNewest)
	if err != nil {
		return err
	}
	if !r.doc.IsString(r.delta) {
		return nil
	}
	r.arena = r.doc.Str(r.arena[:0], r.delta)
	if len(r.arena) == 0 {
		return nil
	}
	it.deltas = true
	// Not copied: Add copies the arguments into its call and keeps nothing
	// of the fragment.
	args := unsafe.String(unsafe.SliceData(r.arena), len(r.arena))
	return r.b.addFragment(toolcall.Fragment{Index: int(it.call), Arguments: args})
}

// argsDone is function_call_arguments.done: its full arguments win.
func (r *responsesDecoder) argsDone(ev *sse.Event) error {
	it, err := r.deltaItem(ev, respCall, findOldest)
	if err != nil {
		return err
	}
	if it.argsEnd {
		// Each one may restart every call (see fullArguments): once.
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("function_call_arguments.done twice for output item %d", it.index))
	}
	it.argsEnd = true
	if r.doc.IsString(r.callName) {
		if err := r.header(it, jsonscan.NoSpan, r.callName); err != nil {
			return err
		}
	}
	return r.fullArguments(it, r.args)
}

// header gives the call the id and name it has none of yet. Only what is
// missing is sent: an id that changed at a call's end must not read as a
// new call at the same index.
func (r *responsesDecoder) header(it *respItem, callID, name jsonscan.Span) error {
	f := toolcall.Fragment{Index: int(it.call), Type: "function"}
	p, started := r.b.assembler().Preview(int(it.call))
	if r.doc.IsString(callID) && p.ID == "" {
		f.ID = string(r.doc.Str(nil, callID))
	}
	if r.doc.IsString(name) && p.Name == "" {
		f.Name = string(r.doc.Str(nil, name))
	}
	if started && f.ID == "" && f.Name == "" {
		return nil
	}
	return r.b.addFragment(f)
}

// fullArguments makes the JSON string at s, when non-empty, the call's
// arguments, whatever the deltas brought.
func (r *responsesDecoder) fullArguments(it *respItem, s jsonscan.Span) error {
	if !r.doc.IsString(s) || s.End-s.Start == 2 {
		return nil
	}
	b := r.b
	r.arena = r.doc.Str(r.arena[:0], s)
	p, _ := b.assembler().Preview(int(it.call))
	switch {
	case bytes.Equal(p.Partial, r.arena):
		return nil
	case len(p.Partial) == 0:
		return b.addFragment(toolcall.Fragment{Index: int(it.call), Arguments: string(r.arena)})
	}
	// The deltas said something else: start the calls over, this one with
	// the full arguments. Rare, so it may cost a copy of every call.
	fresh := b.newAssembler()
	for i := range r.items.Len() {
		c := r.items.At(i)
		if c.kind != respCall {
			continue
		}
		q, ok := b.assembler().Preview(int(c.call))
		if !ok {
			continue
		}
		f := toolcall.Fragment{Index: int(c.call), ID: q.ID, Name: q.Name, Type: "function", Arguments: string(q.Partial)}
		if c == it {
			f.Arguments = string(r.arena)
		}
		if err := fresh.Add(f); err != nil {
			return b.fail(err)
		}
	}
	b.swapAssembler(fresh)
	b.progress()
	return nil
}

// startArguments takes the arguments output_item.added carried, for a call
// that got neither deltas nor full arguments.
func (r *responsesDecoder) startArguments(it *respItem) error {
	if it.deltas || len(it.start) == 0 {
		return nil
	}
	if p, _ := r.b.assembler().Preview(int(it.call)); len(p.Partial) > 0 {
		return nil
	}
	return r.b.addFragment(toolcall.Fragment{Index: int(it.call), Arguments: it.start})
}
