package eventstream

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMessageHeaderLastWins(t *testing.T) {
	m := Message{Headers: []Header{{Name: "a", Value: Int(1)}, {Name: "b", Value: Bool(true)}, {Name: "a", Value: Int(2)}}}
	if v, ok := m.Header("a"); !ok || v.Int() != 2 {
		t.Errorf(`Header("a") = %v, %v; want 2`, v, ok)
	}
	if v, ok := m.Header("c"); ok || v.Type() != 0 || v.String() != "" {
		t.Errorf(`Header("c") = %v, %v; want the zero Value`, v, ok)
	}
}

func TestMessageClone(t *testing.T) {
	f := concat(bedrockFrame("one", `{"a":1}`), bedrockFrame("two", `{"b":2}`))
	r := NewReader(bytes.NewReader(f))
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	kept := m.Clone()
	if diff := cmp.Diff(m, kept, cmpValues); diff != "" {
		t.Fatalf("Clone differs:\n%s", diff)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if v, _ := kept.Header(":event-type"); v.String() != "one" || string(kept.Payload) != `{"a":1}` {
		t.Errorf("the clone changed with the next frame: %v %s", v, kept.Payload)
	}
	if c := (Message{}).Clone(); c.Headers != nil || c.Payload != nil {
		t.Errorf("Clone of the zero Message = %+v", c)
	}
}

func TestValueAccessors(t *testing.T) {
	for _, v := range []Value{Bool(true), Byte(1), Short(1), Int(1), Long(1), ByteArray([]byte{1}), String("1"), Timestamp(time.UnixMilli(1)), UUID([16]byte{1})} {
		wantInt := v.Type() >= TypeByte && v.Type() <= TypeLong
		if (v.Int() == 1) != wantInt {
			t.Errorf("%v.Int() = %d", v.Type(), v.Int())
		}
		if v.Bool() != (v.Type() == TypeBool) {
			t.Errorf("%v.Bool() = %v", v.Type(), v.Bool())
		}
		if v.Time().IsZero() != (v.Type() != TypeTimestamp) {
			t.Errorf("%v.Time() = %v", v.Type(), v.Time())
		}
		wantBytes := v.Type() == TypeByteArray || v.Type() == TypeString || v.Type() == TypeUUID
		if (v.Bytes() != nil) != wantBytes {
			t.Errorf("%v.Bytes() = %v", v.Type(), v.Bytes())
		}
	}
	if got := Timestamp(time.UnixMilli(1500).Add(999)).Time(); !got.Equal(time.UnixMilli(1500)) || got.Location() != time.UTC {
		t.Errorf("Timestamp keeps %v, want 1.5 s in UTC", got)
	}
	for typ, want := range map[Type]string{0: "none", TypeBool: "bool", TypeByteArray: "byte_array", TypeUUID: "uuid", 10: "Type(10)"} {
		if typ.String() != want {
			t.Errorf("Type(%d).String() = %q, want %q", typ, typ.String(), want)
		}
	}
}
