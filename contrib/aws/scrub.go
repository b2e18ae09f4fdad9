package aws

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
)

// scrub returns err with every secret removed from its text, raw, JSON- or
// URL-escaped. errors.Is still sees err's chain (a cancelled context stays
// context.Canceled), but nothing hands out the errors in it, whose text
// may hold the secrets: the result has no Unwrap and no As. Secrets
// under 8 bytes are left alone: they cannot be told from ordinary text.
func scrub(err error, secrets []string) error {
	msg := err.Error()
	clean := msg
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		j, _ := json.Marshal(s)
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), string(j[1 : len(j)-1]), strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`)} {
			clean = strings.ReplaceAll(clean, form, "[REDACTED]")
		}
	}
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrubbedError is an error whose text had credentials removed.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is reports whether target is in the chain of the original error.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }
