package llmstream

import (
	"strconv"
	"time"
)

// Attempt is one request a [Failover] made, as its OnAttempt sees it. Its
// fields may grow; read them, do not compare whole Attempts.
type Attempt struct {
	// Number counts the call's attempts from 1.
	Number int
	// Model is the position in Failover.Models of the model tried.
	Model int
	// Name is the model's name as the request was sent: Request.Model, else
	// a [*Client]'s default; empty when neither says.
	Name string
	// Dialect is the model's dialect, 0 when the Streamer does not say.
	Dialect Dialect
	// Continued says the attempt continued the text of the one before it
	// (its request ended with that text as the assistant's message).
	Continued bool
	// Err is how the attempt failed, nil for the one that answered; when
	// the caller's OnDelta refused what the Failover sent after it (a seam,
	// text held at a splice), the call's error, and Next is AttemptGiveUp.
	Err error
	// Next is what the Failover did after it.
	Next AttemptNext
	// Wait is how long the Failover waited before the next attempt.
	Wait time.Duration
	// Usage is what the provider reported for the attempt, nil for none.
	Usage *Usage
}

// AttemptNext is what a [Failover] did after an [Attempt]. The zero value
// means unset.
type AttemptNext uint8

const (
	// AttemptAnswered: the attempt answered; the call returns its message.
	AttemptAnswered AttemptNext = iota + 1
	// AttemptContinue: the next attempt continues the text shown so far.
	AttemptContinue
	// AttemptRestart: the next attempt starts the response over (what was
	// shown, if anything, is void).
	AttemptRestart
	// AttemptGiveUp: no attempt follows; the call returns the error.
	AttemptGiveUp
)

// String returns the name ("answered", "continue", "restart", "give_up").
func (n AttemptNext) String() string {
	switch n {
	case 0:
		return "unset"
	case AttemptAnswered:
		return "answered"
	case AttemptContinue:
		return "continue"
	case AttemptRestart:
		return "restart"
	case AttemptGiveUp:
		return "give_up"
	}
	return "AttemptNext(" + strconv.Itoa(int(n)) + ")"
}
