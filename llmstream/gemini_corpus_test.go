package llmstream

// The Gemini benchmark corpora. This file stands alone (standard library
// only, no name from the rest of the package) so that a peer-benchmark
// module can copy it as it is.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

var geminiCorpusWords = []string{"the", "stream", "parser", "é", "quoted \"word\"", "back\\slash", "日本語", "😀", "tab\t", "line\n", "JSON", "part", "token", "model", "\u00a0nbsp"}

// geminiChunk is one streamGenerateContent event as the Gemini API writes
// it: the candidate's parts, usage on every chunk, the model version and
// the response id.
func geminiChunk(parts string, finish string, candidates int) string {
	f := ""
	if finish != "" {
		f = `,"finishReason":"` + finish + `"`
	}
	return `{"candidates":[{"content":{"parts":` + parts + `,"role":"model"}` + f + `,"index":0}],"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":` +
		fmt.Sprint(candidates) + `,"totalTokenCount":` + fmt.Sprint(1200+candidates) +
		`,"promptTokensDetails":[{"modality":"TEXT","tokenCount":1200}]},"modelVersion":"gemini-2.5-flash","responseId":"kX0aaPzBench7IPk8yS4Ag"}`
}

// geminiTextCorpus is n text parts of 1–8 words, one per event, ending
// with an empty signed part and STOP; it returns the stream and the text.
func geminiTextCorpus(n int) ([]byte, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b, text strings.Builder
	for i := range n {
		var piece strings.Builder
		for w := rng.IntN(8); w >= 0; w-- {
			piece.WriteString(" " + geminiCorpusWords[rng.IntN(len(geminiCorpusWords))])
		}
		q, _ := json.Marshal(piece.String())
		text.WriteString(piece.String())
		b.WriteString("data: " + geminiChunk(`[{"text":`+string(q)+`}]`, "", i+1) + "\r\n\r\n")
	}
	b.WriteString("data: " + geminiChunk(`[{"text":"","thoughtSignature":"CiQBjz1rXbenchmarksignature0123456789abcdef=="}]`, "STOP", n) + "\r\n\r\n")
	return []byte(b.String()), text.String()
}

// geminiStreamedArgsCorpus is one call whose arguments stream as partial
// arguments: a path, then a ~n-piece string content, then a list of
// edits; it returns the stream and the arguments as whole JSON.
func geminiStreamedArgsCorpus(n int) ([]byte, string) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b, content strings.Builder
	part := func(args string, more bool) {
		w := ""
		if more {
			w = `,"willContinue":true`
		}
		b.WriteString("data: " + geminiChunk(`[{"functionCall":{"partialArgs":[`+args+`]`+w+`}}]`, "", 1) + "\n\n")
	}
	b.WriteString("data: " + geminiChunk(`[{"functionCall":{"name":"write_file","willContinue":true},"thoughtSignature":"Cp8BAVSoXObenchsig=="}]`, "", 1) + "\n\n")
	part(`{"jsonPath":"$.path","stringValue":"src/module.go"}`, true)
	for range n {
		var piece strings.Builder
		for w := rng.IntN(6); w >= 0; w-- {
			piece.WriteString(geminiCorpusWords[rng.IntN(len(geminiCorpusWords))] + " ")
		}
		q, _ := json.Marshal(piece.String())
		content.WriteString(piece.String())
		part(`{"jsonPath":"$.content","stringValue":`+string(q)+`,"willContinue":true}`, true)
	}
	part(`{"jsonPath":"$.content","stringValue":""}`, true)
	var edits strings.Builder
	for i := range 8 {
		part(fmt.Sprintf(`{"jsonPath":"$.edits[%d].line","numberValue":%d},{"jsonPath":"$.edits[%d].ok","boolValue":true}`, i, i*10, i), i < 7)
		if i > 0 {
			edits.WriteString(",")
		}
		fmt.Fprintf(&edits, `{"line":%d,"ok":true}`, i*10)
	}
	b.WriteString("data: " + geminiChunk(`[{"text":""}]`, "STOP", n) + "\n\n")
	q, _ := json.Marshal(content.String())
	return []byte(b.String()), `{"path":"src/module.go","content":` + string(q) + `,"edits":[` + edits.String() + `]}`
}
