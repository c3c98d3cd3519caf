package main

import "syscall"

// maxRSS is the process's maximum resident set size in bytes (getrusage ru_maxrss, which
// Linux gives in KiB); 0 when unknown.
func maxRSS() uint64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Maxrss) << 10
}

// cpuSeconds is the user and system CPU time the process has used (every thread); 0 when
// unknown.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
