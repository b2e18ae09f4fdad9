package agentloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// TestCallFromContext: every Run learns the call it answers from its
// context — turn, index, id, name and arguments — one at a time and in
// parallel, even for calls alike in name and arguments, which only the id
// tells apart. Each tool answers with its call's id, so the conversation
// shows that no two calls swapped.
func TestCallFromContext(t *testing.T) {
	for _, width := range []int{0, 3} {
		t.Run(fmt.Sprintf("ParallelTools %d", width), func(t *testing.T) {
			turn2 := []llmstream.ToolCall{call("x1", "who", `{"n":1}`), call("x2", "who", `{"n":1}`), call("x3", "who", "")}
			turns := []llmstream.Message{asst("", call("a", "who", `{"n":0}`)), asst("", turn2...), asst("done")}
			var mu sync.Mutex
			seen := map[string]agentloop.Call{}
			started := make(chan struct{}, len(turn2))
			release := make(chan struct{})
			who := agentloop.Tool{Name: "who", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				c, ok := agentloop.CallFromContext(ctx)
				if !ok {
					return "", fmt.Errorf("no call in the context")
				}
				mu.Lock()
				seen[c.ID] = c
				mu.Unlock()
				if width > 1 && c.Turn == 2 {
					// All three must be running at once for any to end.
					started <- struct{}{}
					select {
					case <-release:
					case <-ctx.Done():
						return "", ctx.Err()
					}
				}
				return c.ID, nil
			}}
			if width > 1 {
				go func() {
					for range turn2 {
						<-started
					}
					close(release)
				}()
			}
			l := agentloop.Loop{Model: &script{turns: turns}, Tools: []agentloop.Tool{who}, ParallelTools: width}
			res, err := l.Run(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]agentloop.Call{
				"a":  {Turn: 1, Index: 0, ID: "a", Name: "who", Arguments: `{"n":0}`},
				"x1": {Turn: 2, Index: 0, ID: "x1", Name: "who", Arguments: `{"n":1}`},
				"x2": {Turn: 2, Index: 1, ID: "x2", Name: "who", Arguments: `{"n":1}`},
				"x3": {Turn: 2, Index: 2, ID: "x3", Name: "who", Arguments: ""},
			}
			if diff := cmp.Diff(want, seen); diff != "" {
				t.Errorf("calls seen by Run (-want +got):\n%s", diff)
			}
			wantMsgs := concat(user, []llmstream.Message{turns[0], toolMsg("a", "a"), turns[1], toolMsg("x1", "x1"), toolMsg("x2", "x2"), toolMsg("x3", "x3"), turns[2]})
			if diff := cmp.Diff(wantMsgs, res.Messages); diff != "" {
				t.Errorf("conversation (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallFromContextOutsideLoop: a context the loop did not hand a Run
// carries no call.
func TestCallFromContextOutsideLoop(t *testing.T) {
	if c, ok := agentloop.CallFromContext(context.Background()); ok || c != (agentloop.Call{}) {
		t.Errorf("CallFromContext(Background) = %+v, %v; want zero, false", c, ok)
	}
}
