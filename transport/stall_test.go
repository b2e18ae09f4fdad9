package transport

import (
	"testing"
	"time"
)

// tickStep is what happens during one tick of a stall watch: whether the
// caller was in Read, and how many bytes arrived.
type tickStep struct {
	reading bool
	bytes   int
}

func TestStallWatch(t *testing.T) {
	idle := tickStep{}
	silent := tickStep{reading: true}
	one := tickStep{reading: true, bytes: 1}
	// A window of 10 s at 1 B/s needs 10 bytes over the last 10 ticks.
	repeat := func(s tickStep, n int) []tickStep {
		out := make([]tickStep, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	concat := func(parts ...[]tickStep) []tickStep {
		var out []tickStep
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name      string
		steps     []tickStep
		wantStall int // 1-based tick at which the rule breaks; 0 for never
		wantBytes int64
	}{
		{"caller away the whole time", repeat(idle, 30), 0, 0},
		{"waiting and silent: breaks at a full window", repeat(silent, 30), 10, 0},
		{"one tick short of a window", repeat(silent, 9), 0, 0},
		{"exactly the floor", repeat(one, 30), 0, 0},
		{"one byte under the floor", concat(repeat(one, 9), []tickStep{silent}), 10, 9},
		{"a burst then silence", concat([]tickStep{{reading: true, bytes: 10}}, repeat(silent, 20)), 11, 0},
		{"a burst covers its window", concat([]tickStep{{reading: true, bytes: 10}}, repeat(silent, 9)), 0, 0},
		{"an idle tick restarts the window", concat(repeat(silent, 9), []tickStep{idle}, repeat(silent, 9)), 0, 0},
		{"after an idle tick a full window breaks", concat(repeat(silent, 9), []tickStep{idle}, repeat(silent, 10)), 20, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *StalledError
			calls := 0
			// A window so long the timer never fires: the test drives the ticks.
			w := newStallWatch(1, 10*time.Second, func(e *StalledError) { got = e; calls++ })
			defer w.stop()
			stalledAt := 0
			for i, s := range tt.steps {
				if s.reading {
					w.begin()
					w.end(s.bytes)
				}
				w.onTick()
				if calls > 0 && stalledAt == 0 {
					stalledAt = i + 1
				}
			}
			if stalledAt != tt.wantStall || calls > 1 {
				t.Fatalf("stalled at tick %d (%d calls), want %d", stalledAt, calls, tt.wantStall)
			}
			if got != nil && (got.Bytes != tt.wantBytes || got.BytesPerSecond != 1 || got.Window != 10*time.Second) {
				t.Errorf("StalledError = %+v", got)
			}
		})
	}
}

func TestStallWatchReadAcrossTicks(t *testing.T) {
	calls := 0
	w := newStallWatch(1, 10*time.Second, func(*StalledError) { calls++ })
	defer w.stop()
	w.begin() // one Read that blocks through a whole window
	for range 10 {
		w.onTick()
	}
	if calls != 1 {
		t.Errorf("a Read blocked for a full window: %d stall calls, want 1", calls)
	}
}

func TestStallWatchOff(t *testing.T) {
	tests := []struct {
		bps    int64
		window time.Duration
	}{{0, time.Second}, {1, 0}, {0, 0}}
	for _, tt := range tests {
		w := newStallWatch(tt.bps, tt.window, func(*StalledError) { t.Error("stalled") })
		if w != nil {
			t.Errorf("newStallWatch(%d, %v) = %v, want nil", tt.bps, tt.window, w)
		}
		// A nil watch is usable.
		w.begin()
		w.end(1)
		w.stop()
	}
}

func TestStallWatchStopsTicking(t *testing.T) {
	calls := 0
	w := newStallWatch(1, 10*time.Second, func(*StalledError) { calls++ })
	w.stop()
	w.begin()
	for range 20 {
		w.onTick()
	}
	if calls != 0 {
		t.Errorf("a stopped watch reported %d stalls", calls)
	}
}

func TestStalledErrorText(t *testing.T) {
	tests := []struct {
		err  *StalledError
		want string
	}{
		{&StalledError{BytesPerSecond: 1, Window: 30 * time.Second, Bytes: 3}, "transport: stalled: 3 bytes in 30s, under the floor of 1 B/s"},
		{&StalledError{BytesPerSecond: 1, Window: 30 * time.Second, AwaitingHeaders: true}, "transport: stalled: no response headers within 30s"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
