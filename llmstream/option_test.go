package llmstream

import (
	"net/http"
	"testing"
	"time"
)

// TestHTTPOptionsAreClientOnly: the options that concern the HTTP exchange
// are not BridgeOptions, so passing one to NewBridge or ReadMessage does not
// compile instead of being ignored; the options that shape decoding are
// both.
func TestHTTPOptionsAreClientOnly(t *testing.T) {
	for _, o := range []ClientOption{
		WithBaseURL("http://x.test"), WithAPIKey("k"), WithModel("m"), WithHeader("a", "b"),
		WithHTTPClient(http.DefaultClient), WithIncludeUsage(false), WithIdleTimeout(time.Second),
		WithRequestDefaults(Request{}), WithLogger(nil),
	} {
		if _, ok := o.(BridgeOption); ok {
			t.Errorf("%v is a BridgeOption; a Bridge would ignore it", o)
		}
	}
	for _, o := range []Option{
		WithDialect(DialectAnthropic), WithOnDelta(nil), WithSSEOptions(), WithToolCallOptions(), WithSecrets(), Options{},
	} {
		var _ ClientOption = o
		var _ BridgeOption = o
	}
}
