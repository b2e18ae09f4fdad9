package llmstream

import (
	"fmt"

	"github.com/airlock-go/airlock/sse"
)

// This file holds what the decoders of JSON events share (each dialect's
// own decoding is in its dialect_X.go).

// readEvent walks ev's data, one JSON object, into d with fn, which records
// the members t reads; every value is validated on the way. A failure
// fails b with an [*EventError] at its offset, and nothing is applied.
func readEvent[T any](b *Bridge, d *doc, t T, ev *sse.Event, fn memberFunc[T]) error {
	d.validUTF8 = b.validUTF8
	if at, err := walkEvent(d, t, ev.Data, fn); err != nil {
		return b.fail(b.eventError(ev.Data, at, err))
	}
	return nil
}

// outOfOrder fails b with ev, the event that broke the dialect's sequence,
// at offset at: an [*EventError] matching [ErrOutOfOrder].
func (b *Bridge) outOfOrder(ev *sse.Event, at int, why string) error {
	return b.fail(b.eventError(ev.Data, at, fmt.Errorf("%w: %s", ErrOutOfOrder, why)))
}
