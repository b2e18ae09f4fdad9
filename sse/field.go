package sse

import (
	"bytes"
	"math"
	"time"
)

// Fields (WHATWG HTML §9.2.6, "Interpreting an event stream"): a line that
// starts with ':' is a comment; otherwise the field name runs to the first
// ':' (or the whole line), and one U+0020 after that colon is dropped from the
// value. Names are compared byte for byte: "Data" is an unknown field.

// splitField splits a non-empty line that is not a comment into its field
// name and value.
func splitField(line []byte) (name, value []byte) {
	// The OpenAI-shaped streams this package is tuned for are nearly all
	// "data:" lines; recognise them without searching for the colon.
	if len(line) >= 5 && string(line[:5]) == "data:" {
		name, value = line[:4], line[5:]
	} else if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
	} else {
		return line, nil
	}
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return name, value
}

// maxRetryMillis is the largest reconnection time a time.Duration holds.
const maxRetryMillis = math.MaxInt64 / int64(time.Millisecond)

// parseRetry interprets a "retry" value: only one or more ASCII digits, a
// base-ten count of milliseconds. Anything else (a sign, a space, a dot, an
// empty value) is ignored, reported by ok false. A value too large for a
// time.Duration is clamped to the largest whole number of milliseconds that
// fits, which is still about 292 years.
func parseRetry(v []byte) (d time.Duration, ok bool) {
	if len(v) == 0 {
		return 0, false
	}
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxRetryMillis {
			ms = ms*10 + int64(c-'0')
		}
	}
	ms = min(ms, maxRetryMillis)
	return time.Duration(ms) * time.Millisecond, true
}
