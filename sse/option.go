package sse

import (
	"fmt"
	"strconv"
)

// DefaultMaxEventSize is the limit, in bytes, on a pending line plus the
// pending event's data when no [WithMaxEventSize] option is given: 256 KiB.
const DefaultMaxEventSize = 256 << 10

// DefaultDoneSentinel is the data that ends a stream when no
// [WithDoneSentinel] option is given: OpenAI-compatible servers send it as
// their last event.
const DefaultDoneSentinel = "[DONE]"

// Option configures a [Reader] or a [Parser]. The set of options is closed:
// only the With functions of this package make them. Each prints as the call
// that made it, so options can be compared and logged. A nil Option is ignored.
type Option interface {
	String() string
	// apply sets its value in c, or reports why it cannot.
	apply(c *config) error
}

// config is what the options set. The constructors take their own copy.
type config struct {
	max      int
	sentinel string
	unknown  func(name string, value []byte) error
}

// newConfig applies opts to the defaults. It returns the first invalid
// option's error too, which the first call of a Reader or Parser reports.
func newConfig(opts []Option) (config, error) {
	c := config{max: DefaultMaxEventSize, sentinel: DefaultDoneSentinel}
	var err error
	for _, o := range opts {
		if o == nil {
			continue
		}
		if e := o.apply(&c); e != nil && err == nil {
			err = e
		}
	}
	return c, err
}

type maxEventSize int

// WithMaxEventSize limits, in bytes, what one pending event may hold: the
// line being read plus the data of the event being built (its "data" values
// joined by "\n"). Line ends, and a stream's leading BOM, do not count. A
// single-line event therefore needs n ≥ len("data: ") + len(data). The limit
// is per event: it starts again after each dispatch.
//
// The default is [DefaultMaxEventSize]; 0 means the default. A negative n is
// invalid: the first [Reader.Next] or [Parser.Feed] fails with an
// [*OptionError] (errors.Is [ErrInvalidOption]). Buffers grow on demand, so a
// large n costs nothing until an event needs it.
//
// The check does not depend on how the input is split into reads: past the
// limit, the stream ends with an [*EventSizeError] (errors.Is
// [ErrEventTooLarge]) after every event that was complete before the
// offending line, and nothing of or after that line is delivered.
func WithMaxEventSize(n int) Option { return maxEventSize(n) }

func (o maxEventSize) apply(c *config) error {
	switch {
	case o == 0:
		c.max = DefaultMaxEventSize
	case o < 0:
		return &OptionError{Option: o.String(), Reason: "the size must not be negative"}
	default:
		c.max = int(o)
	}
	return nil
}

func (o maxEventSize) String() string {
	return "sse.WithMaxEventSize(" + strconv.Itoa(int(o)) + ")"
}

type doneSentinel string

// WithDoneSentinel sets the data that ends the stream. An event whose data is
// exactly s (byte for byte; its type does not matter) is not delivered;
// instead the stream ends: [Reader.Next] returns io.EOF and [Reader.Done]
// reports true, and no byte after that event is parsed. The default is
// [DefaultDoneSentinel], "[DONE]"; "" turns the sentinel off.
func WithDoneSentinel(s string) Option { return doneSentinel(s) }

func (o doneSentinel) apply(c *config) error {
	c.sentinel = string(o)
	return nil
}

func (o doneSentinel) String() string {
	return "sse.WithDoneSentinel(" + strconv.Quote(string(o)) + ")"
}

type unknownField struct {
	fn func(name string, value []byte) error
}

// WithUnknownField asks to be told of fields the standard ignores. For each
// line whose field name is not "data", "event", "id" or "retry" (comments,
// lines starting with ":", excluded), fn is called with the field name and
// its value, after the one leading space is removed and invalid UTF-8 is
// replaced. value is valid only during the call. fn runs on the goroutine
// that called [Reader.Next] or [Parser.Feed], when the line is read.
//
// A non-nil error from fn ends the stream: Next or Feed returns that error,
// unwrapped, now and on every later call. Off by default; a nil fn turns it
// off. llama.cpp reports a mid-stream failure as an "error: {...}" line,
// which this is the way to see.
func WithUnknownField(fn func(name string, value []byte) error) Option {
	return unknownField{fn: fn}
}

func (o unknownField) apply(c *config) error {
	c.unknown = o.fn
	return nil
}

func (o unknownField) String() string {
	if o.fn == nil {
		return "sse.WithUnknownField(nil)"
	}
	return fmt.Sprintf("sse.WithUnknownField(%p)", o.fn)
}
