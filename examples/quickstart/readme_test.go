package main

import (
	"path/filepath"
	"testing"

	"github.com/airlock-go/airlock/internal/readme"
)

// TestReadmeMatchesFiles: every Go block of the README is a file of the
// repository, or a marked region of one, that a test builds and runs (see
// package internal/readme for the markers). A README edited without the
// file (or the other way round) fails here. The blocks from contrib
// modules' files are built by those modules' tests.
func TestReadmeMatchesFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, err := range readme.Require(filepath.Join(root, "README.md"), root, 6) {
		t.Error(err)
	}
}
