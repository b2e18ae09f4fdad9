// Package bench measures airlock against the Go code people use today for
// the same job — the official and community SDKs, hand-written baselines
// and the memory-bandwidth floor — on deterministic corpora of every
// streaming dialect airlock speaks, side by side in one run.
//
// It is its own module (github.com/airlock-go/airlock/bench), so the peer
// SDKs never become dependencies of airlock. Every benchmark iteration is
// checked byte for byte against the corpus's expected message, so a peer
// that is fast because it is wrong fails instead.
//
// The pieces, one file each:
//
//   - dialect.go lists the dialects in report order, each with its corpora
//     and pipeline peers. A new dialect is a corpus_<name>.go, a
//     peers_<name>.go, one entry there and its derive function in
//     corpus_test.go.
//   - corpus.go is the Corpus and Message every dialect shares; generate.go
//     the seeded text and JSON generators; corpus_chat.go,
//     corpus_anthropic.go, corpus_responses.go and corpus_gemini.go the
//     corpora of each dialect.
//   - peers.go is the peer types and the checks; peers_sse.go the SSE-only
//     peers (every corpus); peers_chat.go, peers_anthropic.go,
//     peers_responses.go and peers_gemini.go each dialect's full-pipeline
//     peers.
//   - hold*.go is the held-stream measurement (memory and goroutines per
//     concurrent open stream), driven by cmd/streams against cmd/holdserver.
//   - cmd/report turns `go test -bench` output into the README's tables;
//     run.sh runs everything.
package bench
