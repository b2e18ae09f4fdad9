package eventstream

// interner turns bytes into a string without allocating when the same
// string was seen recently. Header names come from a small set that repeats
// in every frame (":event-type", ":content-type", ":message-type"), so a
// handful of entries makes them free in steady state.
type interner struct {
	s    [8]string
	next int // the entry to replace next, round robin
}

// get returns b as a string, reusing an equal recent one.
func (in *interner) get(b []byte) string {
	for _, s := range in.s {
		// The conversion in a comparison does not allocate.
		if string(b) == s {
			return s
		}
	}
	s := string(b)
	in.s[in.next] = s
	in.next = (in.next + 1) % len(in.s)
	return s
}
