package agentloop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
)

// A State is written by reflection, every exported field under its Go
// name, ignoring the types' own JSON methods and tags (a Message's are the
// provider's view, without usage or stop reasons): numbers are numbers,
// texts and raw JSON strings, nil apart from empty. A field added to any
// of these types is saved with no change here.

// MarshalJSON writes every field of the State, so that unmarshaling the
// result gives an equal State. Texts that are not valid UTF-8 come back
// with U+FFFD in place of the bad bytes, as encoding/json does.
func (st State) MarshalJSON() ([]byte, error) {
	return json.Marshal(encodeValue(reflect.ValueOf(st)))
}

// UnmarshalJSON reads what MarshalJSON wrote. A member the State's types
// do not have, or a value of the wrong kind, is an error and st is left
// as it was.
func (st *State) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	var out State
	if err := decodeValue(v, reflect.ValueOf(&out).Elem(), "state"); err != nil {
		return fmt.Errorf("agentloop: %w", err)
	}
	*st = out
	return nil
}

// encodeValue turns v into a value encoding/json writes without calling
// any method of v's types.
func encodeValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return encodeValue(v.Elem())
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				m[f.Name] = encodeValue(v.Field(i))
			}
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return string(v.Bytes())
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = encodeValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = encodeValue(it.Value())
		}
		return m
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return json.Number(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return json.Number(strconv.FormatUint(v.Uint(), 10))
	}
	// A kind no State type has (float, interface, func, chan): the test
	// that fills every field fails on it, so this is never reached.
	panic("agentloop: a State holds a " + v.Kind().String())
}

// decodeValue sets dst from v, the encoding/json reading (numbers as
// json.Number) of what encodeValue made; at names the place for errors.
func decodeValue(v any, dst reflect.Value, at string) error {
	bad := func() error { return fmt.Errorf("%s: %T does not fit a %v", at, v, dst.Type()) }
	if v == nil {
		switch dst.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			dst.SetZero()
			return nil
		}
		return bad()
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := decodeValue(v, p.Elem(), at); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		for _, name := range slices.Sorted(maps.Keys(m)) { // the first error found, whatever the map order
			f, ok := dst.Type().FieldByName(name)
			if !ok || !f.IsExported() || len(f.Index) != 1 {
				return fmt.Errorf("%s: %v has no field %q", at, dst.Type(), name)
			}
			if err := decodeValue(m[name], dst.Field(f.Index[0]), at+"."+name); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if s, ok := v.(string); ok && dst.Type().Elem().Kind() == reflect.Uint8 {
			dst.SetBytes(append(make([]byte, 0, len(s)), s...))
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			return bad()
		}
		out := reflect.MakeSlice(dst.Type(), len(a), len(a))
		for i, e := range a {
			if err := decodeValue(e, out.Index(i), at+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return bad()
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			e := reflect.New(dst.Type().Elem()).Elem()
			if err := decodeValue(m[k], e, at+"["+strconv.Quote(k)+"]"); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), e)
		}
		dst.Set(out)
	case reflect.String, reflect.Bool:
		rv := reflect.ValueOf(v)
		if _, isNumber := v.(json.Number); isNumber || rv.Kind() != dst.Kind() { // a json.Number is a string kind
			return bad()
		}
		dst.Set(rv.Convert(dst.Type()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		i, err := strconv.ParseInt(string(n), 10, 64)
		if !ok || err != nil || dst.OverflowInt(i) {
			return bad()
		}
		dst.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		u, err := strconv.ParseUint(string(n), 10, 64)
		if !ok || err != nil || dst.OverflowUint(u) {
			return bad()
		}
		dst.SetUint(u)
	default:
		return bad()
	}
	return nil
}

// deepCopy returns a copy of v that shares no memory with it, down to
// the bytes of raw JSON: v through the State's codec, without the text.
func deepCopy[T any](v T) T {
	var out T
	if err := decodeValue(encodeValue(reflect.ValueOf(v)), reflect.ValueOf(&out).Elem(), "copy"); err != nil {
		panic("agentloop: " + err.Error()) // the codec reads what it writes
	}
	return out
}
