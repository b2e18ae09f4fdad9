package agentloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// fill sets every exported field of v, at every depth, to a value unlike
// the zero one and unlike its neighbours': two elements per slice (one
// filled, one empty-but-not-nil where it can be), one entry per map,
// non-nil pointers, raw JSON with spaces. A field of a kind it does not
// know fails the test, so a new kind of field is noticed too.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("fill: %v has the unexported field %s, which the State's JSON cannot keep", v.Type(), v.Type().Field(i).Name)
			}
			fill(t, v.Field(i), n)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(fmt.Sprintf(`{ "raw" : %d }`, *n)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(t, s.Index(0), n)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, n)
		fill(t, e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d \x00 ü", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n%100 + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n%100 + 1))
	default:
		t.Fatalf("fill: a State holds a %v; teach fill and the State's JSON about it", v.Type())
	}
}

// TestStateJSONEveryField: a State with every field of every nested type
// set (messages, calls, usage with its billed counts, continuity with its
// container, blocks, decisions...) comes back equal through JSON, so a
// field added to any of them later cannot be lost.
func TestStateJSONEveryField(t *testing.T) {
	var st agentloop.State
	n := 0
	fill(t, reflect.ValueOf(&st).Elem(), &n)
	if diff := cmp.Diff(st, throughJSON(t, st)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Nil and empty stay apart, at every depth.
	st.Messages[0].ToolCalls, st.Messages[1].ToolCalls = nil, []llmstream.ToolCall{}
	st.Messages[0].Continuity.Blocks[0].Raw = json.RawMessage{}
	st.Messages[0].Continuity.Container = nil
	st.Messages[0].Usage = nil
	st.Dropped = []int{}
	if diff := cmp.Diff(st, throughJSON(t, st)); diff != "" {
		t.Errorf("round trip with nil and empty (-want +got):\n%s", diff)
	}
}

// A tampered State does not decode: a member its types lack, a value of
// the wrong kind, a number out of range; and the State is left as it was.
func TestStateJSONRefusesTampered(t *testing.T) {
	for _, in := range []string{
		`{"Turns":"3"}`,
		`{"Nope":1}`,
		`{"Messages":[{"Role":"user","Evil":true}]}`,
		`{"Messages":{"Role":"user"}}`,
		`{"Turns":1.5}`,
		`{"Messages":[{"StopReason":256}]}`,
		`{"Messages":[{"StopReason":-1}]}`,
		`{"Turns":null}`,
		`{"Messages":[null]}`,
		`{"Decisions":{"c1":null}}`,
		`{"Turns":99999999999999999999}`,
		`{"Messages":[{"ToolCalls":[{"Extra":5}]}]}`,
		`{"Usage":null}`,
		`[]`,
		`{"Turns":1}{`,
	} {
		st := agentloop.State{Turns: 7}
		if err := json.Unmarshal([]byte(in), &st); err == nil || st.Turns != 7 {
			t.Errorf("%s: err %v, Turns %d", in, err, st.Turns)
		}
	}
}

// Result.State shares no memory with Result.Messages: changing the one
// (a call's arguments, raw continuity, usage) leaves the other as it was.
func TestResultStateSharesNothing(t *testing.T) {
	r := &ran{}
	first := asst("", call("a", "echo", `{"id":"a"}`))
	first.Usage = &llmstream.Usage{PromptTokens: 1}
	first.Continuity = &llmstream.Continuity{Blocks: []llmstream.Block{{Type: "thinking", Raw: json.RawMessage(`{"x":1}`)}}}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{first, asst("done")}}, Tools: testTools(r)}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	before := throughJSON(t, res.State)
	m := &res.Messages[len(user)]
	m.ToolCalls[0].Function.Arguments = `{"id":"evil"}`
	m.Usage.PromptTokens = 99
	m.Continuity.Blocks[0].Raw[1] = 'Y'
	res.Messages[len(user)+1].Content = "changed"
	if diff := cmp.Diff(before, res.State); diff != "" {
		t.Errorf("State changed with Messages (-before +after):\n%s", diff)
	}
}

// Result.Usage sums every count of every turn, the billed ones included.
func TestRunUsageSumsEveryCount(t *testing.T) {
	u := llmstream.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 4, CacheWriteTokens: 5, ReasoningTokens: 6, BilledPromptTokens: 7, BilledCompletionTokens: 8}
	first, second := asst("", call("a", "echo", `{}`)), asst("done")
	first.Usage, second.Usage = &u, &u
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{first, second}}, Tools: testTools(&ran{})}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	want := u
	want.Add(&u)
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, res.State.Usage); diff != "" {
		t.Errorf("State.Usage (-want +got):\n%s", diff)
	}
}
