package eventstream

import (
	"encoding/binary"
	"strconv"
)

// The frame layout (all integers big-endian):
//
//	total length   uint32  the whole frame, these 4 bytes included
//	headers length uint32
//	prelude CRC    uint32  CRC32 (IEEE) of the 8 bytes above
//	headers        headers length bytes
//	payload        total - headers length - 16 bytes
//	message CRC    uint32  CRC32 (IEEE) of every byte before it
const (
	preludeLen = 12 // the two lengths and the prelude CRC
	crcLen     = 4
)

// prelude checks the 12-byte prelude at the start of b and returns the
// frame's total and headers lengths. A prelude whose CRC does not match is
// reported first: its lengths mean nothing. off is the frame's offset in
// the stream, for the error.
func prelude(b []byte, max int, off int64) (total, headers int, err error) {
	t := binary.BigEndian.Uint32(b[0:])
	h := binary.BigEndian.Uint32(b[4:])
	if got, want := crcStep8(0, b), binary.BigEndian.Uint32(b[8:]); got != want {
		return 0, 0, &FrameError{Offset: off, Err: ErrBadPreludeCRC, Detail: crcDetail(want, got)}
	}
	if t < minFrameSize || uint64(h) > uint64(t)-minFrameSize {
		return 0, 0, &FrameError{Offset: off, Err: ErrBadLength, Detail: "total length " +
			strconv.FormatUint(uint64(t), 10) + ", headers length " + strconv.FormatUint(uint64(h), 10) +
			" (a frame is at least 16 bytes plus its headers)"}
	}
	if uint64(t) > uint64(max) {
		return 0, 0, &FrameSizeError{Offset: off, Size: int64(t), Max: max}
	}
	if h > MaxHeadersSize {
		return 0, 0, &FrameError{Offset: off, Err: ErrHeadersTooLarge, Detail: "headers length " +
			strconv.FormatUint(uint64(h), 10) + ", limit " + strconv.Itoa(MaxHeadersSize)}
	}
	return int(t), int(h), nil
}

// frame decodes the complete frame b, whose prelude [prelude] accepted with
// the headers length h, into m. m's headers and payload alias b.
func frame(b []byte, h int, d *headerDecoder, m *Message, off int64) error {
	end := len(b) - crcLen
	// The message CRC runs over the prelude too, whose CRC prelude checked:
	// carry on from that rather than hash those 8 bytes again.
	got := crcUpdate(binary.BigEndian.Uint32(b[8:]), b[8:end])
	if want := binary.BigEndian.Uint32(b[end:]); got != want {
		return &FrameError{Offset: off, Err: ErrBadMessageCRC, Detail: crcDetail(want, got)}
	}
	hs, detail := d.decode(b[preludeLen : preludeLen+h])
	if detail != "" {
		return &FrameError{Offset: off, Err: ErrBadHeader, Detail: detail}
	}
	m.Headers = hs
	m.Payload = nil
	if p := b[preludeLen+h : end]; len(p) > 0 {
		m.Payload = p
	}
	return nil
}

// truncated is the error for an input that ends after n bytes of a frame
// that needs need bytes (12 while its prelude is incomplete).
func truncated(n, need int, off int64) error {
	what := " bytes of a " + strconv.Itoa(need) + "-byte frame"
	if need == preludeLen {
		what = " bytes of the 12-byte prelude"
	}
	return &FrameError{Offset: off, Err: ErrTruncated, Detail: "the input ended after " + strconv.Itoa(n) + what}
}

func crcDetail(want, got uint32) string {
	return "stated 0x" + hex32(want) + ", computed 0x" + hex32(got)
}

func hex32(v uint32) string {
	s := strconv.FormatUint(uint64(v), 16)
	for len(s) < 8 {
		s = "0" + s
	}
	return s
}
