package eventstream

// Message is one decoded frame: its headers, in wire order, and its payload.
//
// A Message from a [Reader] or [Parser] aliases their buffers: Headers, the
// bytes of its values and Payload are valid until the next call to
// [Reader.Next] (for a Parser, only during the emit call). Use
// [Message.Clone] to keep one. Header names are ordinary strings.
type Message struct {
	Headers []Header
	Payload []byte
}

// Header is one header of a frame: a name of 1 to 255 bytes and a value.
type Header struct {
	Name  string
	Value Value
}

// Header returns the value of the header named name, and whether there is
// one. When a frame repeats a name, the last one wins, as in AWS's own
// decoders. The lookup is a linear scan: frames hold a handful of headers.
func (m Message) Header(name string) (Value, bool) {
	for i := len(m.Headers) - 1; i >= 0; i-- {
		if m.Headers[i].Name == name {
			return m.Headers[i].Value, true
		}
	}
	return Value{}, false
}

// Clone returns a deep copy of m that shares no memory with it: every
// header value's bytes and the payload are copied into one new block.
func (m Message) Clone() Message {
	n := len(m.Payload)
	for _, h := range m.Headers {
		n += len(h.Value.b)
	}
	block := make([]byte, 0, n)
	c := Message{}
	if m.Headers != nil {
		c.Headers = make([]Header, len(m.Headers))
		for i, h := range m.Headers {
			c.Headers[i] = h
			if h.Value.b != nil {
				s := len(block)
				block = append(block, h.Value.b...)
				c.Headers[i].Value.b = block[s:len(block):len(block)]
			}
		}
	}
	if m.Payload != nil {
		s := len(block)
		block = append(block, m.Payload...)
		c.Payload = block[s:len(block):len(block)]
	}
	return c
}
