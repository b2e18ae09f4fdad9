// Package readme checks that the Go code a README shows is code that
// compiles and runs: every ```go block of a README must follow a marker
// naming a file of the repository,
//
//	<!-- readme-file: examples/quickstart/main.go -->
//	<!-- readme-file: contrib/aws/example_test.go#sigv4 -->
//
// and be that file whole, or the region of it between a "// readme:begin"
// line and the next "// readme:end" line ("// readme:begin sigv4" when the
// marker names the region), without one level of indentation (the body of
// an Example, whose // Output: the test run checks). The files belong to
// packages whose tests build and run them, so a README edited without its
// file (or the other way round) fails the module's README test.
//
// It is for the tests of this repository's modules (core and contrib)
// only, and imports no testing package.
package readme

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goBlock is a ```go block with the line before it.
var goBlock = regexp.MustCompile("(?s)([^\n]*)\n```go\n(.*?)```")

// marker is the comment that names a block's file and region.
var marker = regexp.MustCompile(`^<!-- readme-file: ([^ #]+)(?:#([A-Za-z0-9_-]+))? -->$`)

// Check reads the README at readme and compares each of its Go blocks
// with the file (and region) its marker names, a path relative to root.
// It returns one error per block that is unmarked or differs, and the
// number of blocks checked.
func Check(readme, root string) (checked int, errs []error) {
	data, err := os.ReadFile(readme)
	if err != nil {
		return 0, []error{err}
	}
	for _, b := range goBlock.FindAllStringSubmatch(string(data), -1) {
		m := marker.FindStringSubmatch(b[1])
		if m == nil {
			errs = append(errs, fmt.Errorf("%s: a Go block without a <!-- readme-file: PATH[#REGION] --> line before it: %.60q", readme, b[2]))
			continue
		}
		want, err := region(filepath.Join(root, m[1]), m[2])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		checked++
		if b[2] != want {
			errs = append(errs, fmt.Errorf("%s: the block for %s differs from the file; copy the file's text into the README", readme, m[0][len("<!-- readme-file: "):len(m[0])-len(" -->")]))
		}
	}
	return checked, errs
}

// region returns the file at path whole when name is "" and it has no
// begin marker, else the text between its begin and end markers, one
// level of indentation removed.
func region(path, name string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text := string(data)
	beginLine := "// readme:begin\n"
	if name != "" {
		beginLine = "// readme:begin " + name + "\n"
	}
	begin := strings.Index(text, beginLine)
	if begin < 0 {
		if name != "" {
			return "", fmt.Errorf("%s: no %q line", path, strings.TrimSpace(beginLine))
		}
		return text, nil
	}
	body := text[begin+len(beginLine):]
	end := strings.Index(body, "// readme:end\n")
	if end < 0 {
		return "", fmt.Errorf("%s: a %q line without a // readme:end line after it", path, strings.TrimSpace(beginLine))
	}
	// A comment line right after the end marker joins it in one comment
	// group, and an "// Output:" there is no longer the example's output
	// comment: go test would compile the example and never run it.
	after, _, _ := strings.Cut(body[end+len("// readme:end\n"):], "\n")
	if strings.HasPrefix(strings.TrimSpace(after), "//") {
		return "", fmt.Errorf("%s: the line after // readme:end is a comment; leave a blank line, or an // Output: there is ignored", path)
	}
	body = body[:end]
	body = body[:strings.LastIndex(body, "\n")+1] // up to the marker's own indentation
	var lines []string
	for _, l := range strings.SplitAfter(body, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	return strings.Join(lines, ""), nil
}

// ErrNoBlocks is returned by [Require] for a README with fewer blocks
// than asked for.
var ErrNoBlocks = errors.New("readme: fewer Go blocks checked than expected")

// Require is [Check] that also fails when fewer than min blocks were
// checked, so that a README whose markers were lost does not pass empty.
func Require(readme, root string, min int) []error {
	n, errs := Check(readme, root)
	if n < min {
		errs = append(errs, fmt.Errorf("%w: %s: %d, want at least %d", ErrNoBlocks, readme, n, min))
	}
	return errs
}
