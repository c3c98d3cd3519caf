//go:build !linux

package main

// maxRSS is 0 (unknown) where getrusage's unit is not known to be KiB.
func maxRSS() uint64 { return 0 }

// cpuSeconds is 0 (unknown).
func cpuSeconds() float64 { return 0 }
