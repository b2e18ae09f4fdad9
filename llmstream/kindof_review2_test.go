package llmstream_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/sse"
)

// prelude is an event-stream prelude announcing total and headers bytes,
// its CRC right, so the lengths are what the server meant.
func prelude(total, headers int) []byte {
	p := make([]byte, 12)
	binary.BigEndian.PutUint32(p[0:], uint32(total))
	binary.BigEndian.PutUint32(p[4:], uint32(headers))
	binary.BigEndian.PutUint32(p[8:], crc32.ChecksumIEEE(p[:8]))
	return p
}

// A Bedrock frame over the eventstream limits — headers over
// MaxHeadersSize, a frame over DefaultMaxFrameSize when the event limit
// allows more — ends the stream with an error KindOf names a limit, end to
// end through the decoder, not only for the bare sentinel; it was an
// ErrInterrupted (retryable), as a stream that broke in transit.
func TestKindOfBedrockFrameLimits_review2(t *testing.T) {
	for name, tc := range map[string]struct {
		data     []byte
		sentinel error
		opts     []llmstream.BridgeOption
	}{
		"headers": {prelude(eventstream.MaxHeadersSize+1+16, eventstream.MaxHeadersSize+1), eventstream.ErrHeadersTooLarge, nil},
		"frame": {prelude(eventstream.DefaultMaxFrameSize+1, 0), eventstream.ErrFrameTooLarge,
			[]llmstream.BridgeOption{llmstream.WithSSEOptions(sse.WithMaxEventSize(64 << 20))}},
	} {
		_, err := llmstream.ReadMessage(bytes.NewReader(tc.data), append(tc.opts, llmstream.WithDialect(llmstream.DialectBedrock))...)
		if !errors.Is(err, tc.sentinel) || errors.Is(err, llmstream.ErrInterrupted) || llmstream.KindOf(err) != llmstream.ErrorLimit {
			t.Errorf("%s: err %v, kind %v; want %v, not interrupted, a limit", name, err, llmstream.KindOf(err), tc.sentinel)
		}
	}
}
