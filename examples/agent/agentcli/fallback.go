package agentcli

import (
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
)

// fallbackCutAfter is the event after which the offline primary cuts
// every stream: a few words into the answer.
const fallbackCutAfter = 6

// offlineFailover is the --fallback demo's model: the scripted model
// served by a primary (in --dialect) that cuts every stream after a few
// events, and by a fallback in cfg.Fallback, behind an llmstream.Failover
// that tries the primary once. close ends both servers.
func offlineFailover(cfg config, hc *transport.Client) (model *llmstream.Failover, stop func()) {
	primary := llmstreamtest.NewServer(llmstreamtest.WithEventDelay(cfg.OfflineDelay), llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		t := scriptedTurn(r)
		t.Fault = llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: fallbackCutAfter}
		return t
	}))
	fallback := llmstreamtest.NewServer(llmstreamtest.WithEventDelay(cfg.OfflineDelay), llmstreamtest.WithResponder(continuedTurn))
	client := func(srv *llmstreamtest.Server, d llmstream.Dialect, name string) *llmstream.Client {
		return llmstream.NewClient(llmstream.WithHTTPClient(hc), llmstream.WithDialect(d), llmstream.WithBaseURL(srv.URL),
			llmstream.WithAPIKey("offline-demo"), llmstream.WithModel(name))
	}
	f := &llmstream.Failover{
		Models: []llmstream.Streamer{
			client(primary, cfg.Dialect, "airlock-scripted"),
			// The name says Claude, so that Bedrock continues too.
			client(fallback, cfg.Fallback, "airlock-scripted-claude-fallback"),
		},
		Attempts: 1,
		Backoff:  -1,
	}
	return f, func() { primary.Close(); fallback.Close() }
}

// continuedTurn is the scripted model's turn for r, or for a request
// ending with the text so far as the assistant's message (a
// continuation), the rest of it.
func continuedTurn(r llmstreamtest.Request) llmstreamtest.Turn {
	n := len(r.Messages)
	if n == 0 || r.Messages[n-1].Role != "assistant" {
		return scriptedTurn(r)
	}
	whole := r
	whole.Messages = r.Messages[:n-1]
	return llmstreamtest.Attempts(scriptedTurn(whole))(r)
}
