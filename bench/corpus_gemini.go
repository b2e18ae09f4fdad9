package bench

// corpus_gemini.go: Gemini streamGenerateContent?alt=sse streams, framed
// and spaced the way the API sends them: "data: " events with CRLF line
// ends and no event names or end marker, each a whole
// GenerateContentResponse written with a space after every colon, the
// cumulative usageMetadata on every chunk, modelVersion and responseId:
//
//	gemini-text   5,000 chunks of 4–32 words of answer text, STOP
//	gemini-tools  thought-summary chunks (thought: true), a text chunk,
//	              then one chunk of 4 whole functionCall parts (~2 KB
//	              args each, no ids), the first with the thoughtSignature,
//	              STOP
//
// Gemini sends a call's args whole, as an object, not as text in pieces.
// The args here are written in encoding/json's key order and style (see
// canonicalArgs), so that a peer whose SDK decodes args into a map can
// re-encode them to the same bytes for the byte-for-byte check.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sizes of the Gemini corpora.
const (
	GeminiTextChunks    = 5_000 // text chunks in gemini-text
	GeminiThoughtChunks = 40    // thought chunks in gemini-tools
	GeminiToolCalls     = 4     // functionCall parts in gemini-tools
)

func geminiCorpora() []*Corpus {
	return []*Corpus{genGeminiText(), genGeminiTools()}
}

const geminiModel = "gemini-2.5-flash"

// geminiWriter writes GenerateContentResponse chunks of one response.
type geminiWriter struct {
	sseWriter
	id           string // responseId
	prompt, sent int    // prompt tokens; candidate tokens so far
	thoughts     int    // thought tokens so far
}

// chunk writes one response whose candidate holds parts (JSON objects,
// comma-separated) and, when finish is set, that finishReason.
func (w *geminiWriter) chunk(parts []byte, finish string, tokens int) {
	w.sent += tokens
	b := append([]byte(`{"candidates": [{"content": {"parts": [`), parts...)
	b = append(b, `],"role": "model"}`...)
	if finish != "" {
		b = fmt.Appendf(b, `,"finishReason": "%s"`, finish)
	}
	b = append(b, `,"index": 0}],"usageMetadata": {`...)
	b = fmt.Appendf(b, `"promptTokenCount": %d,"candidatesTokenCount": %d,"totalTokenCount": %d,`, w.prompt, w.sent, w.prompt+w.sent+w.thoughts)
	b = fmt.Appendf(b, `"promptTokensDetails": [{"modality": "TEXT","tokenCount": %d}]`, w.prompt)
	if w.thoughts > 0 {
		b = fmt.Appendf(b, `,"thoughtsTokenCount": %d`, w.thoughts)
	}
	b = fmt.Appendf(b, `},"modelVersion": "%s","responseId": "%s"}`, geminiModel, w.id)
	w.event("", b)
}

// geminiTextPart is {"text": s}, or a thought summary's {"text": s,"thought": true}.
func geminiTextPart(s string, thought, escapeUnicode bool) []byte {
	b := appendJSONString([]byte(`{"text": `), s, escapeUnicode)
	if thought {
		b = append(b, `,"thought": true`...)
	}
	return append(b, '}')
}

func genGeminiText() *Corpus {
	rng := rand.New(rand.NewPCG(0x6E31, 6))
	w := &geminiWriter{sseWriter: sseWriter{crlf: true}, id: randID(rng, "", 22), prompt: 1234}
	w.buf.Grow(3 << 20)
	var content strings.Builder
	for i := range GeminiTextChunks {
		s := genText(rng, 4, 32)
		content.WriteString(s)
		finish := ""
		if i == GeminiTextChunks-1 {
			finish = "STOP"
		}
		w.chunk(geminiTextPart(s, false, rng.IntN(10) == 0), finish, 1+len(s)/4) // a tenth with \uXXXX escapes
	}
	return w.corpus("gemini-text", "gemini", "5,000 text chunks of 4–32 words (cumulative usage on each), STOP, CRLF",
		Message{Role: "assistant", Content: content.String(), FinishReason: "STOP"})
}

var geminiToolNames = []string{"read_file", "grep", "run_command", "write_file"}

func genGeminiTools() *Corpus {
	rng := rand.New(rand.NewPCG(0x6E32, 7))
	w := &geminiWriter{sseWriter: sseWriter{crlf: true}, id: randID(rng, "", 22), prompt: 3870}
	want := Message{Role: "assistant", FinishReason: "STOP"}

	var thinking strings.Builder
	for range GeminiThoughtChunks {
		s := genText(rng, 3, 12)
		thinking.WriteString(s)
		w.thoughts += 1 + len(s)/4
		w.chunk(geminiTextPart(s, true, false), "", 0)
	}
	want.Reasoning = thinking.String()

	want.Content = genText(rng, 6, 14)
	w.chunk(geminiTextPart(want.Content, false, false), "", 1+len(want.Content)/4)

	// The signature is bytes; the API sends them in standard base64.
	sig := make([]byte, 1200)
	for i := range sig {
		sig[i] = byte(rng.UintN(256))
	}
	want.Signature = base64.StdEncoding.EncodeToString(sig)
	var parts []byte
	for i := range GeminiToolCalls {
		tc := ToolCall{ID: fmt.Sprintf("call_%d", i), Name: geminiToolNames[i%len(geminiToolNames)], Arguments: canonicalArgs(genArgs(rng, ToolArgsTarget))}
		want.ToolCalls = append(want.ToolCalls, tc)
		if i > 0 {
			parts = append(parts, ',')
		}
		parts = fmt.Appendf(parts, `{"functionCall": {"name": "%s","args": %s}`, tc.Name, tc.Arguments)
		if i == 0 {
			parts = fmt.Appendf(parts, `,"thoughtSignature": "%s"`, want.Signature)
		}
		parts = append(parts, '}')
	}
	w.chunk(parts, "STOP", 180)
	return w.corpus("gemini-tools", "gemini", "40 thought chunks, a text chunk, then one chunk of 4 whole functionCall parts (~2 KB args each, the first signed), STOP, CRLF", want)
}

// canonicalArgs is the JSON object args as encoding/json writes a
// map[string]any: keys sorted, numbers in Go's float64 form, no HTML
// escaping. Decoded into a map and encoded the same way, it comes back
// byte for byte.
func canonicalArgs(args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		panic(err) // genArgs writes valid JSON
	}
	s, err := encodeArgs(v)
	if err != nil {
		panic(err)
	}
	return s
}

// encodeArgs writes v as compact JSON without HTML escaping.
func encodeArgs(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
