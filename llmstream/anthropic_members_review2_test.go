package llmstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// reviewMemberStreams are random Anthropic streams of thinking and raw
// blocks whose starts hold duplicate keys, escaped keys and values,
// non-string members, and whose deltas append empty and non-empty text to
// members old and new, signatures, and streamed "input".
func reviewMemberStreams(n int) []string { return reviewMemberStreamsSeed(2, n) }

func reviewMemberStreamsSeed(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 0xa1))
	keys := []string{`a`, `b`, `thinking`, `signature`, `input`, `q\"k`, `\u00e9`, `content`, `type`, `é`}
	vals := []string{`"x"`, `"\u0041"`, `""`, `5`, `null`, `{"k":[1,"\n"]}`, `"dup"`, `true`, `"a\/b"`}
	texts := []string{`""`, `"t"`, `"\u00e9\n"`, `"\ud83d\ude00"`, `"zz"`}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var out []string
	for range n {
		events := []string{`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`}
		blocks := 1 + rng.IntN(3)
		for bi := range blocks {
			thinking := rng.IntN(2) == 0
			var start strings.Builder
			if thinking {
				start.WriteString(`"type":"thinking"`)
			} else {
				start.WriteString(`"type":"` + pick([]string{"other", "compaction", "server_tool_use", "web_search_tool_result"}) + `"`)
			}
			members := rng.IntN(4)
			if rng.IntN(6) == 0 {
				members = 8 + rng.IntN(6) // enough for the map
			}
			set := map[string]bool{}
			for j := range members {
				k := pick(keys)
				// set replaces every duplicate of the members it sets
				// (thinking's text, a raw block's input); the old code
				// replaced the first only: see TestAnthropicSetDuplicates_review2.
				for (k == "thinking" || k == "input") && set[k] {
					k = pick(keys)
				}
				set[k] = true
				if j >= 4 {
					k = fmt.Sprintf("m%d", rng.IntN(12))
				}
				v := pick(vals)
				if k == "thinking" && rng.IntN(2) == 0 {
					v = pick(texts)
				}
				fmt.Fprintf(&start, `,"%s":%s`, k, v)
			}
			events = append(events, fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{%s}}`, bi, start.String()))
			for range rng.IntN(6) {
				var d string
				switch r := rng.IntN(5); {
				case thinking && r < 2:
					d = `{"type":"thinking_delta","thinking":` + pick(texts) + `}`
				case thinking && r < 4:
					d = `{"type":"signature_delta","signature":` + pick(texts) + `}`
				case !thinking && r == 0:
					d = `{"type":"input_json_delta","partial_json":` + pick([]string{`""`, `"{\"q\":"`, `"1}"`, `"[1,"`, `"2]"`}) + `}`
				default:
					var dm strings.Builder
					dm.WriteString(`"type":"x"`)
					for range rng.IntN(4) {
						k := pick(keys)
						if rng.IntN(3) == 0 {
							k = fmt.Sprintf("m%d", rng.IntN(12))
						}
						v := pick(texts)
						if rng.IntN(5) == 0 {
							v = pick(vals)
						}
						fmt.Fprintf(&dm, `,"%s":%s`, k, v)
					}
					d = "{" + dm.String() + "}"
				}
				events = append(events, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, bi, d))
			}
			events = append(events, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, bi))
		}
		events = append(events, `{"type":"message_stop"}`)
		out = append(out, anthropicStream(events...))
	}
	return out
}

// reviewMemberOutcome is what a stream's kept blocks became, or its error.
func reviewMemberOutcome(data string) string {
	m, err := ReadMessage(strings.NewReader(data), WithDialect(DialectAnthropic))
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, blk := range m.Continuity.Blocks {
		fmt.Fprintf(&b, "%s %s\n", blk.Type, blk.Raw)
	}
	fmt.Fprintf(&b, "reasoning %q\n", m.Reasoning)
	return b.String()
}

// TestAnthropicMembersMatchOldCode_review2 is a differential test against
// the code before anthropic_members.go (commit 15b4876): its golden file
// was written by this same test run on that commit with
// REVIEW2_WRITE_GOLDEN=1. Each stream is decoded whole and at every
// splitting.
func TestAnthropicMembersMatchOldCode_review2(t *testing.T) {
	streams := reviewMemberStreams(600)
	var got bytes.Buffer
	for i, s := range streams {
		o := reviewMemberOutcome(s)
		for how, r := range splittings([]byte(s), uint64(i)) {
			m, err := ReadMessage(r(), WithDialect(DialectAnthropic))
			var b strings.Builder
			if err != nil {
				b.WriteString("error: " + err.Error())
			} else {
				for _, blk := range m.Continuity.Blocks {
					fmt.Fprintf(&b, "%s %s\n", blk.Type, blk.Raw)
				}
				fmt.Fprintf(&b, "reasoning %q\n", m.Reasoning)
			}
			if b.String() != o {
				t.Fatalf("stream %d split %s:\n%s\nwhole:\n%s", i, how, b.String(), o)
			}
		}
		fmt.Fprintf(&got, "== %d\n%s", i, o)
	}
	const golden = "testdata/anthropic_members_review2.golden"
	if os.Getenv("REVIEW2_WRITE_GOLDEN") != "" {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		stream := ""
		for i := range min(len(gl), len(wl)) {
			if strings.HasPrefix(wl[i], "== ") {
				stream = wl[i]
			}
			if gl[i] != wl[i] {
				t.Fatalf("%s differs from the old code:\ngot  %s\nwant %s\nstream:\n%s", stream, gl[i], wl[i], streams[atoiReview(stream[3:])])
			}
		}
		t.Fatalf("outputs differ in length: %d lines, want %d", len(gl), len(wl))
	}
}

func atoiReview(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// An empty string a delta appends leaves a member as the start wrote it,
// as the old code did: a number stays a number, an escaped string keeps
// its escapes (a signature is sent back byte for byte).
func TestAnthropicEmptyDeltaKeepsMember_review2(t *testing.T) {
	data := anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"other","n":5,"o":{"k":1},"s":"a\/b"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"x","n":"","o":"","s":"","new":""}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":"s\/g"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":""}}`,
		`{"type":"content_block_stop","index":1}`, `{"type":"message_stop"}`)
	want := []string{`{"type":"other","n":5,"o":{"k":1},"s":"a\/b","new":""}`, `{"type":"thinking","thinking":"","signature":"s\/g"}`}
	for how, r := range splittings([]byte(data), 3) {
		m, err := ReadMessage(r(), WithDialect(DialectAnthropic))
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := string(m.Continuity.Blocks[i].Raw); got != w {
				t.Errorf("%s: block %d\n%s\nwant\n%s", how, i, got, w)
			}
		}
	}
}

// A start that names "thinking" (or a raw block's "input") twice: every
// one of them is the block's reasoning (the start's text is its last
// duplicate's) or streamed input. The old code set the first and appended
// the reasoning to the second's start text, so a reader taking the last
// duplicate saw text the signature does not cover.
func TestAnthropicSetDuplicates_review2(t *testing.T) {
	data := anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"a","thinking":"b","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"c"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","input":{},"input":5}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}`,
		`{"type":"content_block_stop","index":1}`, `{"type":"message_stop"}`)
	want := []string{`{"type":"thinking","thinking":"bc","thinking":"bc","signature":""}`, `{"type":"server_tool_use","input":{"q":1},"input":{"q":1}}`}
	m, err := ReadMessage(strings.NewReader(data), WithDialect(DialectAnthropic))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if got := string(m.Continuity.Blocks[i].Raw); got != w {
			t.Errorf("block %d\n%s\nwant\n%s", i, got, w)
		}
	}
}
