//go:build linux || darwin

package agentcli

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalColumns asks the terminal behind f for its width; 0 when it
// cannot say. It goes through SyscallConn rather than Fd, which would
// switch f to blocking mode.
func terminalColumns(f *os.File) int {
	ws, ok := windowSize(f)
	if !ok {
		return 0
	}
	return int(ws.cols)
}

// isTTY reports whether f is a terminal: it answers a terminal's ioctl.
func isTTY(f *os.File) bool {
	_, ok := windowSize(f)
	return ok
}

// winsize is the kernel's struct winsize.
type winsize struct{ rows, cols, xpixel, ypixel uint16 }

// windowSize asks the terminal behind f for its size.
func windowSize(f *os.File) (winsize, bool) {
	var ws winsize
	rc, err := f.SyscallConn()
	if err != nil {
		return ws, false
	}
	var errno syscall.Errno
	err = rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	})
	return ws, err == nil && errno == 0
}
