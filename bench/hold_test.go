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

// TestHoldServerPause: while paused, a held stream is sent no tick chunks,
// and the ticks it was sent are still counted right for verification.
func TestHoldServerPause(t *testing.T) {
	srv := httptest.NewServer(NewHoldServer(2 * time.Millisecond))
	defer srv.Close()
	ctl := srv.Client()
	var st HoldStats
	if err := holdCall(ctl, http.MethodPost, srv.URL+"/pause", &st); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		_, err := HoldFloor(srv.URL)(context.Background(), "hold-0", func() { close(ready) })
		got <- err
	}()
	<-ready
	time.Sleep(50 * time.Millisecond) // 25 ticks' time, paused
	var fin HoldFinish
	if err := holdCall(ctl, http.MethodPost, srv.URL+"/finish", &fin); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil || fin.Ticks["hold-0"] != 0 {
		t.Fatalf("paused: %d ticks sent, stream %v; want 0 and a verified stream", fin.Ticks["hold-0"], err)
	}

	if err := holdCall(ctl, http.MethodPost, srv.URL+"/resume", &st); err != nil {
		t.Fatal(err)
	}
	ready = make(chan struct{})
	go func() {
		_, err := HoldFloor(srv.URL)(context.Background(), "hold-1", func() { close(ready) })
		got <- err
	}()
	<-ready
	time.Sleep(50 * time.Millisecond)
	if err := holdCall(ctl, http.MethodPost, srv.URL+"/finish", &fin); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil || fin.Ticks["hold-1"] < 2 {
		t.Fatalf("resumed: %d ticks sent, stream %v; want several and a verified stream", fin.Ticks["hold-1"], err)
	}
}
