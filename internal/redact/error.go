package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Error returns err with no secret in its text: the URL of a *url.Error in
// its chain (net/http prints the whole request URL) redacted by [URL], and
// every value of s replaced by [Mask].
// The chain is kept, so errors.Is and errors.As still reach every cause;
// when the text changes, err is wrapped in an error whose text is the
// cleaned one. A nil err is nil.
func Error(err error, s *Set) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue == err {
			err = &url.Error{Op: ue.Op, URL: URL(ue.URL), Err: ue.Err}
			ue = nil
		}
	}
	text := err.Error()
	clean := text
	if ue != nil {
		// The url.Error sits deeper in a chain we did not build: print its
		// redacted form where it appears.
		safe := (&url.Error{Op: ue.Op, URL: URL(ue.URL), Err: ue.Err}).Error()
		clean = strings.ReplaceAll(clean, ue.Error(), safe)
	}
	clean = s.String(clean)
	if clean == text {
		return err
	}
	return &cleanError{msg: clean, err: err}
}

// cleanError is an error whose text has been cleaned of secrets while its
// cause stays reachable through Unwrap.
type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }

// Rewrite returns an error whose text is text and whose cause, for
// errors.Is and errors.As, is err: for a text cleaned some other way, such
// as by [Userinfo].
func Rewrite(err error, text string) error { return &cleanError{msg: text, err: err} }
