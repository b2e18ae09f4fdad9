package transport

import (
	"math"
	"testing"
	"time"
)

// tickStep is what happens during one tick of a stall watch: whether the
// caller was in Read, and how many bytes arrived.
type tickStep struct {
	reading bool
	bytes   int64 // int64, so the 32-bit saturation cases compile on 386
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
			var w stallWatch
			stalledAt, bytes := runTicks(&w, 10, tt.steps)
			if stalledAt != tt.wantStall {
				t.Fatalf("stalled at tick %d, want %d", stalledAt, tt.wantStall)
			}
			if stalledAt != 0 && bytes != tt.wantBytes {
				t.Errorf("stalled with %d bytes in the window, want %d", bytes, tt.wantBytes)
			}
		})
	}
}

// runTicks plays steps on w, one tick each, and returns the 1-based tick at
// which the rule first broke (0 for never) and the bytes it reported then.
func runTicks(w *stallWatch, need float64, steps []tickStep) (int, int64) {
	for i, s := range steps {
		if s.reading {
			w.begin()
			w.end(int(s.bytes))
		}
		if n, stalled := w.tick(need); stalled {
			return i + 1, n
		}
	}
	return 0, 0
}

// TestStallWatchFloor checks the window's sum against the floor at the
// floor, one byte under it and one over, for floors that are whole, that
// are fractional, and that reach the 32-bit counts' saturation.
func TestStallWatchFloor(t *testing.T) {
	window := func(perTick ...int64) []tickStep {
		out := make([]tickStep, len(perTick))
		for i, n := range perTick {
			out[i] = tickStep{reading: true, bytes: n}
		}
		return out
	}
	spread := func(total int64) []tickStep {
		// total bytes over one window, as evenly as whole ticks allow.
		perTick := make([]int64, stallBuckets)
		for i := range perTick {
			perTick[i] = total / stallBuckets
		}
		perTick[0] += total % stallBuckets
		return window(perTick...)
	}
	const max32 = math.MaxUint32
	tests := []struct {
		name      string
		need      float64
		steps     []tickStep
		wantStall bool
		wantBytes int64
	}{
		{"1 KiB/s over 10 s, at the floor", 10240, spread(10240), false, 0},
		{"1 KiB/s over 10 s, one under", 10240, spread(10239), true, 10239},
		{"1 KiB/s over 10 s, one over", 10240, spread(10241), false, 0},
		{"all in one tick, at the floor", 10240, window(10240, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, 0},
		{"all in the last tick, one under", 10240, window(0, 0, 0, 0, 0, 0, 0, 0, 0, 10239), true, 10239},
		// 1 B/s over 2.5 s needs 2.5 bytes: 3 meet it, 2 do not.
		{"fractional floor, above", 2.5, spread(3), false, 0},
		{"fractional floor, below", 2.5, spread(2), true, 2},
		// The floor at the largest count a tick holds, 2^32-1 bytes.
		{"floor of 2^32-1, at it in one tick", max32, window(max32, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, 0},
		{"floor of 2^32-1, at it spread", max32, spread(max32), false, 0},
		{"floor of 2^32-1, one under", max32, spread(max32 - 1), true, max32 - 1},
		// A tick of 2^32-1 or more bytes meets any floor, even a higher one.
		{"a saturated tick meets a higher floor", 2 * max32, window(max32, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, 0},
		{"counts over 32 bits within the floor", 20 * float64(max32), spread(10 * (max32 - 1)), true, 10 * (max32 - 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.steps {
				if s.bytes > math.MaxInt {
					t.Skip("a read this large cannot happen where int has 32 bits")
				}
			}
			var w stallWatch
			stalledAt, bytes := runTicks(&w, tt.need, tt.steps)
			if (stalledAt != 0) != tt.wantStall || (tt.wantStall && stalledAt != stallBuckets) {
				t.Fatalf("stalled at tick %d, want a stall: %v (at tick %d)", stalledAt, tt.wantStall, stallBuckets)
			}
			if bytes != tt.wantBytes {
				t.Errorf("stalled with %d bytes, want %d", bytes, tt.wantBytes)
			}
		})
	}
}

// TestStallWatchSaturates checks that one tick's count stops at 2^32-1 bytes
// however many reads it takes, rather than wrapping to a small number.
func TestStallWatchSaturates(t *testing.T) {
	var w stallWatch
	for range 5 {
		w.begin()
		w.end(math.MaxUint32 / 2)
	}
	if w.cur != math.MaxUint32 {
		t.Errorf("count after 5 reads of 2^31-1 bytes = %d, want %d", w.cur, uint32(math.MaxUint32))
	}
	var huge int64 = 1 << 40
	if huge > math.MaxInt {
		t.Skip("a read of 2^40 bytes cannot happen where int has 32 bits")
	}
	w.begin()
	w.end(int(huge))
	if w.cur != math.MaxUint32 {
		t.Errorf("count after a read of 2^40 bytes = %d", w.cur)
	}
}

func TestStallWatchReadAcrossTicks(t *testing.T) {
	var w stallWatch
	w.begin() // one Read that blocks through a whole window
	for i := range stallBuckets {
		if _, stalled := w.tick(10); stalled != (i == stallBuckets-1) {
			t.Fatalf("tick %d: stalled = %v", i+1, stalled)
		}
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
