//go:build unix

package bench

import (
	"fmt"
	"syscall"
)

// RaiseNofile raises the soft RLIMIT_NOFILE to the hard limit (Go already
// does this at start-up since 1.19; this makes it explicit) and fails if the
// hard limit is below need (each held stream costs one descriptor per side).
func RaiseNofile(need uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, err
		}
	}
	if lim.Cur < need {
		return lim.Cur, fmt.Errorf("RLIMIT_NOFILE is %d (hard limit), need %d: raise it (ulimit -Hn) or use fewer streams", lim.Cur, need)
	}
	return lim.Cur, nil
}
