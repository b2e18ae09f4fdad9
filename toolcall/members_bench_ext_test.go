package toolcall_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

// BenchmarkMembers: member events over a text of n and 10n bytes, fed in
// 100-byte pieces: a plan (objects of strings), a dense array of tiny
// numbers (an event per two bytes) and deep nesting (paths as long as
// the text is deep). Linear means 10n costs ~10× n.
func BenchmarkMembers(b *testing.B) {
	shapes := map[string]func(n int) string{
		"plan": func(n int) string {
			var s strings.Builder
			s.WriteString(`{"steps":[`)
			for i := 0; s.Len() < n-40; i++ {
				if i > 0 {
					s.WriteByte(',')
				}
				fmt.Fprintf(&s, `{"title":"step %d","done":true}`, i)
			}
			s.WriteString(`]}`)
			return s.String()
		},
		"dense": func(n int) string { return "[" + strings.Repeat("0,", n/2-1) + "0]" },
		"deep": func(n int) string {
			return strings.Repeat("[", n/2) + strings.Repeat("]", n/2)
		},
	}
	for _, shape := range []string{"plan", "dense", "deep"} {
		for _, n := range []int{1 << 10, 10 << 10, 100 << 10, 1000 << 10} {
			if shape == "deep" && n/2 > toolcall.MaxNestingDepth {
				continue // deeper is refused
			}
			text := []byte(shapes[shape](n))
			b.Run(fmt.Sprintf("shape=%s/bytes=%d", shape, len(text)), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				events := 0
				m := toolcall.NewMembers(func(toolcall.Member) error { events++; return nil }, toolcall.WithMaxArgumentBytes(-1))
				for b.Loop() {
					m.Reset()
					for i := 0; i < len(text); i += 100 {
						if _, err := m.Write(text[i:min(i+100, len(text))]); err != nil {
							b.Fatal(err)
						}
					}
					if err := m.End(); err != nil {
						b.Fatal(err)
					}
				}
				if events == 0 {
					b.Fatal("no events")
				}
			})
		}
	}
}
