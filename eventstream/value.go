package eventstream

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"time"
)

// Type is the type of a header's value. The zero Type means "no value": a
// header lookup that found nothing.
type Type uint8

// The value types the encoding defines. On the wire a boolean is two types,
// true and false, with no value bytes; here it is one, [TypeBool].
const (
	TypeBool      Type = iota + 1 // wire types 0 (true) and 1 (false)
	TypeByte                      // wire type 2: a signed 8-bit integer
	TypeShort                     // wire type 3: a signed 16-bit integer, big-endian
	TypeInt                       // wire type 4: a signed 32-bit integer, big-endian
	TypeLong                      // wire type 5: a signed 64-bit integer, big-endian
	TypeByteArray                 // wire type 6: up to 65535 bytes after a 2-byte length
	TypeString                    // wire type 7: up to 65535 bytes of UTF-8 after a 2-byte length
	TypeTimestamp                 // wire type 8: milliseconds since the Unix epoch, a signed 64-bit integer
	TypeUUID                      // wire type 9: 16 bytes
)

var typeNames = [...]string{"", "bool", "byte", "short", "int", "long", "byte_array", "string", "timestamp", "uuid"}

// String returns the type's name as the AWS documentation spells it, or
// "Type(n)" for a value outside the constants. The zero Type prints as
// "none".
func (t Type) String() string {
	switch {
	case t == 0:
		return "none"
	case int(t) < len(typeNames):
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Value is a header's value: one of the types the encoding defines. The zero
// Value has Type 0 and stands for "no such header".
//
// A Value decoded by a [Reader] or [Parser] aliases their buffers for the
// byte array, string and UUID types: it is valid as long as the [Message]
// it came from (see [Message.Clone]). A Value is immutable otherwise and
// safe to share between goroutines while its bytes live.
type Value struct {
	typ Type
	n   int64  // bool (1 or 0), the integers, the timestamp's milliseconds
	b   []byte // the byte array, string or UUID
}

// Bool returns a boolean Value.
func Bool(v bool) Value {
	if v {
		return Value{typ: TypeBool, n: 1}
	}
	return Value{typ: TypeBool}
}

// Byte returns a Value of [TypeByte].
func Byte(v int8) Value { return Value{typ: TypeByte, n: int64(v)} }

// Short returns a Value of [TypeShort].
func Short(v int16) Value { return Value{typ: TypeShort, n: int64(v)} }

// Int returns a Value of [TypeInt].
func Int(v int32) Value { return Value{typ: TypeInt, n: int64(v)} }

// Long returns a Value of [TypeLong].
func Long(v int64) Value { return Value{typ: TypeLong, n: v} }

// ByteArray returns a Value of [TypeByteArray] that aliases b.
func ByteArray(b []byte) Value { return Value{typ: TypeByteArray, b: b} }

// String returns a Value of [TypeString] holding a copy of s.
func String(s string) Value { return Value{typ: TypeString, b: []byte(s)} }

// Timestamp returns a Value of [TypeTimestamp]: t to the millisecond, as
// the wire holds it (finer precision is truncated).
func Timestamp(t time.Time) Value { return Value{typ: TypeTimestamp, n: t.UnixMilli()} }

// UUID returns a Value of [TypeUUID].
func UUID(u [16]byte) Value { return Value{typ: TypeUUID, b: u[:]} }

// Type returns the value's type; 0 for the zero Value.
func (v Value) Type() Type { return v.typ }

// Bool returns the value of a [TypeBool] Value, and false for any other
// type.
func (v Value) Bool() bool { return v.typ == TypeBool && v.n != 0 }

// Int returns the value of a [TypeByte], [TypeShort], [TypeInt] or
// [TypeLong] Value, and 0 for any other type.
func (v Value) Int() int64 {
	switch v.typ {
	case TypeByte, TypeShort, TypeInt, TypeLong:
		return v.n
	}
	return 0
}

// Time returns the instant of a [TypeTimestamp] Value, in UTC, and the zero
// time.Time for any other type.
func (v Value) Time() time.Time {
	if v.typ != TypeTimestamp {
		return time.Time{}
	}
	return time.UnixMilli(v.n).UTC()
}

// Bytes returns the bytes of a [TypeByteArray], [TypeString] or [TypeUUID]
// Value, and nil for any other type. They alias the Value's memory: a
// decoded Value's bytes live as long as its [Message]. Comparing
// string(v.Bytes()) == "text" does not allocate.
func (v Value) Bytes() []byte {
	switch v.typ {
	case TypeByteArray, TypeString, TypeUUID:
		return v.b
	}
	return nil
}

// String returns the text of a [TypeString] Value, a new string. Other types
// print as text: "true", a decimal integer, a timestamp in RFC 3339 with
// milliseconds, a UUID in its 8-4-4-4-12 hex form, a byte array in standard
// base64; the zero Value as "".
func (v Value) String() string {
	switch v.typ {
	case TypeString:
		return string(v.b)
	case TypeBool:
		return strconv.FormatBool(v.n != 0)
	case TypeByte, TypeShort, TypeInt, TypeLong:
		return strconv.FormatInt(v.n, 10)
	case TypeTimestamp:
		return v.Time().Format("2006-01-02T15:04:05.000Z07:00")
	case TypeUUID:
		var s [36]byte
		hex.Encode(s[0:8], v.b[0:4])
		hex.Encode(s[9:13], v.b[4:6])
		hex.Encode(s[14:18], v.b[6:8])
		hex.Encode(s[19:23], v.b[8:10])
		hex.Encode(s[24:], v.b[10:])
		s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
		return string(s[:])
	case TypeByteArray:
		return base64.StdEncoding.EncodeToString(v.b)
	}
	return ""
}
