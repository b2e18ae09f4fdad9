package toolcall_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// memberEvents feeds text to a Members in the pieces cut at splits and
// returns its events as "path=value" and the error of Write or End.
func memberEvents(text string, splits []int, end bool, opts ...toolcall.Option) ([]string, error) {
	pairs, err := memberPairs(text, splits, end, opts...)
	var got []string
	for _, p := range pairs {
		got = append(got, p[0]+"="+p[1])
	}
	return got, err
}

// memberPairs is memberEvents with each event's path and value apart.
func memberPairs(text string, splits []int, end bool, opts ...toolcall.Option) ([][2]string, error) {
	var got [][2]string
	m := toolcall.NewMembers(func(e toolcall.Member) error {
		got = append(got, [2]string{string(e.Path), string(e.Value)})
		return nil
	}, opts...)
	prev := 0
	for _, s := range append(splits, len(text)) {
		if _, err := m.Write([]byte(text[prev:s])); err != nil {
			return got, err
		}
		prev = s
	}
	if end {
		return got, m.End()
	}
	return got, nil
}

func TestMembersEvents(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{`{"goal":"ship","steps":[{"title":"a","n":1},{"title":"b","n":-2.5e3}]}`, []string{
			`$.goal="ship"`, `$.steps[0].title="a"`, `$.steps[0].n=1`, `$.steps[0]={"title":"a","n":1}`,
			`$.steps[1].title="b"`, `$.steps[1].n=-2.5e3`, `$.steps[1]={"title":"b","n":-2.5e3}`,
			`$.steps=[{"title":"a","n":1},{"title":"b","n":-2.5e3}]`,
			`$={"goal":"ship","steps":[{"title":"a","n":1},{"title":"b","n":-2.5e3}]}`}},
		{` [ true , null,[], {} ] `, []string{`$[0]=true`, `$[1]=null`, `$[2]=[]`, `$[3]={}`, `$=[ true , null,[], {} ]`}},
		{`{"a b":1,"\u0061":2,"x\"y":{"_k9":3},"9a":4}`, []string{`$["a b"]=1`, `$.a=2`, `$["x\"y"]._k9=3`, `$["x\"y"]={"_k9":3}`, `$["9a"]=4`,
			`$={"a b":1,"\u0061":2,"x\"y":{"_k9":3},"9a":4}`}},
		{`12`, []string{`$=12`}},
		{`"s"`, []string{`$="s"`}},
		{`[[[1]]]`, []string{`$[0][0][0]=1`, `$[0][0]=[1]`, `$[0]=[[1]]`, `$=[[[1]]]`}},
	}
	for _, tt := range tests {
		got, err := memberEvents(tt.text, nil, true)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("%s: %v\n%s", tt.text, err, cmp.Diff(tt.want, got))
		}
	}
}

var memberTexts = []string{
	`{"goal":"ship","steps":[{"title":"a","n":1},{"title":"b\u00e9\n","n":-2.5e3,"ok":false}],"x":null}`,
	`[0,10,1.5,-0,1e9,"",{},[],[[]],{"a":{"b":{"c":[true]}}}]`,
	`{"a b":"\\","\u0061":2}`,
	`1234`,
}

// TestMembersEverySplit: the events are the same whole, at every split
// point, byte by byte and at random splits.
func TestMembersEverySplit(t *testing.T) {
	for _, text := range memberTexts {
		whole, err := memberEvents(text, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		check := func(splits []int) {
			got, err := memberEvents(text, splits, true)
			if err != nil || !cmp.Equal(got, whole) {
				t.Errorf("%s at %v: %v\n%s", text, splits, err, cmp.Diff(whole, got))
			}
		}
		for i := range len(text) + 1 {
			check([]int{i})
		}
		bytes := make([]int, len(text))
		for i := range bytes {
			bytes[i] = i
		}
		check(bytes)
		r := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			var s []int
			for i := range len(text) {
				if r.IntN(4) == 0 {
					s = append(s, i)
				}
			}
			check(s)
		}
	}
}

// TestMembersTruncated: a text cut anywhere reports only values that are
// complete in the whole text, the same ones, and a snapshot of it is JSON.
func TestMembersTruncated(t *testing.T) {
	for _, text := range memberTexts {
		whole, _ := memberEvents(text, nil, true)
		for cut := range len(text) {
			got, err := memberEvents(text[:cut], nil, false)
			if err != nil || len(got) > len(whole) || !slices.Equal(got, whole[:len(got)]) {
				t.Errorf("%q cut at %d: %v\n%v\nnot a prefix of\n%v", text, cut, err, got, whole)
			}
			if _, err := memberEvents(text[:cut], nil, true); errors.Is(err, toolcall.ErrInvalidArguments) == json.Valid([]byte(text[:cut])) {
				t.Errorf("%q cut at %d: End %v", text, cut, err)
			}
			m := toolcall.NewMembers(nil)
			m.Write([]byte(text[:cut]))
			if s := m.Snapshot(); s != nil && !json.Valid(s) {
				t.Errorf("%q cut at %d: snapshot %s is not JSON", text, cut, s)
			}
		}
	}
}

// TestMembersLimits: the size limit at, below and above; nesting at
// MaxNestingDepth and above; bad bytes; the callback's error; each
// sticks.
func TestMembersLimits(t *testing.T) {
	text := `{"a":"` + strings.Repeat("x", 90) + `"}`
	for _, tc := range []struct {
		max int
		err error
	}{{len(text), nil}, {len(text) + 1, nil}, {len(text) - 1, toolcall.ErrArgumentsTooLarge}} {
		got, err := memberEvents(text, []int{50}, true, toolcall.WithMaxArgumentBytes(tc.max))
		var le *toolcall.LimitError
		if !errors.Is(err, tc.err) || tc.err != nil && (!errors.As(err, &le) || le.Max != tc.max || le.Size != len(text) || len(got) != 0) {
			t.Errorf("max %d: %v after %v", tc.max, err, got)
		}
	}
	for _, tc := range []struct {
		depth int
		err   error
	}{{toolcall.MaxNestingDepth - 1, nil}, {toolcall.MaxNestingDepth, nil}, {toolcall.MaxNestingDepth + 1, toolcall.ErrInvalidArguments}} {
		deep := strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth)
		n := 0
		m := toolcall.NewMembers(func(toolcall.Member) error { n++; return nil })
		_, err := m.Write([]byte(deep[:tc.depth]))
		if err == nil {
			_, err = m.Write([]byte(deep[tc.depth:]))
		}
		if err == nil {
			err = m.End()
		}
		if !errors.Is(err, tc.err) || tc.err == nil && n != tc.depth {
			t.Errorf("depth %d: %v, %d events", tc.depth, err, n)
		}
	}
	got, err := memberEvents(`{"a":1,"b":2 "c":3}`, nil, true)
	var ae *toolcall.ArgumentsError
	if !errors.As(err, &ae) || ae.Offset != 13 || !cmp.Equal(got, []string{"$.a=1", "$.b=2"}) {
		t.Errorf("bad byte: %v after %v", err, got)
	}
	stop := errors.New("stop")
	m := toolcall.NewMembers(func(e toolcall.Member) error { return stop })
	if _, err := m.Write([]byte(`[1,2]`)); err != stop {
		t.Errorf("callback error: %v", err)
	}
	if _, err := m.Write([]byte(` `)); err != stop || m.End() != stop || m.Snapshot() != nil {
		t.Errorf("the callback's error does not stick")
	}
	m.Reset()
	if _, err := m.Write([]byte(`{"a":[1,"x`)); err != stop {
		t.Errorf("after Reset: %v", err)
	}
	m = toolcall.NewMembers(nil)
	m.Write([]byte(`{"a":[1,"x`))
	if s := string(m.Snapshot()); s != `{"a":[1,"x"]}` {
		t.Errorf("snapshot %s", s)
	}
}

// FuzzMembers: for any text and split, the events are the whole text's;
// each value reported is JSON; a valid text ends with "$" and itself.
func FuzzMembers(f *testing.F) {
	for _, s := range memberTexts {
		f.Add(s, uint64(3))
	}
	f.Add(`{"a":[1,2,{"b":"c"}],"d":tru}`, uint64(7))
	f.Add(`[[[[`, uint64(1))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		whole, werr := memberEvents(text, nil, true)
		r := rand.New(rand.NewPCG(seed, seed))
		var splits []int
		for i := range len(text) {
			if r.IntN(3) == 0 {
				splits = append(splits, i)
			}
		}
		got, err := memberEvents(text, splits, true)
		if !slices.Equal(got, whole) || (err == nil) != (werr == nil) {
			t.Fatalf("split %v: %v %v vs whole %v %v", splits, got, err, whole, werr)
		}
		pairs, _ := memberPairs(text, nil, true)
		for _, e := range pairs {
			if !strings.HasPrefix(e[0], "$") || !json.Valid([]byte(e[1])) {
				t.Fatalf("event %q", e)
			}
		}
		if json.Valid([]byte(text)) {
			if werr != nil || len(whole) == 0 || whole[len(whole)-1] != "$="+strings.TrimSpace(text) {
				t.Fatalf("valid text: %v, %v", werr, whole)
			}
		} else if werr == nil {
			t.Fatalf("invalid text %q accepted", text)
		}
	})
}
