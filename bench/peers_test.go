package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// TestSSEPeers: every SSE peer, once on every corpus it reads, finds the
// events and data bytes the corpus holds.
func TestSSEPeers(t *testing.T) {
	if SSEPeers[0].Name != "limit-indexbyte" {
		t.Fatalf("the first SSE peer is %s; cmd/report divides by the floor, which comes first", SSEPeers[0].Name)
	}
	for _, c := range Corpora() {
		for _, p := range SSEPeers {
			if !p.Reads(c) {
				continue
			}
			r, err := p.Run(c.Data)
			if err == nil {
				err = CheckSSE(c, r)
			}
			if err != nil {
				t.Errorf("%s on %s: %v", p.Name, c.Name, err)
			}
		}
	}
}

// TestPipelinePeers: every dialect's peers, on every corpus of the
// dialect, assemble the expected message byte for byte; twice, as the
// benchmark runs them, so that prepared state (go-openai's client) that
// does not survive a second stream fails here. The slowest (anthropic-go
// on anthropic-text, whose Accumulate concatenates the text string anew
// at every delta) take a second or two.
func TestPipelinePeers(t *testing.T) {
	for _, d := range Dialects {
		if !strings.Contains(peerNames(d.Peers), " airlock ") {
			t.Errorf("dialect %s has no airlock peer", d.Name)
		}
		for _, c := range d.Corpora() {
			for _, p := range d.Peers {
				run := p.New(c.Data)
				start := time.Now()
				for range 2 {
					m, err := run()
					if err == nil {
						err = CheckMessage(c, m)
					}
					if err != nil {
						t.Errorf("%s on %s: %v", p.Name, c.Name, err)
						break
					}
				}
				t.Logf("%-20s %-16s %v", p.Name, c.Name, time.Since(start)/2)
			}
		}
	}
}

func peerNames(ps []PipelinePeer) string {
	var b strings.Builder
	b.WriteString(" ")
	for _, p := range ps {
		b.WriteString(p.Name + " ")
	}
	return b.String()
}

// TestCheckCatchesChanges: the checks that guard every benchmark
// iteration fail on one changed byte, in every field they compare, and on
// a stream whose bytes were changed.
func TestCheckCatchesChanges(t *testing.T) {
	c := CorpusNamed("anthropic-tools")
	good := c.Want
	if err := CheckMessage(c, good); err != nil {
		t.Fatal(err)
	}
	flip := func(s string) string { b := []byte(s); b[len(b)/2] ^= 1; return string(b) }
	for name, change := range map[string]func(m *Message){
		"content":   func(m *Message) { m.Content = flip(m.Content) },
		"reasoning": func(m *Message) { m.Reasoning = flip(m.Reasoning) },
		"signature": func(m *Message) { m.Signature = flip(m.Signature) },
		"finish":    func(m *Message) { m.FinishReason = "end_turn" },
		"role":      func(m *Message) { m.Role = "user" },
		"arguments": func(m *Message) { m.ToolCalls[2].Arguments = flip(m.ToolCalls[2].Arguments) },
		"id":        func(m *Message) { m.ToolCalls[1].ID = flip(m.ToolCalls[1].ID) },
		"name":      func(m *Message) { m.ToolCalls[0].Name = "x" },
		"calls":     func(m *Message) { m.ToolCalls = m.ToolCalls[:3] },
	} {
		m := good
		m.ToolCalls = append([]ToolCall(nil), good.ToolCalls...)
		change(&m)
		if CheckMessage(c, m) == nil {
			t.Errorf("a changed %s passed the check", name)
		}
	}
	if CheckSSE(c, SSEResult{Events: c.Events - 1, PayloadBytes: c.PayloadBytes}) == nil ||
		CheckSSE(c, SSEResult{Events: c.Events, PayloadBytes: c.PayloadBytes + 1}) == nil {
		t.Error("CheckSSE passed a wrong count")
	}

	// One letter of the text changed on the wire: the peer's message no
	// longer matches.
	text := CorpusNamed("anthropic-text")
	data := bytes.Replace(text.Data, []byte(`"text":" the`), []byte(`"text":" thE`), 1)
	if bytes.Equal(data, text.Data) {
		t.Fatal("the corpus has no text delta to change")
	}
	m, err := airlockRead(bytes.NewReader(data), llmstream.DialectAnthropic)
	if err != nil {
		t.Fatal(err)
	}
	if CheckMessage(text, m) == nil {
		t.Error("a message from a changed stream passed the check")
	}
}
