//go:build unix

package nice

import (
	"fmt"
	"syscall"
)

// setpriority lowers process pid, and its own autogroup if it has one, to
// nice. Either one already at nice or a higher value keeps it: a server
// started under nice 19 has its processes there but each backend's new
// autogroup at 0, and setting 10 would raise them (or fail with EACCES
// for an unprivileged caller, leaving the autogroup alone).
func setpriority(pid, nice int) error {
	st, err := readStat(pid)
	if err != nil {
		return fmt.Errorf("reading the priority of process %d: %w", pid, err)
	}
	if st.nice < nice {
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice); err != nil {
			return err
		}
	}
	return setAutogroup(pid, nice)
}
