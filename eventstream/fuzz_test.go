package eventstream

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode holds the decoders to three invariants on any input:
//   - the Reader over random reads, and the Parser fed random chunks, give
//     the whole Reader's frames and error (with a limit drawn from seed,
//     too);
//   - every frame decoded re-encodes, through AppendFrame, to exactly its
//     bytes in the input: nothing is lost or invented;
//   - nothing panics.
//
// The seed corpus is in testdata/fuzz/FuzzDecode; the campaign: go test
// -run '^$' -fuzz FuzzDecode -fuzztime 5m ./eventstream.
func FuzzDecode(f *testing.F) {
	f.Add(concat(bedrockFrame("messageStart", `{"role":"assistant"}`), bedrockFrame("messageStop", `{"stopReason":"end_turn"}`)), uint64(0))
	f.Add(goodFrame(nil, nil), uint64(1))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var opts []Option
		if seed&1 == 1 {
			opts = append(opts, WithMaxFrameSize(16+int(seed>>1)%(len(in)+1)))
		}
		want := readAll(bytes.NewReader(in), opts...)
		for _, got := range []result{
			readAll(&chunkReader{chunks: randomChunks(in, rng)}, opts...),
			feedAll(randomChunks(in, rng), opts...),
		} {
			if diff := cmp.Diff(want, got, cmpValues, cmp.AllowUnexported(result{}), cmp.Comparer(sameErr)); diff != "" {
				t.Fatalf("chunking changed the result (-whole +split):\n%s", diff)
			}
		}
		rest := in
		for _, m := range want.Msgs {
			enc, err := AppendFrame(nil, m)
			if err != nil {
				if long(m) {
					return // legal on the wire, refused by AWS's encoders and ours
				}
				t.Fatalf("a decoded frame does not encode: %v", err)
			}
			if !bytes.HasPrefix(rest, enc) {
				t.Fatalf("frame re-encodes to\n%x\nnot the input's\n%x", enc, rest[:min(len(rest), len(enc))])
			}
			rest = rest[len(enc):]
		}
		if want.err == io.EOF && len(rest) != 0 {
			t.Fatalf("a clean end with %d bytes not decoded", len(rest))
		}
	})
}

// long reports a header value longer than AppendFrame writes.
func long(m Message) bool {
	for _, h := range m.Headers {
		if len(h.Value.b) > maxValueLen {
			return true
		}
	}
	return false
}
