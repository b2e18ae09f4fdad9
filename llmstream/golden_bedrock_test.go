package llmstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
)

// bedrockFrames builds the binary body a .frames script describes, one
// line per frame ("# " lines are comments):
//
//	event <event-type> <json payload>
//	exception <exception-type> <json payload>
//	error <error-code> {"message": <error-message>}
//	badcrc     the previous frame's message CRC is wrong
//	cut <n>    the body so far loses its last n bytes
func bedrockFrames(t testing.TB, script []byte) []byte {
	t.Helper()
	var out []byte
	last := 0 // where the last frame began
	sc := bufio.NewScanner(bytes.NewReader(script))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		name, payload, _ := strings.Cut(rest, " ")
		var m eventstream.Message
		switch kind {
		case "event":
			m.Headers = []eventstream.Header{
				{Name: ":message-type", Value: eventstream.String("event")},
				{Name: ":event-type", Value: eventstream.String(name)},
				{Name: ":content-type", Value: eventstream.String("application/json")},
			}
			m.Payload = []byte(payload)
		case "exception":
			m.Headers = []eventstream.Header{
				{Name: ":message-type", Value: eventstream.String("exception")},
				{Name: ":exception-type", Value: eventstream.String(name)},
				{Name: ":content-type", Value: eventstream.String("application/json")},
			}
			m.Payload = []byte(payload)
		case "error":
			var v struct{ Message string }
			if err := json.Unmarshal([]byte(payload), &v); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			m.Headers = []eventstream.Header{
				{Name: ":message-type", Value: eventstream.String("error")},
				{Name: ":error-code", Value: eventstream.String(name)},
				{Name: ":error-message", Value: eventstream.String(v.Message)},
			}
		case "badcrc":
			out[len(out)-1] ^= 0xff
			continue
		case "cut":
			n, err := strconv.Atoi(name)
			if err != nil || n > len(out)-last {
				t.Fatalf("%q: bad cut", line)
			}
			out = out[:len(out)-n]
			continue
		default:
			t.Fatalf("unknown line %q", line)
		}
		last = len(out)
		var err error
		if out, err = eventstream.AppendFrame(out, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// bedrockOutcome is outcome with what it leaves out for Bedrock: the cache
// counts, the error's type and retryability, and the sentinels it matches.
type bedrockOutcome struct {
	outcome
	CachedTokens     int      `json:"cached_tokens,omitempty"`
	CacheWriteTokens int      `json:"cache_write_tokens,omitempty"`
	ErrorType        string   `json:"error_type,omitempty"`
	Retryable        bool     `json:"retryable,omitempty"`
	Matches          []string `json:"matches,omitempty"`
}

func bedrockOutcomeOf(t testing.TB, m Message, err error) bedrockOutcome {
	t.Helper()
	o := bedrockOutcome{outcome: outcomeOf(t, m, err)}
	if m.Usage != nil {
		o.CachedTokens, o.CacheWriteTokens = m.Usage.CachedTokens, m.Usage.CacheWriteTokens
	}
	var api *APIError
	if errors.As(err, &api) {
		o.ErrorType, o.Retryable = api.Type, api.Retryable()
	}
	for _, s := range []struct {
		name string
		err  error
	}{{"ErrInterrupted", ErrInterrupted}, {"ErrTruncated", ErrTruncated}, {"ErrBadEvent", ErrBadEvent},
		{"eventstream.ErrTruncated", eventstream.ErrTruncated}, {"eventstream.ErrBadMessageCRC", eventstream.ErrBadMessageCRC}} {
		if errors.Is(err, s.err) {
			o.Matches = append(o.Matches, s.name)
		}
	}
	return o
}

// TestBedrockGolden decodes every Bedrock script's frames whole, byte by
// byte, in random reads and split in two at every offset, and compares the
// one result with its hand-checked golden file.
func TestBedrockGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/bedrock/*.frames")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Bedrock scripts: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".frames")
		t.Run(name, func(t *testing.T) {
			data := bedrockFrames(t, readTestdata(t, "bedrock/"+name+".frames"))
			d := WithDialect(DialectBedrock)
			m, err := ReadMessage(bytes.NewReader(data), d)
			want := bedrockOutcomeOf(t, m, err)
			same := func(how string, m Message, err error) {
				t.Helper()
				if got := bedrockOutcomeOf(t, m, err); !equalJSON(got, want) {
					t.Fatalf("%s gives\n%+v\nwhole gives\n%+v", how, got, want)
				}
			}
			for how, mk := range splittings(data, uint64(len(data))) {
				m, err := ReadMessage(mk(), d)
				same(how, m, err)
			}
			for at := 1; at < len(data); at++ {
				m, err := ReadMessage(&chunkedReader{data: data, sizes: []int{at, len(data)}}, d)
				same("split at "+strconv.Itoa(at), m, err)
			}
			enc, err := json.MarshalIndent(want, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			enc = append(enc, '\n')
			golden := strings.TrimSuffix(f, ".frames") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, enc, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantEnc, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestBedrockGolden -update once, then check the file by hand)", err)
			}
			if !bytes.Equal(enc, wantEnc) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, enc, wantEnc)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
