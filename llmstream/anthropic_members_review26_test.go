package llmstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/google/go-cmp/cmp"
)

// antPair is one member of a JSON object: its decoded key and its value,
// a decoded string or the compact JSON of anything else.
type antPair struct {
	Key   string
	Str   *string
	Other string
}

// antPairs reads an object's members in order, duplicates kept, as a
// model independent of the decoder (encoding/json).
func antPairs(t *testing.T, raw []byte) []antPair {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s (%v)", raw, err)
	}
	var out []antPair
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		p := antPair{Key: k.(string)}
		var s string
		if json.Unmarshal(v, &s) == nil && v[0] == '"' {
			p.Str = &s
		} else {
			var c bytes.Buffer
			json.Compact(&c, v)
			p.Other = c.String()
		}
		out = append(out, p)
	}
	return out
}

// antModel is what a raw block's Raw must be, by the documented rule:
// each string member of a delta, its type aside, appends to the first
// member of its name (a new "" member if none; an empty string changes no
// member); a null member of the start is dropped; a non-string value of the start that text appends to becomes
// that text.
func antModel(t *testing.T, start string, deltas []string) []antPair {
	// A null member of the start is dropped, as the decoder's JSON
	// scanner reads null as absent (so it was before these members).
	var mem []antPair
	for _, p := range antPairs(t, []byte(start)) {
		if p.Other != "null" {
			mem = append(mem, p)
		}
	}
	for _, d := range deltas {
		for _, p := range antPairs(t, []byte(d)) {
			if p.Key == "type" || p.Str == nil {
				continue
			}
			i := -1
			for j := range mem {
				if mem[j].Key == p.Key {
					i = j
					break
				}
			}
			if i < 0 {
				e := ""
				mem = append(mem, antPair{Key: p.Key, Str: &e})
				i = len(mem) - 1
			}
			if *p.Str == "" {
				continue
			}
			base := ""
			if mem[i].Str != nil {
				base = *mem[i].Str
			}
			s := base + *p.Str
			mem[i] = antPair{Key: p.Key, Str: &s}
		}
	}
	return mem
}

var (
	antKeys = []string{"k", "kA", `k\u0041`, "", "content", "type", `typ\u0065`, `a\"b`, "é", `\u00e9`, "data", `\n`, "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"}
	antStrs = []string{`""`, `"a"`, `"b\u0041"`, `"\n"`, `"é"`, `"\ud83d\ude00"`, `"xyz"`, `"\""`, `"\\"`, `"\/"`}
	antNon  = []string{`1`, `null`, `true`, `{}`, `{"a":"b"}`, `["s"]`, `-0.5`}
)

func antRandMembers(r *rand.Rand, n int, strOnly bool) string {
	parts := make([]string, n)
	for i := range parts {
		v := antStrs[r.IntN(len(antStrs))]
		if !strOnly && r.IntN(4) == 0 {
			v = antNon[r.IntN(len(antNon))]
		}
		parts[i] = `"` + antKeys[r.IntN(len(antKeys))] + `":` + v
	}
	return strings.Join(parts, ",")
}

// TestAnthropicRawMembersModel_review26 checks raw blocks against the
// model on random starts and deltas (keys repeated inside one delta,
// escaped spellings of one key, empty and non-string values, deltas of
// type only, past the map threshold), with each event handed to a Bridge
// in one buffer that is overwritten after every event — the members' keys
// and values must not alias it — and again read whole and at 1-byte and
// random splits, which must agree.
func TestAnthropicRawMembersModel_review26(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 2))
	for iter := range 600 {
		start := `{"type":"x_block"`
		if m := antRandMembers(r, r.IntN(14), false); m != "" {
			start += "," + m
		}
		start += "}"
		var deltas []string
		for range r.IntN(10) {
			d := `{"type":"x_delta"`
			switch r.IntN(6) {
			case 0: // type only
			case 1: // one key repeated in the delta
				k := antKeys[r.IntN(len(antKeys))]
				for range 1 + r.IntN(4) {
					d += `,"` + k + `":` + antStrs[r.IntN(len(antStrs))]
				}
			default:
				if m := antRandMembers(r, 1+r.IntN(20), false); m != "" {
					d += "," + m
				}
			}
			deltas = append(deltas, d+"}")
		}
		events := []string{
			`{"type":"message_start","message":{"id":"m","role":"assistant","content":[],"model":"c"}}`,
			`{"type":"content_block_start","index":0,"content_block":` + start + `}`,
		}
		for _, d := range deltas {
			events = append(events, `{"type":"content_block_delta","index":0,"delta":`+d+`}`)
		}
		events = append(events, `{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, `{"type":"message_stop"}`)

		b := NewBridge(WithDialect(DialectAnthropic))
		buf := make([]byte, 0, 64)
		for _, e := range events {
			buf = append(buf[:0], e...)
			if err := b.Handle(sse.Event{Data: buf}); err != nil {
				t.Fatalf("%d: %v", iter, err)
			}
			for i := range buf {
				buf[i] = '#'
			}
			buf = append(buf, `{"type":"zz","k":"overwritten","kA":"overwritten"}`...)
		}
		msg, err := b.Message()
		if err != nil || msg.Continuity == nil || len(msg.Continuity.Blocks) != 1 {
			t.Fatalf("%d: %+v, %v", iter, msg, err)
		}
		got := antPairs(t, msg.Continuity.Blocks[0].Raw)
		want := antModel(t, start, deltas)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%d: start %s deltas %s: Raw differs from the model (-want +got):\n%s", iter, start, deltas, diff)
		}
		var sb strings.Builder
		for _, e := range events {
			fmt.Fprintf(&sb, "data: %s\n\n", e)
		}
		for _, split := range []int{0, 1, 1 + r.IntN(30)} {
			m2, err := ReadMessage(&chopReader{s: sb.String(), n: split}, WithDialect(DialectAnthropic))
			if err != nil || !bytes.Equal(m2.Continuity.Blocks[0].Raw, msg.Continuity.Blocks[0].Raw) {
				t.Fatalf("%d split %d: %s, %v; whole %s", iter, split, m2.Continuity.Blocks[0].Raw, err, msg.Continuity.Blocks[0].Raw)
			}
		}
	}
}

// chopReader reads s n bytes at a time (all at once for 0).
type chopReader struct {
	s string
	n int
}

func (c *chopReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := len(c.s)
	if c.n > 0 {
		n = min(n, c.n)
	}
	n = copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

// TestAnthropicThinkingSignature_review26: a thinking block's signature is
// extended by signature_delta (empty ones change nothing, non-strings and
// other delta types are ignored, an escaped signature is decoded), and the
// thinking member is the reasoning text, whatever the start said.
func TestAnthropicThinkingSignature_review26(t *testing.T) {
	for _, tt := range []struct {
		start  string
		deltas []string
		want   string
	}{
		{`{"type":"thinking","thinking":"","signature":""}`,
			[]string{`{"type":"thinking_delta","thinking":"hm"}`, `{"type":"signature_delta","signature":"ab"}`, `{"type":"signature_delta","signature":""}`, `{"type":"signature_delta","signature":"c\u0041"}`, `{"type":"signature_delta","signature":1}`, `{"type":"signature_delta"}`, `{"type":"x_delta","signature":"no"}`},
			`{"type":"thinking","thinking":"hm","signature":"abcA"}`},
		{`{"type":"thinking"}`,
			[]string{`{"type":"signature_delta","signature":"s"}`, `{"type":"signature_delta","signature":"t","signature":"u"}`},
			`{"type":"thinking","signature":"su","thinking":""}`}, // a repeated member: the last stands
		{`{"type":"thinking","signature":7,"thinking":"old"}`,
			[]string{`{"type":"signature_delta","signature":""}`},
			`{"type":"thinking","signature":7,"thinking":"old"}`}, // the start's thinking is reasoning too
	} {
		s := "data: " + `{"type":"message_start","message":{"id":"m","role":"assistant","content":[],"model":"c"}}` + "\n\n" +
			"data: " + `{"type":"content_block_start","index":0,"content_block":` + tt.start + `}` + "\n\n"
		for _, d := range tt.deltas {
			s += "data: " + `{"type":"content_block_delta","index":0,"delta":` + d + `}` + "\n\n"
		}
		s += "data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n"
		m, err := ReadMessage(strings.NewReader(s), WithDialect(DialectAnthropic))
		if err != nil || m.Continuity == nil {
			t.Fatalf("%s: %v", tt.start, err)
		}
		if got := string(m.Continuity.Blocks[0].Raw); got != tt.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.start, tt.deltas, got, tt.want)
		}
	}
}
