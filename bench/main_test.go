package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// google.golang.org/genai pulls in go.opencensus.io, whose package init
// starts a worker goroutine for the life of the process: not a leak of a
// test's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
