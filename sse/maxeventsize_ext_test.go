package sse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
)

// MaxEventSize is the limit the Reader applies: the default, the last
// valid setting, 0 as the default, and an invalid setting left out.
func TestReaderMaxEventSize(t *testing.T) {
	tests := []struct {
		name string
		opts []sse.Option
		want int
		bad  bool
	}{
		{"default", nil, sse.DefaultMaxEventSize, false},
		{"set", []sse.Option{sse.WithMaxEventSize(10)}, 10, false},
		{"last wins", []sse.Option{sse.WithMaxEventSize(10), sse.WithMaxEventSize(20)}, 20, false},
		{"zero is the default", []sse.Option{sse.WithMaxEventSize(10), sse.WithMaxEventSize(0)}, sse.DefaultMaxEventSize, false},
		{"negative left out", []sse.Option{sse.WithMaxEventSize(10), sse.WithMaxEventSize(-1)}, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sse.NewReader(strings.NewReader("data: x\n\n"), tt.opts...)
			if got := r.MaxEventSize(); got != tt.want {
				t.Errorf("MaxEventSize() = %d, want %d", got, tt.want)
			}
			_, err := r.Next()
			if got := errors.Is(err, sse.ErrInvalidOption); got != tt.bad {
				t.Errorf("Next() error %v, invalid option = %v, want %v", err, got, tt.bad)
			}
		})
	}
}
