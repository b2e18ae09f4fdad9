package sse

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAssemblyIsAllVEX: in the AVX2 files every instruction that names a
// vector register is VEX-encoded (its name starts with V). One legacy SSE
// instruction among them (a MOVD to X1, say) runs with the upper halves of
// the Y registers dirty, which Intel cores answer with a penalty on every
// call: that made lineEndAVX2 seven times slower than the scalar search
// there, while AMD cores showed nothing.
func TestAssemblyIsAllVEX(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly files: %v", err)
	}
	vector := regexp.MustCompile(`\b[XY](1[0-5]|[0-9])\b`)
	checked := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			code, _, _ := strings.Cut(line, "//")
			code = strings.TrimSuffix(strings.TrimSpace(code), `\`)
			fields := strings.Fields(code)
			if len(fields) < 2 || strings.HasPrefix(fields[0], "#") || strings.HasSuffix(fields[0], ":") || strings.Contains(fields[0], "(") { // directives, labels, macro uses
				continue
			}
			if !vector.MatchString(strings.Join(fields[1:], " ")) {
				continue
			}
			checked++
			if !strings.HasPrefix(fields[0], "V") {
				t.Errorf("%s:%d: %s names a vector register without VEX encoding: %s", file, i+1, fields[0], strings.TrimSpace(line))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d vector instructions found; the check is not reading the files", checked)
	}
}
