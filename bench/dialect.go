package bench

// dialect.go: the dialects this module measures, in report order. Adding
// one takes a corpus_<name>.go with its corpora, a
// peers_<name>.go with its pipeline peers (airlock's llmstream.ReadMessage
// with that dialect among them), an entry here and its derive function in
// corpus_test.go; the SSE peers, the tests, the benchmarks and cmd/report
// pick it up.

import "sync"

// Dialect is one streaming wire protocol with its corpora and its
// full-pipeline peers.
type Dialect struct {
	// Name is the benchmark's dialect=Name and every one of its corpora's
	// Corpus.Dialect.
	Name string
	// Peers decode this dialect's streams into a Message.
	Peers []PipelinePeer

	generate func() []*Corpus // the corpora, in report order
	once     sync.Once
	corpora  []*Corpus
}

// Corpora returns the dialect's corpora in report order, generated on the
// first call.
func (d *Dialect) Corpora() []*Corpus {
	d.once.Do(func() { d.corpora = d.generate() })
	return d.corpora
}

// Dialects lists every measured dialect in report order.
var Dialects = []*Dialect{
	{Name: "chat", Peers: chatPeers, generate: chatCorpora},
	{Name: "anthropic", Peers: anthropicPeers, generate: anthropicCorpora},
	{Name: "responses", Peers: responsesPeers, generate: responsesCorpora},
	{Name: "gemini", Peers: geminiPeers, generate: geminiCorpora},
}

// Corpora returns every dialect's corpora in report order.
func Corpora() []*Corpus {
	var all []*Corpus
	for _, d := range Dialects {
		all = append(all, d.Corpora()...)
	}
	return all
}

// CorpusNamed returns the corpus called name, or nil.
func CorpusNamed(name string) *Corpus {
	for _, c := range Corpora() {
		if c.Name == name {
			return c
		}
	}
	return nil
}
