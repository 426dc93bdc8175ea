//go:build !unix

package nice

import "errors"

func setpriority(pid, nice int) error {
	return errors.New("process priorities are not supported on this system")
}
