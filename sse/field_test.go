package sse

import (
	"testing"
	"time"
)

func TestSplitField(t *testing.T) {
	for _, tt := range []struct {
		line, name, value string
	}{
		{"data: x", "data", "x"},
		{"data:x", "data", "x"},
		{"data:  x", "data", " x"},
		{"data:", "data", ""},
		{"data", "data", ""},
		{"event: a:b", "event", "a:b"},
		{"id:", "id", ""},
		{"x: ", "x", ""},
		{"dat: a", "dat", "a"},
		{"datas: a", "datas", "a"},
	} {
		name, value := splitField([]byte(tt.line))
		if string(name) != tt.name || string(value) != tt.value {
			t.Errorf("splitField(%q) = %q, %q; want %q, %q", tt.line, name, value, tt.name, tt.value)
		}
	}
}

func TestParseRetry(t *testing.T) {
	for _, tt := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"0", 0, true},
		{"1", time.Millisecond, true},
		{"3000", 3 * time.Second, true},
		{"9223372036853", 9223372036853 * time.Millisecond, true},
		{"9223372036854", 9223372036854 * time.Millisecond, true},
		{"9223372036855", time.Duration(maxRetryMillis) * time.Millisecond, true},
		{"99999999999999999999999999", time.Duration(maxRetryMillis) * time.Millisecond, true},
		{"", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
	} {
		got, ok := parseRetry([]byte(tt.in))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetry(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
