package aisdk

import (
	"errors"
	"net/http"
)

// ErrInvalidOption reports an option value that cannot be used. NewHandler
// does not fail: every request is then answered 500 with the option's
// error, which unwraps to it.
var ErrInvalidOption = errors.New("aisdk: invalid option")

// refusal is a refused request: the status it is answered with and why.
// The reason is the response body, so it says what was wrong without
// echoing the request.
type refusal struct {
	status int
	reason string
}

func refuse(status int, reason string) *refusal {
	return &refusal{status: status, reason: reason}
}

func fail(w http.ResponseWriter, r *refusal) {
	http.Error(w, r.reason, r.status)
}
