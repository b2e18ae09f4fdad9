package llmstream

import (
	"bytes"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/airlock-go/airlock/internal/jsonscan"
)

// FuzzBedrockDecode reads any body as Bedrock frames: never a panic, and
// the same result whole and one byte at a time. The seeds are the golden
// scripts' bodies, so the fuzzer starts from valid frames and mutates
// their payloads, headers and CRCs.
func FuzzBedrockDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/bedrock/*.frames")
	for _, file := range files {
		f.Add(bedrockFrames(f, readTestdata(f, "bedrock/"+filepath.Base(file))))
	}
	d := WithDialect(DialectBedrock)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMessage(bytes.NewReader(data), d)
		want := bedrockOutcomeOf(t, m, err)
		if err == nil {
			for _, c := range m.ToolCalls {
				if !jsonscan.Valid([]byte(c.Function.Arguments)) {
					t.Fatalf("call %q handed out with arguments %q", c.ID, c.Function.Arguments)
				}
			}
		} else if len(m.ToolCalls) > 0 {
			t.Fatalf("a failed stream handed out calls: %v", err)
		}
		m, err = ReadMessage(iotest.OneByteReader(bytes.NewReader(data)), d)
		if got := bedrockOutcomeOf(t, m, err); !equalJSON(got, want) {
			t.Fatalf("one byte at a time gives\n%+v\nwhole gives\n%+v", got, want)
		}
	})
}
