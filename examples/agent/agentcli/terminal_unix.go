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
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var ws struct{ rows, cols, xpixel, ypixel uint16 }
	var errno syscall.Errno
	err = rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	})
	if err != nil || errno != 0 {
		return 0
	}
	return int(ws.cols)
}
