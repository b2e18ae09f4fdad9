// Package google adds a Google OAuth 2.0 access token to airlock's
// requests to Vertex AI, from Application Default Credentials or the token
// source you give.
//
//	d, err := google.NewDefault(ctx, http.DefaultClient)
//	client := llmstream.NewClient(llmstream.WithBaseURL(url), llmstream.WithHTTPClient(d))
//
// A [Doer] is an [llmstream.Doer]: it sets "Authorization: Bearer <token>"
// on a copy of each request and hands it to the Doer it wraps. The token
// source refreshes the token before it expires (oauth2.ReuseTokenSource).
// No token appears in any error it returns.
//
// It is its own module, so that airlock's core module needs no Google
// library.
package google
