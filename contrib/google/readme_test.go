package google

import (
	"testing"

	"github.com/airlock-go/airlock/internal/readme"
)

// TestReadmeMatchesFiles: the README's Go blocks are regions of files this
// module's tests build (see package internal/readme).
func TestReadmeMatchesFiles(t *testing.T) {
	for _, err := range readme.Require("README.md", "../..", 1) {
		t.Error(err)
	}
}
