package eventstream

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/airlock-go/airlock/internal/intern"
)

// The wire codes of the value types, per the encoding.
const (
	wireTrue byte = iota
	wireFalse
	wireByte
	wireShort
	wireInt
	wireLong
	wireByteArray
	wireString
	wireTimestamp
	wireUUID
)

// fixedLen is the length of the value after the type byte, for the types of
// fixed length; -1 for those with a 2-byte length first.
var fixedLen = [...]int{
	wireTrue: 0, wireFalse: 0, wireByte: 1, wireShort: 2, wireInt: 4, wireLong: 8,
	wireByteArray: -1, wireString: -1, wireTimestamp: 8, wireUUID: 16,
}

// headerDecoder decodes headers sections into a slice it reuses, so a stream
// of frames decodes without allocating.
type headerDecoder struct {
	hs    []Header
	names intern.Table
}

// decode parses the headers section b. The returned headers alias b and the
// decoder's slice; on error it returns the detail for an [ErrBadHeader].
func (d *headerDecoder) decode(b []byte) ([]Header, string) {
	hs := d.hs[:0]
	for i := 0; i < len(b); {
		at := i
		n := int(b[i])
		i++
		if n == 0 {
			return nil, "header at byte " + strconv.Itoa(at) + " of the headers: empty name"
		}
		if n > len(b)-i {
			return nil, "header at byte " + strconv.Itoa(at) + " of the headers: name of " + strconv.Itoa(n) + " bytes runs past the section"
		}
		name := b[i : i+n]
		i += n
		if i == len(b) {
			return nil, "header at byte " + strconv.Itoa(at) + " of the headers: no value type"
		}
		t := b[i]
		i++
		if int(t) >= len(fixedLen) {
			return nil, "header at byte " + strconv.Itoa(at) + " of the headers: unknown value type " + strconv.Itoa(int(t))
		}
		vl := fixedLen[t]
		if vl < 0 {
			if len(b)-i < 2 {
				return nil, "header at byte " + strconv.Itoa(at) + " of the headers: value length runs past the section"
			}
			vl = int(binary.BigEndian.Uint16(b[i:]))
			i += 2
		}
		if vl > len(b)-i {
			return nil, "header at byte " + strconv.Itoa(at) + " of the headers: value of " + strconv.Itoa(vl) + " bytes runs past the section"
		}
		v := b[i : i+vl]
		i += vl
		// Fill the slot in place: building a Header and appending it copied
		// it through stack temporaries, which cost more than the parsing.
		hs = slices.Grow(hs, 1)[:len(hs)+1]
		setWireValue(&hs[len(hs)-1].Value, t, v)
		hs[len(hs)-1].Name = d.names.String(name)
	}
	d.hs = hs
	if len(hs) == 0 {
		return nil, "" // so that a frame without headers reads the same from every decoder
	}
	return hs, ""
}

// setWireValue sets *x to the Value of wire type t from its value bytes v,
// whose length suits t. Every field is set: x may hold an earlier frame's.
func setWireValue(x *Value, t byte, v []byte) {
	x.b = nil
	x.n = 0
	switch t {
	case wireTrue:
		x.typ, x.n = TypeBool, 1
	case wireFalse:
		x.typ = TypeBool
	case wireByte:
		x.typ, x.n = TypeByte, int64(int8(v[0]))
	case wireShort:
		x.typ, x.n = TypeShort, int64(int16(binary.BigEndian.Uint16(v)))
	case wireInt:
		x.typ, x.n = TypeInt, int64(int32(binary.BigEndian.Uint32(v)))
	case wireLong:
		x.typ, x.n = TypeLong, int64(binary.BigEndian.Uint64(v))
	case wireByteArray:
		x.typ, x.b = TypeByteArray, v
	case wireString:
		x.typ, x.b = TypeString, v
	case wireTimestamp:
		x.typ, x.n = TypeTimestamp, int64(binary.BigEndian.Uint64(v))
	default:
		x.typ, x.b = TypeUUID, v
	}
}
