package llmstream_test

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// bodyDoer keeps the body of the answer it fetched.
type bodyDoer struct {
	d    llmstream.Doer
	body []byte
}

func (b *bodyDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := b.d.Do(r)
	if err != nil {
		return resp, err
	}
	b.body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b.body))
	return resp, err
}

// outputStream is the wire body llmstreamtest serves in dialect d for a
// structured answer.
func outputStream(t *testing.T, d llmstream.Dialect, text string) []byte {
	t.Helper()
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: text}))
	doer := &bodyDoer{d: srv.Client()}
	c := llmstream.NewClient(llmstream.WithDialect(d), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(doer), llmstream.WithAPIKey("k"), llmstream.WithModel("m"))
	if _, err := c.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "plan"}}}); err != nil {
		t.Fatal(err)
	}
	return doer.body
}

// readMembers decodes body from r and returns the answer and its member
// events, "path=value" each.
func readMembers(t *testing.T, d llmstream.Dialect, r io.Reader) (string, []string) {
	t.Helper()
	var events []string
	m := toolcall.NewMembers(func(e toolcall.Member) error {
		events = append(events, string(e.Path)+"="+string(e.Value))
		return nil
	})
	msg, err := llmstream.ReadMessage(r, llmstream.WithDialect(d), llmstream.WithOnDelta(llmstream.FeedMembers(m, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.End(); err != nil {
		t.Fatal(err)
	}
	return msg.Content, events
}

// TestOutputGolden: in every dialect a structured answer streamed whole,
// byte by byte and split at every point decodes to the same answer and
// the same member events, which are the golden file's.
func TestOutputGolden(t *testing.T) {
	const answer = `{"goal":"ship v2","steps":[{"title":"write the code","done":true},{"title":"test every split","done":false},{"title":"release","done":false}],"risk":null}`
	type plan struct {
		Goal  string     `json:"goal"`
		Steps []planStep `json:"steps"`
		Risk  *string    `json:"risk"`
	}
	for _, d := range allDialects {
		t.Run(d.String(), func(t *testing.T) {
			body := outputStream(t, d, answer)
			content, events := readMembers(t, d, bytes.NewReader(body))
			got := content + "\n" + strings.Join(events, "\n") + "\n"
			path := filepath.Join("testdata", "output", d.String()+".golden")
			if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Fatalf("(-golden +got):\n%s", diff)
			}
			if p, err := llmstream.DecodeOutput[plan](llmstream.Message{Content: content}); err != nil || len(p.Steps) != 3 {
				t.Errorf("DecodeOutput: %+v, %v", p, err)
			}
			check := func(how string, r io.Reader) {
				c, e := readMembers(t, d, r)
				if c != content || !cmp.Equal(e, events) {
					t.Errorf("%s: %q\n%s", how, c, cmp.Diff(events, e))
				}
			}
			check("byte by byte", iotest.OneByteReader(bytes.NewReader(body)))
			for i := range len(body) + 1 {
				check("split", io.MultiReader(bytes.NewReader(body[:i]), bytes.NewReader(body[i:])))
			}
		})
	}
}
