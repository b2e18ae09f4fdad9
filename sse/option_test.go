package sse

import (
	"strings"
	"testing"
)

func TestOptionString(t *testing.T) {
	for _, tt := range []struct {
		opt  Option
		want string
	}{
		{WithMaxEventSize(1024), "sse.WithMaxEventSize(1024)"},
		{WithMaxEventSize(0), "sse.WithMaxEventSize(0)"},
		{WithDoneSentinel("[DONE]"), `sse.WithDoneSentinel("[DONE]")`},
		{WithDoneSentinel(""), `sse.WithDoneSentinel("")`},
		{WithUnknownField(nil), "sse.WithUnknownField(nil)"},
	} {
		if got := tt.opt.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	if got := WithUnknownField(func(string, []byte) error { return nil }).String(); !strings.HasPrefix(got, "sse.WithUnknownField(0x") {
		t.Errorf("String() = %q, want sse.WithUnknownField(0x...)", got)
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		name         string
		opts         []Option
		wantMax      int
		wantSentinel string
		wantErr      bool
	}{
		{"defaults", nil, DefaultMaxEventSize, DefaultDoneSentinel, false},
		{"nil option ignored", []Option{nil}, DefaultMaxEventSize, DefaultDoneSentinel, false},
		{"zero means the default", []Option{WithMaxEventSize(7), WithMaxEventSize(0)}, DefaultMaxEventSize, DefaultDoneSentinel, false},
		{"the last one wins", []Option{WithMaxEventSize(7), WithMaxEventSize(9)}, 9, DefaultDoneSentinel, false},
		{"one byte", []Option{WithMaxEventSize(1)}, 1, DefaultDoneSentinel, false},
		{"negative is invalid", []Option{WithMaxEventSize(-1)}, DefaultMaxEventSize, DefaultDoneSentinel, true},
		{"sentinel off", []Option{WithDoneSentinel("")}, DefaultMaxEventSize, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newConfig(tt.opts)
			if c.max != tt.wantMax || c.sentinel != tt.wantSentinel || (err != nil) != tt.wantErr {
				t.Errorf("config = max %d, sentinel %q, err %v; want %d, %q, error %v", c.max, c.sentinel, err, tt.wantMax, tt.wantSentinel, tt.wantErr)
			}
		})
	}
}
