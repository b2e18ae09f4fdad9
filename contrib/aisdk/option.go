package aisdk

import (
	"fmt"
	"time"
)

// The defaults of a [Handler].
const (
	// DefaultMaxBodyBytes is the largest POST body read: 4 MiB.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxRuns is how many runs may go on at once.
	DefaultMaxRuns = 1024
	// DefaultKeepAlive is how long a stream may be idle before a
	// keep-alive comment is sent.
	DefaultKeepAlive = 15 * time.Second
)

// Option configures a [Handler]. Only this package's With functions make
// them; each prints as the call that made it. A nil Option is ignored.
type Option interface {
	String() string
	apply(c *config) error
}

type config struct {
	store     Store
	maxBody   int64
	maxRuns   int
	keepAlive time.Duration
	system    string
	errText   func(error) string
}

func newConfig(opts []Option) (config, error) {
	c := config{maxBody: DefaultMaxBodyBytes, maxRuns: DefaultMaxRuns, keepAlive: DefaultKeepAlive,
		errText: func(err error) string { return err.Error() }}
	var first error
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(&c); err != nil && first == nil {
			first = err
		}
	}
	if c.store == nil {
		c.store = NewMemoryStore(0, 0)
	}
	return c, first
}

type storeOption struct{ s Store }

// WithStore keeps chats and streams in s; the default is a
// [NewMemoryStore](0, 0). A nil Store is an error.
func WithStore(s Store) Option { return storeOption{s} }

func (o storeOption) apply(c *config) error {
	if o.s == nil {
		return &OptionError{Option: o.String(), Reason: "the Store is nil"}
	}
	c.store = o.s
	return nil
}
func (o storeOption) String() string { return fmt.Sprintf("aisdk.WithStore(%T)", o.s) }

type maxBodyOption int64

// WithMaxBodyBytes sets the largest POST body read, in bytes (default
// [DefaultMaxBodyBytes], also for 0); a larger one is answered 413 and
// nothing runs. A negative n is an [*OptionError].
func WithMaxBodyBytes(n int64) Option { return maxBodyOption(n) }

func (o maxBodyOption) apply(c *config) error {
	switch {
	case o < 0:
		return &OptionError{Option: o.String(), Reason: "must not be negative"}
	case o > 0:
		c.maxBody = int64(o)
	}
	return nil
}
func (o maxBodyOption) String() string { return fmt.Sprintf("aisdk.WithMaxBodyBytes(%d)", int64(o)) }

type maxRunsOption int

// WithMaxRuns sets how many runs may go on at once, over all chats
// (default [DefaultMaxRuns]); a POST past it is answered 503 and nothing
// runs. 0 means the default; a negative n is an [*OptionError].
func WithMaxRuns(n int) Option { return maxRunsOption(n) }

func (o maxRunsOption) apply(c *config) error {
	switch {
	case o < 0:
		return &OptionError{Option: o.String(), Reason: "must not be negative"}
	case o > 0:
		c.maxRuns = int(o)
	}
	return nil
}
func (o maxRunsOption) String() string { return fmt.Sprintf("aisdk.WithMaxRuns(%d)", int(o)) }

type keepAliveOption time.Duration

// WithKeepAlive sets how long a stream may be idle before a keep-alive
// comment is written (default [DefaultKeepAlive], also for 0). A negative
// d is an [*OptionError].
func WithKeepAlive(d time.Duration) Option { return keepAliveOption(d) }

func (o keepAliveOption) apply(c *config) error {
	switch {
	case o < 0:
		return &OptionError{Option: o.String(), Reason: "must not be negative"}
	case o > 0:
		c.keepAlive = time.Duration(o)
	}
	return nil
}
func (o keepAliveOption) String() string {
	return fmt.Sprintf("aisdk.WithKeepAlive(%v)", time.Duration(o))
}

type systemOption string

// WithSystemPrompt begins every new chat's conversation with a system
// message holding s. The browser never sees it, and a posted system
// message is refused.
func WithSystemPrompt(s string) Option { return systemOption(s) }

func (o systemOption) apply(c *config) error { c.system = string(o); return nil }
func (o systemOption) String() string        { return fmt.Sprintf("aisdk.WithSystemPrompt(%q)", string(o)) }

type errTextOption func(error) string

// WithErrorText sets how a run's error becomes the text of the stream's
// error chunk, which the browser shows; the default is err.Error(), which
// carries no credential (airlock's errors are redacted) but may name
// tools, limits and the provider's message. nil is an error.
func WithErrorText(f func(error) string) Option { return errTextOption(f) }

func (o errTextOption) apply(c *config) error {
	if o == nil {
		return &OptionError{Option: o.String(), Reason: "the function is nil"}
	}
	c.errText = o
	return nil
}
func (o errTextOption) String() string { return "aisdk.WithErrorText(func)" }
