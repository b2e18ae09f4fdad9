package transport

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryableStatus reports whether an answer with this status may be tried
// again: the server said "not now" (408 Request Timeout, 409 Conflict, 429
// Too Many Requests) or failed on its side (5xx).
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || (code >= 500 && code <= 599)
}

// retryableAnswer reports whether an answer with this status and header may
// be tried again: the server's own "x-should-retry" (sent by Anthropic and
// OpenAI) decides when present, "true" or "false"; else the status does.
func retryableAnswer(code int, h http.Header) bool {
	switch h.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return retryableStatus(code)
}

// retryableError reports whether an attempt that got no answer may be tried
// again. Only failures before the request could have reached the server
// qualify — a dial, a proxy connection, a TLS handshake that timed out —
// since anything later might have been processed. A host that does not exist
// and a certificate that does not verify will not change on a retry.
func retryableError(err error) bool {
	var te *TimeoutError
	if errors.As(err, &te) {
		return te.Limit == LimitConnect
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalid) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
}

// backoff returns the wait before retry n (1-based) when the server named
// none: uniform in [b/2, b] with b = initial×2^(n-1) capped at maxWait. The
// jitter spreads clients that failed together; the floor keeps the waits
// growing. rnd(k) must return a value in [0, k).
func backoff(n int, initial, maxWait time.Duration, rnd func(int64) int64) time.Duration {
	b := min(initial, maxWait)
	for i := 1; i < n && b < maxWait; i++ {
		if b > maxWait/2 {
			b = maxWait
			break
		}
		b *= 2
	}
	if b <= 0 {
		return 0
	}
	half := b / 2
	return half + time.Duration(rnd(int64(b-half)+1))
}

// retryAfter returns the wait the server asked for, and whether it asked:
// first the retry-after-ms header (milliseconds, as OpenAI sends), then
// Retry-After as delay seconds or an HTTP date (RFC 9110 §10.2.3), a date in
// the past meaning now. Values that are negative, not numbers or not dates
// are ignored, as if absent. Huge values saturate rather than wrap.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, ok := nonNegativeNumber(v); ok {
			return saturatingDuration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, ok := nonNegativeNumber(v); ok {
		return saturatingDuration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// retryInfoDelay returns the wait a JSON error body asks for, and whether
// it asks: the retryDelay of a google.rpc.RetryInfo entry in the error's
// details, as Gemini and other Google APIs send with a 429 —
//
//	{"error":{"code":429,...,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}
//
// (also as the one element of a JSON array, as streaming endpoints answer).
// The delay is a google.protobuf.Duration in JSON: decimal seconds ending
// in "s" ("7s", "0.250s"); any other value, or a body of another shape, is
// ignored, as if absent. Huge values saturate.
func retryInfoDelay(body []byte) (time.Duration, bool) {
	if !bytes.Contains(body, []byte("google.rpc.RetryInfo")) {
		return 0, false // the common case costs no decoding
	}
	type errorBody struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	var one errorBody
	if json.Unmarshal(body, &one) != nil {
		var list []errorBody
		if json.Unmarshal(body, &list) != nil || len(list) != 1 {
			return 0, false
		}
		one = list[0]
	}
	for _, d := range one.Error.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			continue
		}
		secs, ok := strings.CutSuffix(strings.TrimSpace(d.RetryDelay), "s")
		if !ok {
			return 0, false
		}
		if s, ok := nonNegativeNumber(secs); ok {
			return saturatingDuration(s * float64(time.Second)), true
		}
		return 0, false
	}
	return 0, false
}

// nonNegativeNumber parses a plain decimal number such as "2" or "1.5"; signs,
// exponents, hex, NaN and infinities are refused.
func nonNegativeNumber(s string) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789.") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func saturatingDuration(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
