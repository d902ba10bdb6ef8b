// Package process holds what the Go bench programs report of their own
// process.
package process

import (
	"os"
	"strconv"
	"strings"
)

// PeakKiB is the process's peak resident memory (VmHWM) in KiB, nil where
// the system does not say.
func PeakKiB() any {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if kib, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
				return kib
			}
		}
	}
	return nil
}
