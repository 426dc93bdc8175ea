package pgcluster

import (
	"os"
	"strconv"
	"syscall"
)

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go opens its own files that way, but a descriptor the calling shell
// passed down without the flag (`exec 9>file`, the write end of a pipe
// feeding `pgbrain serve`) would otherwise outlive this process in the
// long-running server it starts, holding a FIFO open or a file busy.
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		syscall.CloseOnExec(fd)
	}
}
