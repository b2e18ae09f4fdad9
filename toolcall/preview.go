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
}

// Preview returns a view of the call with index i (as [Call.Index] and
// [Assembler.LastIndex] number calls), and false when there is none. It
// costs O(1) and allocates nothing, however long or deep the arguments so
// far, so a caller may take one per fragment; it keeps nothing: Add is no
// slower for it. The closed text is built only when asked for, by
// [Preview.Closed].
func (a *Assembler) Preview(i int) (Preview, bool) {
	pos := a.find(i)
	if pos < 0 {
		return Preview{}, false
	}
	c := &a.calls[pos]
	return Preview{
		Index:    c.index,
		ID:       c.id,
		Name:     c.name,
		Partial:  c.args[:len(c.args):len(c.args)],
		Complete: c.complete(),
	}, true
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
	return string(p.AppendClosed(nil))
}

// AppendClosed appends the text [Preview.Closed] returns to dst and returns
// the extended slice; it appends nothing when Closed would be "".
//
// It scans Partial again rather than keep the Assembler's scan: a Preview
// taken per fragment then costs nothing, where a closing suffix built per
// fragment cost O(depth) each time.
func (p Preview) AppendClosed(dst []byte) []byte {
	var s scanner
	feed(&s, p.Partial)
	keep, suffix, ok := s.closing(nil)
	if !ok {
		return dst
	}
	dst = append(dst, p.Partial[:keep]...)
	return append(dst, suffix...)
}
