//go:build unix

package nice

import "syscall"

func setpriority(pid, nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
}
