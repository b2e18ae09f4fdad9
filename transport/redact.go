package transport

import (
	"errors"

	"github.com/airlock-go/airlock/internal/redact"
)

// Redact returns err with each of secrets removed from its text: airlock's
// one redaction rule (the one a [Client] applies to its own errors),
// exported for code that holds a credential a Client cannot know and must
// return errors without it — a Doer that signs requests or fetches tokens
// (contrib/aws, contrib/google), a tool server started with secrets
// (contrib/mcp).
//
// Each secret is replaced by "REDACTED" wherever it appears: as is,
// JSON-escaped (with or without "/" written "\/"), URL-escaped, with any of
// its characters written as a JSON \uXXXX or a URL %XX escape, and, for an
// Authorization value such as "Bearer <token>", the token alone. A secret
// under 8 bytes (after trimming spaces) is left alone: it cannot be told
// from ordinary text.
//
// When the text holds no secret, err itself is returned, and a nil err is
// nil. Otherwise the result's text is the cleaned one, and [errors.Is]
// still sees err's chain (a cancelled context stays [context.Canceled]),
// but nothing hands out the errors in it, whose text shows the secrets:
// the result has no Unwrap, and [errors.As] finds none of them.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := redact.New(secrets...).String(text)
	if clean == text {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// redactedError is an error whose text had secrets removed. It has no
// Unwrap: the errors of its chain may show them.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether target is in the chain of the original error.
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }
