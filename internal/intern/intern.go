// Package intern turns bytes into a string without allocating when the same
// string was seen recently. sse's event types and unknown field names, and
// eventstream's header names, come from a small set that repeats in every
// event or frame (Anthropic-style streams alternate a few types; every AWS
// frame carries ":event-type", ":content-type", ":message-type"), so a
// handful of entries makes them free in steady state.
package intern

// Table holds the last few strings it handed out. Its zero value is ready
// to use. It is not safe for concurrent use: each decoder keeps its own.
type Table struct {
	s    [8]string
	next int // the entry to replace next, round robin
}

// String returns b as a string, reusing an equal one among the last eight
// distinct strings it returned. The result does not alias b.
func (t *Table) String(b []byte) string {
	for _, s := range t.s {
		// The conversion in a comparison does not allocate.
		if string(b) == s {
			return s
		}
	}
	s := string(b)
	t.s[t.next] = s
	t.next = (t.next + 1) % len(t.s)
	return s
}
