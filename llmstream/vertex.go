package llmstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// This file serves Gemini and Claude through Google Cloud's Vertex AI: the
// same dialects, DialectGemini and DialectAnthropic, at Vertex's URLs with
// an OAuth bearer token.

// VertexAnthropicVersion is the "anthropic_version" a Claude request on
// Vertex AI carries in its body, in place of the anthropic-version header.
const VertexAnthropicVersion = "vertex-2023-10-16"

type vertexTarget struct{ project, location string }

type vertexOption vertexTarget

// WithVertex sends the client's requests to Google Cloud's Vertex AI, in
// project and location (a region such as "us-central1", or "global"), for
// [DialectGemini] (Gemini) and [DialectAnthropic] (Claude):
//
//	Gemini  POST {base}/projects/{project}/locations/{location}/publishers/google/models/{model}:streamGenerateContent?alt=sse
//	Claude  POST {base}/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:streamRawPredict
//
// where base is "https://{location}-aiplatform.googleapis.com/v1"
// ("https://aiplatform.googleapis.com/v1" for global) unless [WithBaseURL]
// sets another (a URL with no path gets "/v1"). The model is required:
// the URL names it. A Claude request's body carries "anthropic_version":
// [VertexAnthropicVersion] and no "model". The credential is an OAuth
// access token: given with [WithAPIKey] it is sent as "Authorization:
// Bearer" (and redacted like every key); without one, the [Doer] adds it
// (contrib/google's, from Application Default Credentials). An empty
// project or location, one with a '/', or another dialect fails every call
// with [ErrInvalidRequest] or [ErrMisuse].
func WithVertex(project, location string) ClientOption {
	return vertexOption{project, location}
}

func (o vertexOption) applyToClient(c *config) { t := vertexTarget(o); c.vertex = &t }
func (o vertexOption) String() string {
	return fmt.Sprintf("llmstream.WithVertex(%q, %q)", o.project, o.location)
}

// protocol is p, d's protocol, at Vertex.
func (v vertexTarget) protocol(d Dialect, p protocol) (protocol, error) {
	switch {
	case v.project == "" || v.location == "" || url.PathEscape(v.project) != v.project || url.PathEscape(v.location) != v.location:
		return nil, fmt.Errorf("%w: Vertex project %q and location %q must be non-empty path segments", ErrInvalidRequest, v.project, v.location)
	case d.normal() == DialectGemini:
		return vertexProtocol{protocol: p, target: v, publisher: "google", method: ":streamGenerateContent", altSSE: true}, nil
	case d.normal() == DialectAnthropic:
		return vertexProtocol{protocol: p, target: v, publisher: "anthropic", method: ":streamRawPredict", claude: true}, nil
	}
	return nil, fmt.Errorf("%w: WithVertex serves the gemini and anthropic dialects, not %v", ErrMisuse, d)
}

// vertexProtocol is a dialect's protocol at Vertex's URL, with its bearer
// token; the stream and errors are the dialect's own.
type vertexProtocol struct {
	protocol
	target            vertexTarget
	publisher, method string
	altSSE            bool // the URL asks for SSE (Gemini)
	claude            bool // the body names the version and not the model
}

func (p vertexProtocol) defaultBase() string {
	if p.target.location == "global" {
		return "https://aiplatform.googleapis.com/v1"
	}
	return "https://" + p.target.location + "-aiplatform.googleapis.com/v1"
}

func (vertexProtocol) emptyPath() string { return "/v1" }

// providerName is the conventions' name for Vertex AI, whichever model
// publisher it serves.
func (vertexProtocol) providerName() string { return "gcp.vertex_ai" }

func (p vertexProtocol) endpoint(base *url.URL, model string) (string, error) {
	if model == "" {
		return "", fmt.Errorf("%w: a Vertex AI request needs a model: its URL names it", ErrInvalidRequest)
	}
	u := *base
	path := u.EscapedPath() + "/projects/" + p.target.project + "/locations/" + p.target.location +
		"/publishers/" + p.publisher + "/models/" + url.PathEscape(model) + p.method
	if err := setPath(&u, path); err != nil {
		return "", fmt.Errorf("%w: model %q makes a bad path", ErrInvalidRequest, model)
	}
	if p.altSSE {
		q := u.Query()
		q.Set("alt", "sse")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// header sends the token as a bearer token; Vertex wants no API key header
// and, for Claude, the version in the body instead.
func (vertexProtocol) header(h http.Header, token string) {
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
}

func (p vertexProtocol) encode(r *Request, cfg *config) ([]byte, error) {
	body, err := p.protocol.encode(r, cfg)
	if err != nil || !p.claude {
		return body, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, err
	}
	delete(members, "model")
	members["anthropic_version"] = json.RawMessage(`"` + VertexAnthropicVersion + `"`)
	return json.Marshal(members)
}
