package llmstream_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

const vertexGeminiStream = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]},\"finishReason\":\"STOP\"}]}\n\n"

const vertexClaudeStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// TestVertex: Gemini and Claude on Vertex AI go to Vertex's URL with the
// token as a bearer token, Claude's body with anthropic_version and no
// model, and their streams read as their dialects'.
func TestVertex(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	for _, tc := range []struct {
		dialect  llmstream.Dialect
		location string
		model    string
		stream   string
		path     string
		query    string
	}{
		{llmstream.DialectGemini, "us-central1", "gemini-2.5-pro", vertexGeminiStream,
			"/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent", "alt=sse"},
		{llmstream.DialectAnthropic, "global", "claude-sonnet-4@20250514", vertexClaudeStream,
			"/v1/projects/my-proj/locations/global/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict", ""},
	} {
		t.Run(tc.dialect.String(), func(t *testing.T) {
			var s bedrockServer
			srv := s.start(t, 200, sse, []byte(tc.stream))
			var gotQuery string
			doer := doerFunc(func(r *http.Request) (*http.Response, error) {
				gotQuery = r.URL.RawQuery
				return http.DefaultClient.Do(r)
			})
			c := llmstream.NewClient(llmstream.WithDialect(tc.dialect), llmstream.WithVertex("my-proj", tc.location),
				llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey("ya29.token-123456"), llmstream.WithModel(tc.model), llmstream.WithHTTPClient(doer))
			m, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
			if err != nil || m.Content != "Hi" {
				t.Fatalf("%+v, %v", m, err)
			}
			if s.paths[0] != tc.path || gotQuery != tc.query {
				t.Errorf("path %q?%s, want %q?%s", s.paths[0], gotQuery, tc.path, tc.query)
			}
			h := s.headers[0]
			if h.Get("Authorization") != "Bearer ya29.token-123456" || h.Get("X-Goog-Api-Key") != "" || h.Get("X-Api-Key") != "" {
				t.Errorf("headers %v", h)
			}
			body := string(s.bodies[0])
			claude := tc.dialect == llmstream.DialectAnthropic
			if strings.Contains(body, `"model"`) || claude != strings.Contains(body, `"anthropic_version":"vertex-2023-10-16"`) {
				t.Errorf("body %s", body)
			}
		})
	}
}

func TestVertexDefaultHosts(t *testing.T) {
	for loc, want := range map[string]string{
		"europe-west4": "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/g:streamGenerateContent?alt=sse",
		"global":       "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/g:streamGenerateContent?alt=sse",
	} {
		var got string
		doer := doerFunc(func(r *http.Request) (*http.Response, error) {
			got = r.URL.String()
			return nil, errors.New("not sent")
		})
		c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithVertex("p", loc), llmstream.WithModel("g"), llmstream.WithHTTPClient(doer))
		c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
		if got != want {
			t.Errorf("%s: %q, want %q", loc, got, want)
		}
	}
}

func TestVertexRefusals(t *testing.T) {
	msgs := llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}}
	for name, tc := range map[string]struct {
		opts []llmstream.ClientOption
		want error
	}{
		"chat dialect":   {[]llmstream.ClientOption{llmstream.WithVertex("p", "l"), llmstream.WithModel("m")}, llmstream.ErrMisuse},
		"empty project":  {[]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithVertex("", "l"), llmstream.WithModel("m")}, llmstream.ErrInvalidRequest},
		"slash location": {[]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithVertex("p", "a/b"), llmstream.WithModel("m")}, llmstream.ErrInvalidRequest},
		"no model":       {[]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithVertex("p", "l")}, llmstream.ErrInvalidRequest},
	} {
		if _, err := llmstream.NewClient(tc.opts...).Stream(context.Background(), msgs); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

// TestNoCredentialLeaksVertex: a Vertex token, given as the key, echoed
// in every place an answer can hold text, shows in no error.
func TestNoCredentialLeaksVertex(t *testing.T) {
	srv := echoServer(t)
	cases := 0
	for _, d := range []llmstream.Dialect{llmstream.DialectGemini, llmstream.DialectAnthropic} {
		for _, e := range echoes {
			t.Run(d.String()+"/"+e.name, func(t *testing.T) {
				cases++
				c := llmstream.NewClient(llmstream.WithDialect(d), llmstream.WithVertex("p", "us-east5"), llmstream.WithModel("m"),
					llmstream.WithBaseURL(srv.URL+"/"+url.PathEscape(e.name)), llmstream.WithAPIKey(leakSecret))
				_, err := c.Stream(t.Context(), llmstream.Request{})
				if err == nil {
					t.Fatal("no error")
				}
				if where := leakIn(err, &eventLog{}); where != "" {
					t.Errorf("the token leaks in %s: %v", where, err)
				}
			})
		}
	}
	if cases == 0 {
		t.Fatal("no cases")
	}
}
