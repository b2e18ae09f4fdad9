package llmstream

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/sse"
)

// bedrockTextOfSize is a Bedrock body whose one text delta's payload is
// exactly n bytes.
func bedrockTextOfSize(t testing.TB, n int) []byte {
	t.Helper()
	head, tail := `{"contentBlockIndex":0,"delta":{"text":"`, `"}}`
	delta := head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	return bedrockFrames(t, []byte("event messageStart {}\nevent contentBlockDelta "+delta+
		"\nevent messageStop {\"stopReason\":\"end_turn\"}\nevent metadata {\"usage\":{}}\n"))
}

// TestBedrockEventSizeLimit: a frame's payload is an event's data, under
// the limit WithSSEOptions sets as every dialect's events are: at the
// limit, one below, one above; and the default limit likewise.
func TestBedrockEventSizeLimit(t *testing.T) {
	for _, limit := range []int{64 << 10, DefaultMaxEventSize} {
		var opts []BridgeOption
		if limit != DefaultMaxEventSize {
			opts = append(opts, WithSSEOptions(sse.WithMaxEventSize(limit)))
		}
		opts = append(opts, WithDialect(DialectBedrock))
		for _, size := range []int{limit - 1, limit, limit + 1} {
			t.Run(strconv.Itoa(limit)+"/"+strconv.Itoa(size), func(t *testing.T) {
				m, err := ReadMessage(bytes.NewReader(bedrockTextOfSize(t, size)), opts...)
				if size <= limit {
					if err != nil || !strings.HasPrefix(m.Content, "xxx") {
						t.Fatalf("err = %v, content of %d bytes; want it read", err, len(m.Content))
					}
					return
				}
				var se *sse.EventSizeError
				if !errors.Is(err, sse.ErrEventTooLarge) || !errors.As(err, &se) || se.Size != size || se.Max != limit {
					t.Fatalf("err = %v; want an *sse.EventSizeError of %d over %d", err, size, limit)
				}
				if m.Content != "" {
					t.Errorf("content %d bytes; want none", len(m.Content))
				}
			})
		}
	}
}

// TestBedrockEventSizeBound: a frame far past the limit is refused from
// its prelude, before its bytes are buffered: the body here ends right
// after the prelude, and the error is still the size, not a cut frame.
func TestBedrockEventSizeBound(t *testing.T) {
	const limit = 1 << 10
	body := bedrockTextOfSize(t, limit+bedrockFrameOverhead+1)
	var frames [][]byte
	for r := eventstream.NewReader(bytes.NewReader(body)); ; {
		m, err := r.Next()
		if err != nil {
			break
		}
		f, _ := eventstream.AppendFrame(nil, m)
		frames = append(frames, f)
	}
	cut := append(append([]byte{}, frames[0]...), frames[1][:12]...)
	_, err := ReadMessage(bytes.NewReader(cut), WithDialect(DialectBedrock), WithSSEOptions(sse.WithMaxEventSize(limit)))
	var se *sse.EventSizeError
	if !errors.As(err, &se) || se.Max != limit || se.Size <= limit || errors.Is(err, eventstream.ErrTruncated) {
		t.Fatalf("err = %v; want an *sse.EventSizeError over %d, from the prelude", err, limit)
	}
	// An invalid limit is the sse package's option error, as for SSE dialects.
	_, err = ReadMessage(bytes.NewReader(body), WithDialect(DialectBedrock), WithSSEOptions(sse.WithMaxEventSize(-1)))
	if !errors.Is(err, sse.ErrInvalidOption) {
		t.Fatalf("negative limit: err = %v; want sse.ErrInvalidOption", err)
	}
}

// TestBedrockEventSizeZero: sse.WithMaxEventSize(0) means the sse
// package's default, for Bedrock's frames as for SSE events.
func TestBedrockEventSizeZero(t *testing.T) {
	opts := []BridgeOption{WithDialect(DialectBedrock), WithSSEOptions(sse.WithMaxEventSize(0))}
	if _, err := ReadMessage(bytes.NewReader(bedrockTextOfSize(t, sse.DefaultMaxEventSize)), opts...); err != nil {
		t.Fatalf("at the default: %v", err)
	}
	_, err := ReadMessage(bytes.NewReader(bedrockTextOfSize(t, sse.DefaultMaxEventSize+1)), opts...)
	var se *sse.EventSizeError
	if !errors.As(err, &se) || se.Max != sse.DefaultMaxEventSize {
		t.Fatalf("one above the default: %v", err)
	}
}
