package toolcall

// Preview is a read-only view of a call still forming, for a user interface
// that shows a tool call as it streams. It is not a [Call] and cannot be made
// into one: its arguments are unvalidated and possibly cut short, so nothing
// may execute them. Only a Call from a successful [Assembler.Finalize] may
// run.
type Preview struct {
	// Index is the call's index, as [Assembler.LastIndex] reports it.
	Index int
	// ID and Name are the call's id and name so far; empty when none
	// arrived yet.
	ID, Name string
	// Partial is the call's arguments so far, exactly as they arrived. It
	// aliases the Assembler's memory: do not modify it. Its bytes stay as
	// they are until the Assembler's next Reset; copy them to keep them
	// longer.
	Partial []byte
	// Complete reports that Partial is already one complete JSON value. It
	// may still grow (by whitespace, or, if the provider misbehaves, by bytes
	// that break it).
	Complete bool

	keep   int    // how much of Partial the closed text keeps
	suffix []byte // what the closed text appends
	ok     bool   // there is a closed text
}

// Preview returns a view of the call with index i (as [Call.Index] and
// [Assembler.LastIndex] number calls), and false when there is none. It
// costs O(nesting depth of the arguments so far), not O(their length), and
// keeps nothing: Add is no slower for it.
func (a *Assembler) Preview(i int) (Preview, bool) {
	pos := a.find(i)
	if pos < 0 {
		return Preview{}, false
	}
	c := &a.calls[pos]
	p := Preview{
		Index:    c.index,
		ID:       c.id,
		Name:     c.name,
		Partial:  c.args[:len(c.args):len(c.args)],
		Complete: c.sc.complete(),
	}
	p.keep, p.suffix, p.ok = c.sc.closing(nil)
	return p, true
}

// Closed returns a best-effort completion of Partial into JSON text that a
// JSON parser accepts: open strings, arrays and objects are closed, a
// started literal is completed ("tr" becomes "true"), and what cannot be
// finished without inventing content is dropped (a dangling key, a trailing
// comma, half an escape, the unfinished end of a number). The result is ""
// when there is nothing to show: no value has begun, or Partial can no
// longer become JSON (Finalize will reject it). It is a display aid only; it
// costs O(len(Partial)).
func (p Preview) Closed() string {
	if !p.ok {
		return ""
	}
	return string(p.AppendClosed(nil))
}

// AppendClosed appends the text [Preview.Closed] returns to dst and returns
// the extended slice; it appends nothing when Closed would be "".
func (p Preview) AppendClosed(dst []byte) []byte {
	if !p.ok {
		return dst
	}
	dst = append(dst, p.Partial[:p.keep]...)
	return append(dst, p.suffix...)
}
