package llmstream

import (
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// TestPlainBridgesShareTheirConfig: Bridges made with no option but the
// dialect and the callback hold one shared config per dialect (a held
// stream pays for no copy of the defaults); any other option gives the
// Bridge a config of its own, with that option in it.
func TestPlainBridgesShareTheirConfig(t *testing.T) {
	cb := func(Delta) error { return nil }
	a := NewBridge(WithDialect(DialectAnthropic), WithOnDelta(cb))
	b := NewBridge(WithDialect(DialectAnthropic))
	if a.cfg != b.cfg || a.cfg != plainConfigs[DialectAnthropic] || a.cfg.dialect != DialectAnthropic {
		t.Errorf("two plain Anthropic bridges: configs %p and %p, shared %p", a.cfg, b.cfg, plainConfigs[DialectAnthropic])
	}
	if a.onDelta == nil || b.onDelta != nil {
		t.Error("the callback is not the Bridge's own")
	}
	if c := NewBridge(); c.cfg != plainConfigs[0] {
		t.Error("a Bridge with no option does not share the default dialect's config")
	}
	for name, opt := range map[string]BridgeOption{
		"WithSSEOptions":      WithSSEOptions(sse.WithMaxEventSize(1 << 10)),
		"WithToolCallOptions": WithToolCallOptions(toolcall.WithMaxCalls(3)),
		"WithSecrets":         WithSecrets("sk-a-secret-value"),
		"unknown dialect":     WithDialect(dialectEnd),
	} {
		c := NewBridge(WithDialect(DialectAnthropic), opt)
		for _, p := range plainConfigs {
			if c.cfg == p {
				t.Errorf("a Bridge made with %s shares a plain config", name)
			}
		}
	}
	if c := NewBridge(WithSecrets("sk-a-secret-value")); c.cfg.secrets.Empty() {
		t.Error("WithSecrets did not reach the Bridge's config")
	}
}
