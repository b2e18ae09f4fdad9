package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airlock-go/airlock/llmstream"
)

// splitReader returns b in reads cut at random offsets.
type splitReader struct {
	b   []byte
	rng *rand.Rand
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := min(1+r.rng.IntN(len(r.b)), len(p))
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

// FuzzRoundTrip renders a turn from fuzzed text and arguments in a fuzzed
// flavour and seed, and checks the stream decodes back to the script: with
// the in-test decoder always, and through llmstream.ReadMessage (whole and
// split at random offsets) when the arguments are JSON, as the bridge
// requires.
func FuzzRoundTrip(f *testing.F) {
	f.Add("Hello, world!", "think", `{"a":1}`, uint64(1), uint8(1), false, uint8(1))
	f.Add("naïve ✓ <b>&</b>\n\t\"q\"", "", `{"s":"é😀"}`, uint64(7), uint8(4), true, uint8(3))
	f.Add("", "", "", uint64(0), uint8(0), false, uint8(0))
	f.Add("abcdefghijklmnopqrstuvwxyz", "x", `[1,2`, uint64(3), uint8(5), true, uint8(2))
	f.Add("\u2028\u2029\x00", "\x7f", `"\u0000"`, uint64(9), uint8(6), false, uint8(1))
	f.Fuzz(func(t *testing.T, text, reasoning, args string, seed uint64, flavor uint8, interleave bool, ncalls uint8) {
		turn := Turn{Text: text, Reasoning: reasoning}
		for i := range int(ncalls % 4) {
			turn.ToolCalls = append(turn.ToolCalls, Call{Name: "f" + string(rune('a'+i)), Arguments: args})
		}
		valid := utf8.ValidString(text) && utf8.ValidString(reasoning) && (len(turn.ToolCalls) == 0 || utf8.ValidString(args))
		if msg := turn.check(); (msg == "") != valid {
			t.Fatalf("check() = %q for a turn whose strings valid=%t", msg, valid)
		}
		if !valid {
			return
		}
		cfg := newConfig([]Option{WithFlavor(Flavor(flavor % uint8(flavorEnd))), WithSeed(seed), WithInterleavedCalls(interleave)})
		req := &Request{Seq: 1, Model: "m", StreamOptions: &StreamOptions{IncludeUsage: true}}
		evs, err := newRenderer(&cfg, chatWire{}, req, turn).render()
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		for _, e := range evs {
			body = append(body, e.data...)
		}
		body = append(body, doneEvent...)

		d, err := decodeStream(body)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		if d.msg.Content != text || d.msg.Reasoning != reasoning || len(d.msg.ToolCalls) != len(turn.ToolCalls) {
			t.Fatalf("decoded %+v from\n%s", d.msg, body)
		}
		for i, c := range d.msg.ToolCalls {
			if c.Function.Arguments != args || c.Function.Name != turn.ToolCalls[i].Name {
				t.Fatalf("call %d: %+v, want %s %q", i, c, turn.ToolCalls[i].Name, args)
			}
		}
		for _, frag := range d.fragments {
			if frag != "" && !fragmentOK(frag) && cfg.flavor != Ollama && cfg.flavor != Gemini {
				t.Fatalf("fragment %q out of bounds", frag)
			}
		}

		if len(turn.ToolCalls) > 0 && !json.Valid([]byte(args)) {
			return
		}
		for _, r := range []struct {
			name string
			r    io.Reader
		}{
			{"whole", bytes.NewReader(body)},
			{"split", &splitReader{b: body, rng: rand.New(rand.NewPCG(seed, 2))}},
		} {
			msg, err := llmstream.ReadMessage(r.r)
			if err != nil {
				t.Fatalf("%s: ReadMessage: %v\n%s", r.name, err, body)
			}
			if msg.Content != text || msg.Reasoning != reasoning || len(msg.ToolCalls) != len(turn.ToolCalls) {
				t.Fatalf("%s: ReadMessage gave %+v from\n%s", r.name, msg, body)
			}
			for i, c := range msg.ToolCalls {
				want := args
				if strings.TrimSpace(want) == "" {
					want = "{}"
				}
				if !jsonEqual(json.RawMessage(c.Function.Arguments), json.RawMessage(want)) {
					t.Fatalf("%s: call %d arguments %q, want %q", r.name, i, c.Function.Arguments, want)
				}
			}
		}
	})
}

// FuzzRequestBody sends fuzzed request bodies through the server's
// handler and checks every answer is either the scripted stream (for a
// body that is a streaming chat request) or a 4xx with ErrBadRequest.
func FuzzRequestBody(f *testing.F) {
	f.Add([]byte(chatBody))
	f.Add([]byte(chatBodyUsage))
	f.Add([]byte(`{"stream":true,"messages":[{"role":"user","content":null}],"tools":[{"type":"function","function":{"name":"x"}}]}`))
	f.Add([]byte(`{"stream":"yes"}`))
	f.Add([]byte(`{"stream":true,"messages":[{"content":7}]}`))
	f.Add([]byte(`[`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		srv := NewServer(WithMaxRequestBytes(1<<16), WithResponder(func(Request) Turn { return Turn{Text: "ok"} }))
		defer srv.Close()
		rec := httptest.NewRecorder()
		srv.serve(rec, httptest.NewRequest(http.MethodPost, "/chat/completions", bytes.NewReader(body)))
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests recorded", len(reqs))
		}
		var probe Request
		probe.Body = body
		isChat := len(body) <= 1<<16 && probe.decodeChat() == nil && probe.Stream
		switch {
		case isChat:
			d, err := decodeStream(rec.Body.Bytes())
			if rec.Code != 200 || reqs[0].Err != nil || err != nil || d.msg.Content != "ok" || !d.done {
				t.Fatalf("status %d Err %v decode %v %+v", rec.Code, reqs[0].Err, err, d.msg)
			}
		default:
			if rec.Code < 400 || rec.Code > 499 || !errors.Is(reqs[0].Err, ErrBadRequest) {
				t.Fatalf("status %d Err %v for a body that is not a streaming chat request", rec.Code, reqs[0].Err)
			}
		}
		if !bytes.Equal(reqs[0].Body, body) {
			t.Fatal("recorded body differs")
		}
	})
}
