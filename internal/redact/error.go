package redact

import (
	"net/url"
	"strings"
)

// Error returns err with no secret in its text. Every *url.Error in its
// chain is cleaned where it stands, since net/http prints the whole
// request URL in one, and inside one the text of a proxy address it cannot
// use (HTTPS_PROXY with a typo), password included: its URL is redacted by
// [URL] and its cause's text by [Userinfo]. Then every value of s in the
// text is replaced by [Mask].
// The chain is kept, so errors.Is and errors.As still reach every cause;
// when the text changes, err is wrapped in an error whose text is the
// cleaned one. A nil err is nil.
func Error(err error, s *Set) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	var swaps []string // old, new text of each url.Error cleaned
	cleanURLErrors(err, 0, &swaps)
	cleaned := text
	if len(swaps) > 0 {
		// An error that wrapped one with fmt.Errorf printed its text then.
		cleaned = strings.NewReplacer(swaps...).Replace(text)
	}
	cleaned = s.String(cleaned)
	if cleaned == text {
		return err
	}
	return &cleanError{msg: cleaned, err: err}
}

// maxChainDepth bounds the walk of an error chain, which a cycle of the
// caller's would make endless.
const maxChainDepth = 64

// cleanURLErrors cleans every *url.Error in the chain of err in place and
// appends its text before and after to swaps. It writes only what
// changes, so an error cleaned before (by the transport, then by
// llmstream), or one without a secret that a Doer hands every goroutine,
// is only read.
func cleanURLErrors(err error, depth int, swaps *[]string) {
	if err == nil || depth > maxChainDepth {
		return
	}
	if ue, ok := err.(*url.Error); ok {
		before := ue.Error()
		if u := URL(ue.URL); u != ue.URL {
			ue.URL = u
		}
		if ue.Err != nil {
			if text := ue.Err.Error(); Userinfo(text) != text {
				ue.Err = &cleanError{msg: Userinfo(text), err: ue.Err}
			}
		}
		if after := ue.Error(); after != before {
			*swaps = append(*swaps, before, after)
		}
	}
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		cleanURLErrors(e.Unwrap(), depth+1, swaps)
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			cleanURLErrors(inner, depth+1, swaps)
		}
	}
}

// cleanError is an error whose text has been cleaned of secrets while its
// cause stays reachable through Unwrap.
type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }
