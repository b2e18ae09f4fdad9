package toolcall

import "strconv"

// DefaultMaxCalls is the number of distinct calls an [Assembler] holds unless
// [WithMaxCalls] says otherwise.
const DefaultMaxCalls = 32

// DefaultMaxArgumentBytes is the size in bytes of the arguments one call may
// accumulate unless [WithMaxArgumentBytes] says otherwise: 1 MiB.
const DefaultMaxArgumentBytes = 1 << 20

// An Option configures an [Assembler]. The set is sealed: only this package
// makes options. Options are comparable values, and String shows them as the
// call that made them, e.g. "toolcall.WithMaxCalls(8)".
type Option interface {
	String() string
	apply(*config)
}

// config is what the options set; NewAssembler starts from the defaults.
type config struct {
	maxCalls    int // < 0: no limit; 0: the default
	maxArgBytes int // < 0: no limit; 0: the default
	strictIndex bool
}

// WithMaxCalls limits the number of distinct calls one [Assembler] holds
// between Resets to n; the default is [DefaultMaxCalls]. A call that would
// be the (n+1)th is refused by [Assembler.Add] with a [*LimitError] wrapping
// [ErrTooManyCalls]; exactly n calls are allowed, and calls already held keep
// accepting fragments. n == 0 means the default; n < 0 means no limit short
// of 2^30 calls ([MaxIndex]+1, which a larger n means too), and lets an
// untrusted stream grow memory nearly without bound.
func WithMaxCalls(n int) Option { return maxCallsOption(n) }

type maxCallsOption int

func (o maxCallsOption) apply(c *config) {
	switch {
	case o > 0:
		c.maxCalls = int(o)
	case o < 0:
		c.maxCalls = -1
	}
}

func (o maxCallsOption) String() string {
	return "toolcall.WithMaxCalls(" + strconv.Itoa(int(o)) + ")"
}

// WithMaxArgumentBytes limits the arguments of each call to n bytes (the sum
// of the Arguments of all fragments merged into it); the default is
// [DefaultMaxArgumentBytes]. The fragment that would take a call past n is
// refused whole by [Assembler.Add] with a [*LimitError] wrapping
// [ErrArgumentsTooLarge]; exactly n bytes are allowed. The scope is one call,
// not the stream. n == 0 means the default; n < 0 means no limit, which lets
// an untrusted stream grow memory without bound.
func WithMaxArgumentBytes(n int) Option { return maxArgumentBytesOption(n) }

type maxArgumentBytesOption int

func (o maxArgumentBytesOption) apply(c *config) {
	switch {
	case o > 0:
		c.maxArgBytes = int(o)
	case o < 0:
		c.maxArgBytes = -1
	}
}

func (o maxArgumentBytesOption) String() string {
	return "toolcall.WithMaxArgumentBytes(" + strconv.Itoa(int(o)) + ")"
}

// WithStrictIndex makes [Assembler.Add] ignore every fragment marked
// [Fragment.NoIndex] (it returns nil and [Assembler.LastIndex] reports -1).
// That strict policy loses every call of providers that send no index,
// such as Gemini's OpenAI-compatible endpoint. Without it, index-less fragments are placed as
// the package documentation describes.
func WithStrictIndex() Option { return strictIndexOption{} }

type strictIndexOption struct{}

func (strictIndexOption) apply(c *config) { c.strictIndex = true }

func (strictIndexOption) String() string { return "toolcall.WithStrictIndex()" }

// callCap bounds every call limit, so that the positions and indexes the
// assembler keeps as int32 cannot overflow: an index it hands out is at
// most MaxIndex plus the calls held. A variable only so that a test can
// reach it.
var callCap = MaxIndex + 1

// callLimit is the call limit in effect.
func (c *config) callLimit() int {
	switch {
	case c.maxCalls == 0:
		return DefaultMaxCalls
	case c.maxCalls < 0:
		return callCap
	}
	return min(c.maxCalls, callCap)
}

// argLimit is the argument-bytes limit in effect, -1 for none.
func (c *config) argLimit() int {
	if c.maxArgBytes == 0 {
		return DefaultMaxArgumentBytes
	}
	return c.maxArgBytes
}
