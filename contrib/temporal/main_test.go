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
	goleak.VerifyTestMain(m)
}
