package temporal

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/airlock-go/airlock/llmstream"
)

func TestRelay(t *testing.T) {
	var r Relay
	var mu sync.Mutex
	got := map[string][]string{}
	follow := func(name, id string) func() {
		return r.Follow(id, func(d Delta) {
			mu.Lock()
			got[name] = append(got[name], d.Delta.Text)
			mu.Unlock()
		})
	}
	stopA := follow("a", "wf1")
	stopB := follow("b", "wf1")
	stopC := follow("c", "wf2")
	r.Publish(Delta{WorkflowID: "wf1", Delta: llmstream.Delta{Text: "1"}})
	r.Publish(Delta{WorkflowID: "wf2", Delta: llmstream.Delta{Text: "2"}})
	r.Publish(Delta{WorkflowID: "wf3", Delta: llmstream.Delta{Text: "3"}})
	stopA()
	stopA() // a second stop does nothing
	r.Publish(Delta{WorkflowID: "wf1", Delta: llmstream.Delta{Text: "4"}})
	stopB()
	stopC()
	r.Publish(Delta{WorkflowID: "wf1", Delta: llmstream.Delta{Text: "5"}})
	want := map[string]string{"a": "1", "b": "14", "c": "2"}
	for name, w := range want {
		if s := strings.Join(got[name], ""); s != w {
			t.Errorf("follower %s saw %q, want %q", name, s, w)
		}
	}
	if len(r.followers) != 0 {
		t.Errorf("%d workflow ids still followed after every stop", len(r.followers))
	}
}

// A follower that stops while a delta is being published, from another
// goroutine, neither races nor misses the deltas before its stop.
func TestRelayConcurrent(t *testing.T) {
	var r Relay
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every goroutine publishes to every follower.
			var n atomic.Int32
			stop := r.Follow("wf", func(Delta) { n.Add(1) })
			for range 100 {
				r.Publish(Delta{WorkflowID: "wf"})
			}
			stop()
			if n.Load() < 100 {
				t.Errorf("follower %d saw %d deltas, fewer than the 100 it published", i, n.Load())
			}
		}()
	}
	wg.Wait()
}

func TestCutText(t *testing.T) {
	s := "aé€😀" // 1, 2, 3 and 4 bytes
	for n := 0; n <= len(s)+1; n++ {
		got := cutText(s, n)
		if len(got) > n || !utf8.ValidString(got) || !strings.HasPrefix(s, got) {
			t.Errorf("cutText(%q, %d) = %q", s, n, got)
		}
		if n >= len(s) && got != s {
			t.Errorf("cutText(%q, %d) = %q, want it whole", s, n, got)
		}
	}
	if got := cutText(s, 5); got != "aé" {
		t.Errorf("cutText at 5 = %q, want %q (the euro sign does not fit)", got, "aé")
	}
}
