package llmstream_test

import (
	"context"
	"slices"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
)

// TestReviewFeedMembersAcrossRestart: a Failover restarts a structured
// answer cut in its middle. FeedMembers must start the members over at
// the seam, as the display does: the members after the DeltaRestart are
// the answer's, and the Members has not refused the text.
func TestReviewFeedMembersAcrossRestart(t *testing.T) {
	model := streamerFunc(cutThenAnswer([]string{`{"a":1,`, `"b":`}, []string{`{"a":2,`, `"b":3}`}))
	var events []string
	m := toolcall.NewMembers(func(e toolcall.Member) error {
		events = append(events, string(e.Path)+"="+string(e.Value))
		return nil
	})
	onDelta := llmstream.FeedMembers(m, func(d llmstream.Delta) error {
		if d.Kind == llmstream.DeltaRestart {
			events = nil // the display voids what it was shown
		}
		return nil
	})
	f := &llmstream.Failover{Models: []llmstream.Streamer{model}, Backoff: -1}
	got, err := f.Stream(context.Background(), llmstream.Request{OnDelta: onDelta})
	if err != nil || got.Content != `{"a":2,"b":3}` {
		t.Fatalf("Stream = %q, %v", got.Content, err)
	}
	if want := []string{`$.a=2`, `$.b=3`, `$={"a":2,"b":3}`}; m.Err() != nil || !slices.Equal(events, want) {
		t.Fatalf("members %q (err %v), want %q", events, m.Err(), want)
	}
}
