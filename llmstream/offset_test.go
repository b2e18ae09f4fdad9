package llmstream

import (
	"errors"
	"strings"
	"testing"
)

// TestEventErrorOffset: every dialect reports where an event stops being
// JSON as the same non-negative byte offset (it was -8 in three of them).
func TestEventErrorOffset(t *testing.T) {
	for _, tc := range []struct {
		data string
		at   int
	}{
		{`{"a":1 "b":2}`, 7},
		{`{"a":[1 2]}`, 8},
		{`{"a":{"b":1 "c":2}}`, 12},
	} {
		for d := DialectChat; d < dialectEnd; d++ {
			body := "data: " + tc.data + "\n\n"
			if d == DialectBedrock {
				body = string(bedrockFrames(t, []byte("event contentBlockDelta "+tc.data)))
			}
			_, err := ReadMessage(strings.NewReader(body), WithDialect(d))
			var ee *EventError
			if !errors.As(err, &ee) || ee.Offset != tc.at {
				t.Errorf("%v %s: %v (offset %v), want an EventError at %d", d, tc.data, err, ee, tc.at)
			}
		}
	}
}
