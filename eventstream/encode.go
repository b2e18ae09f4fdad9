package eventstream

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// maxValueLen is the longest byte array or string value [AppendFrame]
// writes: AWS's encoders stop at 32767 bytes, although the wire's 2-byte
// length could say more.
const maxValueLen = 1<<15 - 1

// AppendFrame appends the encoding of m, one frame, to dst and returns the
// extended slice. Headers are written in order, duplicates included. It is
// for writing streams — a test server serving event-stream bodies, say; a
// frame written by it reads back through a [Reader] as m.
//
// It fails, returning dst unchanged and an error that unwraps to
// [ErrBadHeader], when a header's name is empty or longer than 255 bytes,
// its value is the zero Value or a byte array or string longer than 32767
// bytes; with [ErrHeadersTooLarge] when the headers take more than
// [MaxHeadersSize] bytes; and with [ErrFrameTooLarge] when the frame would be longer than
// the 4-byte total length can state. It does not apply a Reader's limit.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	hl := 0
	for i, h := range m.Headers {
		n, err := headerLen(h)
		if err != nil {
			return dst, fmt.Errorf("%w: header %d: %s", ErrBadHeader, i, err)
		}
		hl += n
	}
	if hl > MaxHeadersSize {
		return dst, fmt.Errorf("%w: %d bytes of headers (at most %d)", ErrHeadersTooLarge, hl, MaxHeadersSize)
	}
	total := uint64(minFrameSize) + uint64(hl) + uint64(len(m.Payload))
	if total > math.MaxUint32 {
		return dst, fmt.Errorf("%w: %d bytes, more than a frame's length can state", ErrFrameTooLarge, total)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = binary.BigEndian.AppendUint32(dst, uint32(hl))
	pc := crc32.ChecksumIEEE(dst[start:])
	dst = binary.BigEndian.AppendUint32(dst, pc)
	for _, h := range m.Headers {
		dst = appendHeader(dst, h)
	}
	dst = append(dst, m.Payload...)
	// The message CRC carries on from the prelude's, as the decoder checks it.
	return binary.BigEndian.AppendUint32(dst, crc32.Update(pc, crc32.IEEETable, dst[start+8:])), nil
}

// headerLen returns the encoded length of h, or why it cannot be encoded.
// The reason never holds the header's name or value.
func headerLen(h Header) (int, error) {
	if len(h.Name) == 0 || len(h.Name) > math.MaxUint8 {
		return 0, fmt.Errorf("a name of %d bytes (1 to 255 allowed)", len(h.Name))
	}
	n := 1 + len(h.Name) + 1
	switch h.Value.typ {
	case TypeBool:
	case TypeByte:
		n++
	case TypeShort:
		n += 2
	case TypeInt:
		n += 4
	case TypeLong, TypeTimestamp:
		n += 8
	case TypeUUID:
		if len(h.Value.b) != 16 {
			return 0, fmt.Errorf("a UUID of %d bytes", len(h.Value.b))
		}
		n += 16
	case TypeByteArray, TypeString:
		if len(h.Value.b) > maxValueLen {
			return 0, fmt.Errorf("a %v value of %d bytes (at most %d)", h.Value.typ, len(h.Value.b), maxValueLen)
		}
		n += 2 + len(h.Value.b)
	default:
		return 0, fmt.Errorf("a value of %v", h.Value.typ)
	}
	return n, nil
}

// appendHeader appends h, which headerLen accepted.
func appendHeader(dst []byte, h Header) []byte {
	dst = append(dst, byte(len(h.Name)))
	dst = append(dst, h.Name...)
	v := h.Value
	switch v.typ {
	case TypeBool:
		if v.n != 0 {
			return append(dst, wireTrue)
		}
		return append(dst, wireFalse)
	case TypeByte:
		return append(dst, wireByte, byte(v.n))
	case TypeShort:
		return binary.BigEndian.AppendUint16(append(dst, wireShort), uint16(v.n))
	case TypeInt:
		return binary.BigEndian.AppendUint32(append(dst, wireInt), uint32(v.n))
	case TypeLong:
		return binary.BigEndian.AppendUint64(append(dst, wireLong), uint64(v.n))
	case TypeTimestamp:
		return binary.BigEndian.AppendUint64(append(dst, wireTimestamp), uint64(v.n))
	case TypeUUID:
		return append(append(dst, wireUUID), v.b...)
	case TypeByteArray:
		dst = binary.BigEndian.AppendUint16(append(dst, wireByteArray), uint16(len(v.b)))
	default: // TypeString
		dst = binary.BigEndian.AppendUint16(append(dst, wireString), uint16(len(v.b)))
	}
	return append(dst, v.b...)
}
