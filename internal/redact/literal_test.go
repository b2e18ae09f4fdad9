package redact

import "testing"

// TestSetAfterLiteral: a secret echoed with an escape inside, right after
// a '%' or '\' that is the text's own, is found although the reading left
// to right takes the escape character and the secret's first bytes for an
// escape; and a cut there drops the secret's start.
func TestSetAfterLiteral(t *testing.T) {
	const key = "abcd-live-0123456789"
	s := New(key)
	for _, tc := range []struct{ text, want string }{
		{"100%abcd%2Dlive-0123456789 off", "100%REDACTED off"},
		{"100%abcd%2dlive%2D0123456789", "100%REDACTED"},
		{`C:\abcd\u002Dlive-0123456789`, `C:\REDACTED`},
		{`C:\\u0061bcd-live-0123456789`, `C:\REDACTED`},
		{"%%abcd%2Dlive-0123456789", "%%REDACTED"},
	} {
		if got := s.String(tc.text); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct{ text, want string }{
		// A '%' or '' just before the cut may begin an escape of the
		// secret's first byte: it goes too.
		{"100%ab", "100"},
		{"100%abcd%2", "100"},
		{"100%abcd%2Dli", "100"},
		{"100%a", "100"},
		{"100%", "100"},
		{`C:\abcd\u00`, `C:`},
		{"100%ff", "100%ff"}, // no secret begins "ff"
	} {
		if got := string(s.Head([]byte(tc.text))); got != tc.want {
			t.Errorf("Head(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
