package llmstream

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/providers")

// dialectOf is the dialect of a recorded stream, from its file name:
// "anthropic_...", "responses_...", "gemini_..." (gemini.sse alone is
// Gemini's OpenAI endpoint), else chat.
func dialectOf(name string) Dialect {
	prefix, _, found := strings.Cut(name, "_")
	if d, err := ParseDialect(prefix); found && err == nil && prefix != "chat" && prefix != "openai" {
		return d
	}
	return DialectChat
}

// TestProviderGolden decodes one recorded-shape stream per provider in the
// design's list (invented values, real shapes), whole and split every way,
// and compares the result with its hand-checked golden file.
func TestProviderGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/providers/*.sse")
	if err != nil || len(files) == 0 {
		t.Fatalf("no provider streams: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, "providers/"+name+".sse")
			got := decodeEverySplit(t, data, WithDialect(dialectOf(name)))
			enc, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			enc = append(enc, '\n')
			golden := strings.TrimSuffix(f, ".sse") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, enc, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestProviderGolden -update once, then check the file by hand)", err)
			}
			if !bytes.Equal(enc, want) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, enc, want)
			}
		})
	}
}
