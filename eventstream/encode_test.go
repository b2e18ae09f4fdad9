package eventstream

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestAppendFrameErrors(t *testing.T) {
	secret := "sk-secret-value"
	tests := []struct {
		name string
		h    Header
	}{
		{"empty name", Header{Name: "", Value: Int(1)}},
		{"name of 256 bytes", Header{Name: strings.Repeat("n", 256), Value: Int(1)}},
		{"zero value", Header{Name: "x"}},
		{"string of 32768 bytes", Header{Name: "x", Value: String(secret + strings.Repeat("v", 32768-len(secret)))}},
		{"byte array of 32768 bytes", Header{Name: "x", Value: ByteArray(make([]byte, 32768))}},
		{"short UUID", Header{Name: "x", Value: Value{typ: TypeUUID, b: []byte{1}}}},
	}
	for _, tt := range tests {
		dst := []byte("prefix")
		got, err := AppendFrame(dst, Message{Headers: []Header{{Name: "ok", Value: Int(1)}, tt.h}})
		if !errors.Is(err, ErrBadHeader) || !bytes.Equal(got, dst) {
			t.Errorf("%s: %q, %v; want the prefix alone and ErrBadHeader", tt.name, got, err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error shows the value: %v", tt.name, err)
		}
	}
	// At the bounds: a 255-byte name and a 32767-byte value are written.
	m := Message{Headers: []Header{{Name: strings.Repeat("n", 255), Value: String(strings.Repeat("v", 32767))}}}
	f, err := AppendFrame(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	res := readAll(bytes.NewReader(f))
	if len(res.Msgs) != 1 || res.Msgs[0].Headers[0].Value.String() != strings.Repeat("v", 32767) {
		t.Fatalf("read back %+v, %v", res.Msgs, res.err)
	}
}
