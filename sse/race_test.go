//go:build race

package sse

// raceEnabled reports a test binary built with -race. The exhaustive tests
// of the vector code skip themselves then: the code is single-goroutine,
// so the race detector has nothing to find in it, and it makes those tests
// run for about a minute. They run in every build without -race.
const raceEnabled = true
