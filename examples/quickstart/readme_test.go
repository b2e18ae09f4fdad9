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
// "// readme:end" lines without one level of indentation. A README edited
// without the file (or the other way round) fails here.
func TestReadmeMatchesFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 2 {
		t.Fatalf("%d marked blocks in the README, want at least 2", len(blocks))
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
