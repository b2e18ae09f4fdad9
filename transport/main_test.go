package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// exchange must release its timers and connections by the body's Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
