package llmstream

import (
	"runtime"
	"strings"
	"testing"
)

// TestGeminiPartsAllocation bounds what one event of many tiny parts
// allocates, reader included: a part is 13 bytes of event, and its record
// used to cost some 60 times that: 170 bytes, a string in it, and the
// slice copied as it grew.
func TestGeminiPartsAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates some megabytes")
	}
	if raceEnabled {
		t.Skip("the race detector allocates beside the decoder")
	}
	const parts = 10000
	event := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Repeat(`{"text":"x"},`, parts-1) + `{"text":"y"}]},"finishReason":"STOP"}]}`
	data := "data: " + event + "\n\n"
	read := func() {
		m, err := ReadMessage(strings.NewReader(data), gemini)
		if err != nil || len(m.Content) != parts {
			t.Fatalf("got %d bytes of content, %v; want %d", len(m.Content), err, parts)
		}
	}
	read() // warm: nothing lazily set up counts
	const runs = 5
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		read()
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / runs
	if limit := 16 * float64(len(event)); per > limit {
		t.Errorf("one %d-byte event of %d parts allocated %.0f bytes (%.1f×), want at most 16×", len(event), parts, per, per/float64(len(event)))
	}
	t.Logf("%.1f× the event", per/float64(len(event)))
}
