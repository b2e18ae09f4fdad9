package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	awses "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/airlock-go/airlock/eventstream"
)

// converseFrames builds a Bedrock ConverseStream answer of n text deltas
// and a tool call, framed as Bedrock frames it (three string headers, a
// JSON payload with the "p" padding member), with eventstream.AppendFrame.
// It returns the bytes and the total payload length, which every
// iteration checks.
func converseFrames(n int) ([]byte, int) {
	words := []string{"the", "model", "streams", "tokens", "über", "naïve", "日本語", "a", "of", "to", "in"}
	rng := rand.New(rand.NewPCG(1, 2))
	const pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
	var out []byte
	payload := 0
	add := func(event, p string) {
		var err error
		out, err = eventstream.AppendFrame(out, eventstream.Message{
			Headers: []eventstream.Header{
				{Name: ":event-type", Value: eventstream.String(event)},
				{Name: ":content-type", Value: eventstream.String("application/json")},
				{Name: ":message-type", Value: eventstream.String("event")},
			},
			Payload: []byte(p),
		})
		if err != nil {
			panic(err)
		}
		payload += len(p)
	}
	add("messageStart", `{"p":"abcdefghijklmnopqrstuvwxyz","role":"assistant"}`)
	for range n {
		text := ""
		for range 1 + rng.IntN(8) {
			text += " " + words[rng.IntN(len(words))]
		}
		add("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":%q},"p":%q}`, text, pad[:1+rng.IntN(len(pad)-1)]))
	}
	add("contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijk"}`)
	add("contentBlockStart", `{"contentBlockIndex":1,"p":"abcdefgh","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}}}`)
	add("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":\"Paris\"}"}},"p":"abcd"}`)
	add("contentBlockStop", `{"contentBlockIndex":1,"p":"abcdefghijklm"}`)
	add("messageStop", `{"p":"abcdefghijklmnopqrstu","stopReason":"tool_use"}`)
	add("metadata", `{"metrics":{"latencyMs":812},"p":"abcdefghijklmnopq","usage":{"inputTokens":412,"outputTokens":96,"totalTokens":508}}`)
	return out, payload
}

// decodeAirlock decodes with eventstream.Reader. Each peer returns the
// frames and the lengths of every payload and :event-type value, summed,
// so that no peer can skip the headers.
func decodeAirlock(in []byte) (frames, sum int) {
	r := eventstream.NewReader(bytes.NewReader(in))
	for {
		m, err := r.Next()
		if err == io.EOF {
			return frames, sum
		}
		if err != nil {
			panic(err)
		}
		v, _ := m.Header(":event-type")
		frames++
		sum += len(m.Payload) + len(v.Bytes())
	}
}

// decodeAWS decodes as aws-sdk-go-v2's eventstreamapi reader does: one
// Decoder, a payload buffer reused across frames.
func decodeAWS(in []byte) (frames, sum int) {
	dec := awses.NewDecoder()
	src := bytes.NewReader(in)
	buf := make([]byte, 10*1024)
	for {
		m, err := dec.Decode(src, buf)
		if err == io.EOF {
			return frames, sum
		}
		if err != nil {
			panic(err)
		}
		v, _ := m.Headers.Get(":event-type").(awses.StringValue)
		frames++
		sum += len(m.Payload) + len(v)
	}
}

// BenchmarkEventStream decodes a ConverseStream answer's frames (no JSON):
// airlock's eventstream.Reader against aws-sdk-go-v2's Decoder, at 100 and
// 1000 deltas. Every iteration checks the frame count and the bytes of
// payloads and event types.
func BenchmarkEventStream(b *testing.B) {
	for _, n := range []int{100, 1000} {
		in, _ := converseFrames(n)
		wantFrames, wantSum := decodeAirlock(in)
		for _, peer := range []struct {
			name   string
			decode func([]byte) (int, int)
		}{{"airlock", decodeAirlock}, {"aws-sdk-go-v2", decodeAWS}} {
			b.Run(fmt.Sprintf("deltas=%d/peer=%s", n, peer.name), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				iters := 0
				for b.Loop() {
					f, s := peer.decode(in)
					if f != wantFrames || s != wantSum {
						b.Fatalf("%d frames, %d bytes; want %d, %d", f, s, wantFrames, wantSum)
					}
					iters++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters*wantFrames), "ns/frame")
			})
		}
	}
}

func TestEventStreamPeersAgree(t *testing.T) {
	in, payload := converseFrames(50)
	af, as := decodeAirlock(in)
	wf, ws := decodeAWS(in)
	if af != 57 || af != wf || as != ws || as <= payload {
		t.Errorf("airlock %d frames %d bytes, aws %d frames %d bytes (payload %d)", af, as, wf, ws, payload)
	}
}
