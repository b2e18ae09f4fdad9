package temporal

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// maxBeatInterval bounds the time between two heartbeats, so a follower
// reading Progress sees the text at most this late.
const maxBeatInterval = time.Second

// beat heartbeats an activity on a timer, with the latest details set, so
// Temporal notices a lost worker within the heartbeat timeout whatever the
// activity's own code does (a tool does not heartbeat by itself; a model
// may think for minutes before its first delta). Details are sent on the
// timer, not on every set, so a long stream costs one encoding a tick
// rather than one a delta.
type beat struct {
	mu      sync.Mutex
	details any
	stop    chan struct{}
	done    chan struct{}
}

// startBeat starts heartbeating ctx's activity; end it with beat.end.
func startBeat(ctx context.Context) *beat {
	b := &beat{stop: make(chan struct{}), done: make(chan struct{})}
	every := maxBeatInterval
	if t := activity.GetInfo(ctx).HeartbeatTimeout; t > 0 && t/3 < every {
		every = t / 3
	}
	go func() {
		defer close(b.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				b.mu.Lock()
				d := b.details
				b.mu.Unlock()
				activity.RecordHeartbeat(ctx, d)
			}
		}
	}()
	return b
}

// set replaces the details the next heartbeat sends.
func (b *beat) set(details any) {
	b.mu.Lock()
	b.details = details
	b.mu.Unlock()
}

// end stops the heartbeats and waits for the goroutine to return.
func (b *beat) end() {
	close(b.stop)
	<-b.done
}
