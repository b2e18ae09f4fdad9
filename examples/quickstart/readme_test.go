package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is a marker comment naming a file, then the Go block that
// must show it.
var readmeBlock = regexp.MustCompile("(?s)<!-- readme-file: ([^ ]+) -->\n```go\n(.*?)```")

// TestReadmeMatchesFiles: every Go block of the README marked with a file
// is that file whole, or the region between its "// readme:begin" and
// "// readme:end" lines without one level of indentation (in an Example,
// whose // Output: the test run checks). A README edited without the file
// (or the other way round) fails here.
func TestReadmeMatchesFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 5 {
		t.Fatalf("%d marked blocks in the README, want at least 5", len(blocks))
	}
	for _, b := range blocks {
		data, err := os.ReadFile(filepath.Join(root, b[1]))
		if err != nil {
			t.Errorf("%s: %v", b[1], err)
			continue
		}
		want := string(data)
		if begin := strings.Index(want, "// readme:begin\n"); begin >= 0 {
			end := strings.Index(want, "// readme:end\n")
			if end < begin {
				t.Errorf("%s: a // readme:begin line without a // readme:end line after it", b[1])
				continue
			}
			// A comment line right after the end marker joins it in one
			// comment group, and an "// Output:" there is no longer the
			// example's output comment: go test would compile the example
			// and never run it.
			after, _, _ := strings.Cut(want[end+len("// readme:end\n"):], "\n")
			if strings.HasPrefix(strings.TrimSpace(after), "//") {
				t.Errorf("%s: the line after // readme:end is a comment; leave a blank line, or an // Output: there is ignored", b[1])
			}
			region := want[begin+len("// readme:begin\n") : end]
			region = region[:strings.LastIndex(region, "\n")+1] // up to the marker's own indentation
			var lines []string
			for _, l := range strings.SplitAfter(region, "\n") {
				lines = append(lines, strings.TrimPrefix(l, "\t"))
			}
			want = strings.Join(lines, "")
		}
		if b[2] != want {
			t.Errorf("the README's block for %s differs from the file; copy the file into the README", b[1])
		}
	}
}
