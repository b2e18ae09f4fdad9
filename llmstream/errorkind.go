package llmstream

import (
	"fmt"
	"strings"
)

// ErrorKind is what a provider's error means, the same for every dialect,
// so that callers (and agentloop) can treat all providers alike. The zero
// value, ErrorUnknown, is an error this package cannot place; the raw
// type and code are always in [APIError.Type] and [APIError.Code].
type ErrorKind uint8

const (
	// ErrorUnknown: the provider's error is of no known kind.
	ErrorUnknown ErrorKind = iota
	// ErrorRateLimited: too many requests or tokens for now (HTTP 429,
	// rate_limit_error, RESOURCE_EXHAUSTED). Retry later, honouring the
	// provider's wait.
	ErrorRateLimited
	// ErrorOverloaded: the provider is overloaded (HTTP 529 and 503,
	// overloaded_error, UNAVAILABLE). Retry later.
	ErrorOverloaded
	// ErrorAuthentication: the key is missing, wrong or revoked (HTTP
	// 401, authentication_error, UNAUTHENTICATED).
	ErrorAuthentication
	// ErrorPermission: the key may not do this, or the account has no
	// quota left (HTTP 403, permission_error, PERMISSION_DENIED,
	// insufficient_quota).
	ErrorPermission
	// ErrorInvalidRequest: the request is wrong (HTTP 400, 413, 422,
	// invalid_request_error, INVALID_ARGUMENT).
	ErrorInvalidRequest
	// ErrorContextLength: the conversation does not fit the model's
	// context window (context_length_exceeded, "prompt is too long").
	ErrorContextLength
	// ErrorNotFound: the model or endpoint does not exist (HTTP 404,
	// not_found_error, NOT_FOUND).
	ErrorNotFound
	// ErrorContentFiltered: the provider's content policy refused the
	// request or the answer (content_filter, content_policy_violation,
	// Gemini's safety blocks).
	ErrorContentFiltered
	// ErrorServer: the provider failed on its side (HTTP 500, 502, 504,
	// api_error, server_error, INTERNAL). Retry.
	ErrorServer
)

// String returns the kind's name ("rate_limited", "overloaded",
// "authentication", "permission", "invalid_request", "context_length",
// "not_found", "content_filtered", "server_error", "unknown").
func (k ErrorKind) String() string {
	switch k {
	case ErrorUnknown:
		return "unknown"
	case ErrorRateLimited:
		return "rate_limited"
	case ErrorOverloaded:
		return "overloaded"
	case ErrorAuthentication:
		return "authentication"
	case ErrorPermission:
		return "permission"
	case ErrorInvalidRequest:
		return "invalid_request"
	case ErrorContextLength:
		return "context_length"
	case ErrorNotFound:
		return "not_found"
	case ErrorContentFiltered:
		return "content_filtered"
	case ErrorServer:
		return "server_error"
	}
	return fmt.Sprintf("ErrorKind(%d)", uint8(k))
}

// classify sets e.Kind from its type, code, message and status: the
// provider's own words first, the status when they say nothing known or
// only that the request was bad.
func (e *APIError) classify() {
	for _, t := range []string{e.Code, e.Type} {
		if k := kindOf(t); k != ErrorUnknown {
			e.Kind = k
			break
		}
	}
	if e.Kind == ErrorUnknown || e.Kind == ErrorInvalidRequest {
		// Every provider reports a too-long prompt as a bad request;
		// the message tells it apart.
		msg := strings.ToLower(e.Message)
		for _, p := range [...]string{"context length", "context_length", "context window", "prompt is too long", "too many tokens", "input token count", "maximum context", "exceeds the maximum number of tokens"} {
			if strings.Contains(msg, p) {
				e.Kind = ErrorContextLength
				return
			}
		}
	}
	if e.Kind == ErrorInvalidRequest && (e.StatusCode == 401 || e.StatusCode == 404) {
		// OpenAI gives a missing key (401) and a wrong path (404) only the
		// generic invalid_request_error; the status says more.
		e.Kind = ErrorUnknown
	}
	if e.Kind != ErrorUnknown {
		return
	}
	switch s := e.StatusCode; {
	case s == 400 || s == 413 || s == 422:
		e.Kind = ErrorInvalidRequest
	case s == 401:
		e.Kind = ErrorAuthentication
	case s == 403:
		e.Kind = ErrorPermission
	case s == 404:
		e.Kind = ErrorNotFound
	case s == 429:
		e.Kind = ErrorRateLimited
	case s == 503 || s == 529:
		e.Kind = ErrorOverloaded
	case s >= 500 && s <= 599:
		e.Kind = ErrorServer
	}
}

// kindOf maps a provider's error type or code by every dialect's own
// vocabulary (each dialect file's errorKind), since a proxy or a
// compatible server may answer in another provider's words.
func kindOf(t string) ErrorKind {
	for d := DialectChat; d < dialectEnd; d++ {
		if v, ok := d.protocol().(errorVocabulary); ok {
			if k := v.errorKind(t); k != ErrorUnknown {
				return k
			}
		}
	}
	return ErrorUnknown
}

// errorVocabulary is a protocol that names the error types and codes its
// provider sends.
type errorVocabulary interface {
	errorKind(t string) ErrorKind
}
