package temporal

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// leaks reports whether blob holds key raw or base64-encoded (standard or
// URL alphabet, padded or not, at any alignment): a proto's bytes carry
// payloads raw, its JSON carries them as base64.
func leaks(blob []byte, key string) bool {
	if bytes.Contains(blob, []byte(key)) {
		return true
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		for pad := range 3 {
			s := enc.EncodeToString(append(make([]byte, pad), key...))
			// Drop the characters that mix in the padding bytes before and
			// the bytes after the key.
			core := s[(pad*8+5)/6+1 : len(s)-4]
			if bytes.Contains(blob, []byte(core)) {
				return true
			}
		}
	}
	return false
}

func TestLeaks(t *testing.T) {
	for pad := range 3 {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			blob := []byte(`{"data":"` + enc.EncodeToString(append(bytes.Repeat([]byte("x"), pad), `{"key":"`+testKey+`"}`...)) + `"}`)
			if !leaks(blob, testKey) {
				t.Errorf("the key base64-encoded after %d bytes is not found in %s", pad, blob)
			}
		}
	}
	if !leaks([]byte("a "+testKey+" b"), testKey) {
		t.Error("the raw key is not found")
	}
	if leaks([]byte("sk-airlock-test-key-0123456789abcdeX"[:30]), testKey) {
		t.Error("a prefix of the key is taken for the key")
	}
}
