package pgcluster

import (
	"os"
	"syscall"
)

// MemoryDir is /dev/shm when it is a tmpfs with at least 4 GiB free (a
// test run's databases take a few hundred MB at most), else "" (the
// default temporary directory).
func MemoryDir() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic {
		return ""
	}
	if st.Bavail*uint64(st.Bsize) < 4<<30 {
		return ""
	}
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		return ""
	}
	return "/dev/shm"
}
