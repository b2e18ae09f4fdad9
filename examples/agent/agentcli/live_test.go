package agentcli

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/google/go-cmp/cmp"
)

// control matches one terminal control sequence the printer may write:
// cursor up, erase line, erase down, and the SGR styles.
var control = regexp.MustCompile(`^\x1b\[(\d*)([AKJm])`)

// screen plays out on a pretend terminal of unbounded width and returns
// its lines. It fails the test on any control character or sequence the
// printer has no business writing, and on the cursor leaving the screen.
func screen(t *testing.T, out string) []string {
	t.Helper()
	lines := [][]rune{nil}
	row, col := 0, 0
	for i := 0; i < len(out); {
		if m := control.FindStringSubmatch(out[i:]); m != nil {
			n := 1
			if m[1] != "" {
				n, _ = strconv.Atoi(m[1])
				if n == 0 && m[2] == "A" {
					t.Fatalf("cursor up 0 at byte %d (many terminals take it for 1)", i)
				}
			}
			switch m[2] {
			case "A":
				if row -= n; row < 0 {
					t.Fatalf("cursor up past the top at byte %d", i)
				}
			case "K":
				lines[row] = lines[row][:min(col, len(lines[row]))]
			case "J":
				lines[row] = lines[row][:min(col, len(lines[row]))]
				lines = lines[:row+1]
			}
			i += len(m[0])
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		i += size
		switch {
		case r == '\r':
			col = 0
		case r == '\n':
			row, col = row+1, 0
			if row == len(lines) {
				lines = append(lines, nil)
			}
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			t.Fatalf("control character %U at byte %d", r, i-size)
		default:
			for len(lines[row]) < col {
				lines[row] = append(lines[row], ' ')
			}
			if col < len(lines[row]) {
				lines[row][col] = r
			} else {
				lines[row] = append(lines[row], r)
			}
			col++
		}
	}
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = string(l)
	}
	return text
}

// tail returns the last n lines of a screen.
func tail(lines []string, n int) []string { return lines[max(len(lines)-n, 0):] }

func TestPrinterLive(t *testing.T) {
	for _, color := range []bool{false, true} {
		t.Run("color="+strconv.FormatBool(color), func(t *testing.T) {
			var b bytes.Buffer
			p, now := testPrinter(&b, 80, color)
			out := runScript(t, p, now)
			sgr := regexp.MustCompile(`\x1b\[\d*m`)
			shown := func(step int, n int) []string {
				return tail(screen(t, sgr.ReplaceAllString(out[step], "")), n)
			}
			for _, tc := range []struct {
				step int
				want []string
			}{
				{0, []string{"  0.0s"}},
				{1, []string{"  0.3s · turn 1 · waiting for the model"}},
				// Streaming text: the region is off the screen, the text
				// line left open.
				{2, []string{"Reading a.md, and searching."}},
				{3, []string{"Reading a.md, and searching.", "  ◦ read_file_safe …", "  1.3s · turn 1 · receiving, 28 B"}},
				// Calls interleave; each keeps its line, in index order.
				{6, []string{"Reading a.md, and searching.", "  ◦ read_file_safe {} …", "  ◦ search {} …", "  ◦ list_files …", "  1.3s · turn 1 · receiving, 43 B"}},
				{8, []string{"  ◦ read_file_safe {\"path\":\"a.md\"} …", "  ◦ search {\"pattern\":\"TO\"} …", "  ◦ list_files …", "  1.3s · turn 1 · receiving, 56 B"}},
				// A formed call leaves the region for the transcript.
				{9, []string{"Reading a.md, and searching.", "  ◦ read_file_safe {\"path\":\"a.md\"} formed from 4 fragments", "  ◦ search {\"pattern\":\"TO\"} …", "  ◦ list_files …", "  1.3s · turn 1 · receiving, 58 B"}},
				{11, []string{"  ◦ list_files {} formed from 1 fragment", "  2.3s · turn 1 · 120 tokens so far"}},
				{12, []string{"  ◦ list_files {} formed from 1 fragment", "  2.3s · turn 1 · running read_file_safe · 120 tokens so far"}},
				{14, []string{"  • list_files {} → 20 B, 2ms", "  3.3s · turn 2 · waiting for the model · 120 tokens so far"}},
				// Text that ends its line still keeps the region away
				// until the turn ends: no flicker between lines.
				{15, []string{"  • list_files {} → 20 B, 2ms", "a.md is a readme.", ""}},
				{17, []string{"Done.", "  3.3s · turn 2 · 320 tokens so far"}},
			} {
				if diff := cmp.Diff(tc.want, shown(tc.step, len(tc.want))); diff != "" {
					t.Errorf("after step %d, the screen ends (-want +got):\n%s", tc.step, diff)
				}
			}
			// In the end the screen holds the transcript and nothing else:
			// the same as off a terminal.
			got := strings.Join(screen(t, sgr.ReplaceAllString(b.String(), "")), "\n")
			if diff := cmp.Diff(scriptTranscript, got); diff != "" {
				t.Errorf("final screen (-want +got):\n%s", diff)
			}
		})
	}
}

// Lines of the region are cut to the terminal's width less one column, so
// none wraps and "up n lines" stays exact.
func TestPrinterLiveCutsToWidth(t *testing.T) {
	var b bytes.Buffer
	p, _ := testPrinter(&b, 30, false)
	p.begin()
	f := newFeed(t, p)
	f.call(0, "read_file_safe", `{"path":"`+strings.Repeat("日本", 20))
	for _, line := range tail(screen(t, b.String()), 2) {
		cols := 0
		for _, r := range line {
			cols++
			if r >= 0x1100 {
				cols++
			}
		}
		if cols > 29 {
			t.Errorf("line of %d columns on a terminal of 30: %q", cols, line)
		}
	}
}

func TestClipColumns(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "abc…"},
		{"", 5, ""},
		{"日本語", 6, "日本語"},
		{"日本語x", 6, "日本…"},
		{"a日本語", 6, "a日…"},
	} {
		if got := clipColumns(tc.s, tc.n); got != tc.want {
			t.Errorf("clipColumns(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// The clock redraws the status line while nothing else happens, and stops
// (goroutine and all, which goleak checks) when told.
func TestPrinterClock(t *testing.T) {
	var b bytes.Buffer
	p, now := testPrinter(&b, 60, false)
	p.begin()
	p.modelStart(agentloop.ModelStart{Turn: 1})
	p.mu.Lock()
	*now = now.Add(5 * time.Second)
	p.mu.Unlock()
	stop := p.startClock(time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.mu.Lock()
		s := b.String()
		p.mu.Unlock()
		if strings.Contains(s, "5.0s · turn 1 · waiting for the model") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clock never redrew: %q", s)
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	p.summary(agentloop.Result{}, time.Second, nil)
	if got := tail(screen(t, b.String()), 3); got[0] != "" || !strings.HasPrefix(got[1], "done: ") || got[2] != "" {
		t.Errorf("screen ends %q; want the closing line alone", got)
	}
}

// Off a terminal there is no clock to stop.
func TestPrinterClockOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p, _ := testPrinter(&b, 0, false)
	p.startClock(time.Millisecond)()
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}

// Argument progress alone redraws at most once an interval; a new call,
// or a call's line going into the transcript, redraws at once.
func TestPrinterLiveThrottles(t *testing.T) {
	var b bytes.Buffer
	p, now := testPrinter(&b, 80, false)
	p.live.every = 40 * time.Millisecond
	p.begin()
	f := newFeed(t, p)
	f.call(0, "search", `{"pattern":"a`)
	if got := tail(screen(t, b.String()), 2)[0]; got != `  ◦ search {"pattern":"a"} …` {
		t.Errorf("a new call not shown at once: %q", got)
	}
	drawn := b.Len()
	f.call(0, "", `b`)
	if b.Len() != drawn {
		t.Errorf("redrawn within the interval: %q", b.String()[drawn:])
	}
	*now = now.Add(40 * time.Millisecond)
	f.call(0, "", `c`)
	if got := tail(screen(t, b.String()), 2)[0]; got != `  ◦ search {"pattern":"abc"} …` {
		t.Errorf("after the interval the region shows %q", got)
	}
	f.call(0, "", `"}`)
	if got := tail(screen(t, b.String()), 2)[0]; got != `  ◦ search {"pattern":"abc"} formed from 4 fragments` {
		t.Errorf("a formed call not shown at once: %q", got)
	}
}
