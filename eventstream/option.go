package eventstream

import "strconv"

// DefaultMaxFrameSize is the limit, in bytes, on one frame's total length
// when no [WithMaxFrameSize] option is given: 16 MiB, the limit AWS's own
// event-stream libraries apply.
const DefaultMaxFrameSize = 16 << 20

// MaxHeadersSize is the limit, in bytes, on one frame's headers section, as
// its prelude states it: 128 KiB, the limit AWS's own event-stream encoders
// and decoders apply. It is fixed, not an option: it bounds the work and
// memory one frame may cost whatever its total size (each header decoded
// takes a slot in the Message, so a frame of dense three-byte headers
// would otherwise cost many times its bytes). A frame whose headers
// section is longer fails with a [*FrameError] (errors.Is
// [ErrHeadersTooLarge]) as soon as its prelude has arrived; [AppendFrame]
// refuses to write one.
const MaxHeadersSize = 128 << 10

// minFrameSize is the size of a frame with no headers and no payload: the
// prelude, its CRC and the message CRC.
const minFrameSize = 16

// Option configures a [Reader] or a [Parser]. The set of options is closed:
// only the With functions of this package make them. Each prints as the
// call that made it. A nil Option is ignored.
type Option interface {
	String() string
	// apply sets its value in c, or reports why it cannot.
	apply(c *config) error
}

// config is what the options set. The constructors take their own copy.
type config struct {
	max int
}

// newConfig applies opts to the defaults. It returns the first invalid
// option's error too, which the first call of a Reader or Parser reports.
func newConfig(opts []Option) (config, error) {
	c := config{max: DefaultMaxFrameSize}
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

type maxFrameSize int

// WithMaxFrameSize limits, in bytes, one frame's total length: the prelude,
// headers, payload and both CRCs, as the frame's first four bytes state it.
// The limit is per frame, and it bounds the memory a Reader or Parser holds:
// a frame is buffered whole, never more than one at a time.
//
// The default is [DefaultMaxFrameSize]; 0 means the default. A value under
// 16 (the smallest frame) is invalid: the first [Reader.Next] or
// [Parser.Feed] fails with an [*OptionError] (errors.Is [ErrInvalidOption]).
//
// A frame over the limit ends the stream with a [*FrameSizeError] (errors.Is
// [ErrFrameTooLarge]) as soon as its 12-byte prelude has arrived, whatever
// the split of the input, after every frame before it was delivered.
func WithMaxFrameSize(n int) Option { return maxFrameSize(n) }

func (o maxFrameSize) apply(c *config) error {
	switch {
	case o == 0:
		c.max = DefaultMaxFrameSize
	case o < minFrameSize:
		return &OptionError{Option: o.String(), Reason: "the size must be at least 16 bytes, the smallest frame"}
	default:
		c.max = int(o)
	}
	return nil
}

func (o maxFrameSize) String() string {
	return "eventstream.WithMaxFrameSize(" + strconv.Itoa(int(o)) + ")"
}
