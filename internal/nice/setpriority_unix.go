//go:build unix

package nice

import "syscall"

// setpriority sets process pid, and its own autogroup if it has one, to
// nice.
func setpriority(pid, nice int) error {
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice); err != nil {
		return err
	}
	return setAutogroup(pid, nice)
}
