package llmstreamtest

import (
	"encoding/json"
	"sort"
	"strconv"
)

// object is a JSON object whose members are written in the order they were
// added, so each flavour's chunks read like its provider's (encoding/json
// would sort a map's keys). Member values are encoded by encoding/json,
// which escapes strings correctly; nil is null.
type object []member

type member struct {
	key   string
	value any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) { return appendJSON(nil, o) }

// appendJSON appends v's JSON to b. Objects and arrays are walked here, so
// a chunk is encoded in one pass (encoding/json would re-scan the output of
// every nested MarshalJSON); strings and numbers go through encoding/json.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, m.key); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, m.value); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	}
	// Strings, raw JSON (checked by encoding/json here), usage, floats.
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// with returns o with one more member, leaving o itself unchanged.
// join returns o followed by the members of p.
func (o object) join(p object) object {
	return append(o[:len(o):len(o)], p...)
}

func (o object) with(key string, value any) object {
	return append(o[:len(o):len(o)], member{key, value})
}

// withExtra returns o with the members of extra, a JSON object already
// checked by [Call.check], added in key order.
func (o object) withExtra(extra json.RawMessage) object {
	if extra == nil {
		return o
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(extra, &members); err != nil {
		return o
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o = o.with(k, members[k])
	}
	return o
}

// pythonSpacing rewrites compact JSON the way Python's json.dumps writes
// it, with a space after every ':' and ',' outside strings (vLLM writes its
// in-stream errors so).
func pythonSpacing(compact []byte) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/4)
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}
