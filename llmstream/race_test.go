//go:build race

package llmstream

// raceEnabled reports a test binary built with -race, which enlarges
// frames.
const raceEnabled = true
