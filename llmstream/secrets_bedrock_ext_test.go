package llmstream_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// bedrockEchoes are the places a Bedrock answer can repeat the request's
// credentials: its error JSON and header, and its frames.
var bedrockEchoes = []struct {
	name  string
	serve func(w http.ResponseWriter, echo string)
}{
	{"Bedrock error body", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", "ValidationException:"+echo)
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": echo, "__type": echo})
	}},
	{"Bedrock exception frame", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		msg, _ := json.Marshal(map[string]string{"message": echo})
		writeFrame(w, eventstream.Message{Headers: []eventstream.Header{
			{Name: ":message-type", Value: eventstream.String("exception")},
			{Name: ":exception-type", Value: eventstream.String("throttlingException" + echo)},
		}, Payload: msg})
	}},
	{"Bedrock error frame", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		writeFrame(w, eventstream.Message{Headers: []eventstream.Header{
			{Name: ":message-type", Value: eventstream.String("error")},
			{Name: ":error-code", Value: eventstream.String(echo)},
			{Name: ":error-message", Value: eventstream.String(echo)},
		}})
	}},
	{"Bedrock malformed event", func(w http.ResponseWriter, echo string) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		writeFrame(w, eventstream.Message{Headers: []eventstream.Header{
			{Name: ":message-type", Value: eventstream.String("event")},
			{Name: ":event-type", Value: eventstream.String("contentBlockDelta")},
		}, Payload: []byte(`{"delta": ` + echo)})
	}},
}

func writeFrame(w io.Writer, m eventstream.Message) {
	b, err := eventstream.AppendFrame(nil, m)
	if err != nil {
		panic(err)
	}
	w.Write(b)
}

// TestNoCredentialLeaksBedrock is the leak matrix for DialectBedrock: the
// Bedrock answers' own echoes and every generic one, every construction,
// every place of a credential.
func TestNoCredentialLeaksBedrock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode, echo := echoOf(r)
		for _, e := range bedrockEchoes {
			if e.name == mode {
				e.serve(w, echo)
				return
			}
		}
		for _, e := range echoes {
			if e.name == mode {
				e.serve(w, echo)
				return
			}
		}
		http.Error(w, "unknown echo "+mode, http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	names := []string{}
	for _, e := range bedrockEchoes {
		names = append(names, e.name)
	}
	for _, e := range echoes {
		names = append(names, e.name)
	}
	doers := map[string]func(*eventLog) llmstream.Doer{
		"default": nil,
		"transport.New": func(log *eventLog) llmstream.Doer {
			return transport.New(transport.WithRetry(0, 0, 0), transport.WithObserver(log.add))
		},
		"*http.Client": func(*eventLog) llmstream.Doer { return &http.Client{} },
	}
	cases := 0
	for _, echo := range names {
		for dname, doer := range doers {
			for _, cred := range credentials {
				t.Run(echo+"/"+dname+"/"+cred.name, func(t *testing.T) {
					cases++
					log := &eventLog{}
					base, o := cred.opts(srv.URL + "/" + url.PathEscape(echo))
					o = append(o, llmstream.WithBaseURL(base), llmstream.WithDialect(llmstream.DialectBedrock))
					if doer != nil {
						o = append(o, llmstream.WithHTTPClient(doer(log)))
					}
					_, err := llmstream.NewClient(o...).Stream(t.Context(), llmstream.Request{Model: "m"})
					if err == nil {
						t.Fatal("no error")
					}
					if where := leakIn(err, log); where != "" {
						t.Errorf("the credential leaks in %s: %v", where, err)
					}
				})
			}
		}
	}
	t.Logf("Bedrock leak matrix: %d cases", cases)
}
