package temporal

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The crash test starts this binary again as a worker process.
	if os.Getenv(workerAddrEnv) != "" {
		os.Exit(workerProcess())
	}
	goleak.VerifyTestMain(m,
		// The testsuite leaves the goroutine of an activity cancelled with
		// its workflow waiting for a main loop that has ended
		// (TestCancelDuringTool); it is the SDK's, and the tool it ran has
		// returned, as that test checks.
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).executeActivityWithRetryForTest"))
}
