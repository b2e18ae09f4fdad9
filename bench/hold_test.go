package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestHoldPeers runs every held-stream peer through cmd/streams'
// measurement on 16 streams against an in-process HoldServer with a fast
// tick; every message is verified byte for byte, tick chunks included.
func TestHoldPeers(t *testing.T) {
	srv := httptest.NewServer(NewHoldServer(20 * time.Millisecond))
	defer srv.Close()
	for _, p := range HoldPeers {
		res, err := MeasureHold(p, srv.URL, 16, 100*time.Millisecond, nil)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if res.Verified != 16 || res.ServerOpen != 16 || res.TicksMin < 1 {
			t.Errorf("%s: %+v", p.Name, res)
		}
		t.Logf("%-16s open %.3fs, %d goroutines, ticks %d–%d, verified %d", p.Name, res.OpenSeconds, res.Goroutines, res.TicksMin, res.TicksMax, res.Verified)
	}
}

// A stream whose id does not match, or a lost tick, must fail verification.
func TestHoldVerifyCatchesMismatch(t *testing.T) {
	m := HoldWant("hold-1", 3)
	if err := checkHold("hold-1", 3, m); err != nil {
		t.Fatal(err)
	}
	if checkHold("hold-2", 3, m) == nil || checkHold("hold-1", 2, m) == nil || checkHold("hold-1", 4, m) == nil {
		t.Fatal("checkHold accepted a wrong message")
	}
	// the floor peer checks raw bytes: one changed byte must fail it
	body := holdStreamBytes("hold-1", 2)
	body[len(body)/2] ^= 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	if _, err := HoldFloor(srv.URL)(context.Background(), "hold-1", func() {}); err == nil {
		t.Fatal("nethttp-floor accepted a changed byte")
	} else {
		t.Log(err)
	}
}
