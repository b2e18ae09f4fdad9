// Package google adds a Google OAuth 2.0 access token to airlock's
// requests to Vertex AI, from Application Default Credentials or the token
// source you give.
//
//	d, err := google.NewDefault(ctx, transport.New())
//	client := llmstream.NewClient(
//		llmstream.WithDialect(llmstream.DialectGemini), // or DialectAnthropic for Claude
//		llmstream.WithVertex("my-project", "us-central1"),
//		llmstream.WithModel("gemini-2.5-flash"),
//		llmstream.WithHTTPClient(d))
//
// Wrap airlock's transport (transport.New), not http.DefaultClient, which
// has no timeout, stall detection or size cap.
//
// A [Doer] is an [llmstream.Doer]: it sets "Authorization: Bearer <token>"
// on a copy of each request and hands it to the Doer it wraps. The token
// source refreshes the token before it expires (oauth2.ReuseTokenSource).
// No token appears in any error it returns.
//
// It is its own module, so that airlock's core module needs no Google
// library.
package google
