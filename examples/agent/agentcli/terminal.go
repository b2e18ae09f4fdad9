package agentcli

import (
	"io"
	"os"
)

// defaultColumns is the width assumed for a terminal that does not say.
const defaultColumns = 80

// terminal says how w may be written to: live is set when w is a terminal
// that moves its cursor (not TERM=dumb), so lines can be redrawn in place;
// color when, in addition, NO_COLOR (any value) is unset, as
// https://no-color.org asks. columns reports the terminal's width now
// (it may change between calls), defaultColumns when it does not say.
func terminal(w io.Writer, getenv func(string) string) (live, color bool, columns func() int) {
	f, ok := w.(*os.File)
	if !ok || getenv("TERM") == "dumb" {
		return false, false, nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false, false, nil
	}
	columns = func() int {
		if n := terminalColumns(f); n > 0 {
			return n
		}
		return defaultColumns
	}
	return true, getenv("NO_COLOR") == "", columns
}

// isTerminal reports whether r is a terminal a person types into: a
// character device that answers as a terminal does (/dev/null is a
// character device too, with no one behind it).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && isTTY(f)
}
