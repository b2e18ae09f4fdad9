package llmstream

// RaceEnabled reports a test binary built with -race, for the external
// tests whose sweeps take a stride there (the race detector makes every
// request several times slower; the plain run covers every point).
const RaceEnabled = raceEnabled
