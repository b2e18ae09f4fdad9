package readme

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCheck: whole files, unnamed and named regions match; a drifted
// block, an unmarked block, a missing region, a region without an end and
// a comment after the end marker each fail, naming the file.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("whole.go", "package x\n")
	write("one.go", "func Example() {\n\t// readme:begin\n\tx := 1\n\t_ = x\n\t// readme:end\n\n\t// Output:\n}\n")
	write("named.go", "// readme:begin a\nA()\n// readme:end\n\n// readme:begin b\nB()\n// readme:end\n")
	write("noend.go", "// readme:begin\nx\n")
	write("comment.go", "// readme:begin\nx\n// readme:end\n// Output:\n")
	block := func(marker, code string) string {
		return "text\n<!-- readme-file: " + marker + " -->\n```go\n" + code + "```\n"
	}
	tests := []struct {
		name   string
		readme string
		n      int
		err    string
	}{
		{"whole file", block("whole.go", "package x\n"), 1, ""},
		{"unnamed region, unindented", block("one.go", "x := 1\n_ = x\n"), 1, ""},
		{"two named regions", block("named.go#b", "B()\n") + block("named.go#a", "A()\n"), 2, ""},
		{"drifted", block("named.go#a", "A(1)\n"), 1, "the block for named.go#a differs"},
		{"unmarked", "text\n```go\nfmt.Println()\n```\n", 0, "a Go block without"},
		{"no such region", block("named.go#c", "C()\n"), 0, `no "// readme:begin c" line`},
		{"no end", block("noend.go", "x\n"), 0, "without a // readme:end line"},
		{"comment after the end", block("comment.go", "x\n"), 0, "the line after // readme:end is a comment"},
		{"no such file", block("gone.go", "x\n"), 0, "gone.go"},
		{"a sh block is not checked", "```sh\ngo test ./...\n```\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write("README.md", tt.readme)
			n, errs := Check(filepath.Join(root, "README.md"), root)
			joined := errors.Join(errs...)
			switch {
			case n != tt.n:
				t.Errorf("%d blocks checked, want %d (%v)", n, tt.n, joined)
			case tt.err == "" && joined != nil:
				t.Errorf("errors %v, want none", joined)
			case tt.err != "" && (joined == nil || !strings.Contains(joined.Error(), tt.err)):
				t.Errorf("errors %v, want one saying %q", joined, tt.err)
			}
		})
	}
	write("README.md", block("whole.go", "package x\n"))
	if errs := Require(filepath.Join(root, "README.md"), root, 2); len(errs) != 1 || !errors.Is(errs[0], ErrNoBlocks) {
		t.Errorf("Require with too few blocks: %v, want ErrNoBlocks", errs)
	}
}
