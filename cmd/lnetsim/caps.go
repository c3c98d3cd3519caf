package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/lnetsim/lnetsim/scenarios/runner"
	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// memoryFraction is the share of the machine's (or the container's) memory a run may use
// by default: the rest is for the page cache, the results being written and other processes.
const memoryFraction = 0.75

// parseMaxMemory reads --max-memory: a size (4GiB, 8G, 500MB), 0 for no cap, or empty for
// memoryFraction of the memory available.
func parseMaxMemory(v string) (uint64, error) {
	if v == "" {
		return uint64(float64(availableMemory()) * memoryFraction), nil
	}
	z, err := units.ParseSize(v)
	if err != nil || z < 0 {
		return 0, usageErr("--max-memory %q: want a size such as 4GiB or 500MB, or 0 for no cap", v)
	}
	return uint64(z), nil
}

// gcLimitFraction is the share of the memory cap the Go collector is asked to stay under.
const gcLimitFraction = 0.9

// setGCMemoryLimit gives the Go runtime a soft memory limit (what GOMEMLIMIT sets) of
// gcLimitFraction of maxMem, so that a large run collects harder as it nears the cap instead
// of growing its heap to twice the live data (GOGC's default) and being ended there. An
// explicit GOMEMLIMIT in the environment wins; maxMem 0 (no cap) sets nothing. It returns
// the limit set, 0 for none.
func setGCMemoryLimit(maxMem uint64) int64 {
	if maxMem == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit := int64(float64(maxMem) * gcLimitFraction)
	debug.SetMemoryLimit(limit)
	return limit
}

// gcPercent is the collector's target heap growth (GOGC) of lnetsim run, bench and sweep.
// A simulation builds its cluster and connections once and then allocates little, so its
// heap is mostly long-lived state every collection marks again: at 400 the bench cluster
// (1,000 clients, 100 ms, 150 MiB live) collects 5 times instead of 13, and a sweep's
// workers, which share one heap, about once per run instead of six times. The memory limit
// (setGCMemoryLimit) still bounds a large run's heap: near it the collector runs as often
// as it must.
const gcPercent = 400

// setGCPercent sets the collector's target to gcPercent unless GOGC is set in the
// environment, which wins.
func setGCPercent() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// availableMemory is the physical memory (/proc/meminfo MemTotal) or the cgroup's memory
// limit (v2 memory.max, v1 memory.limit_in_bytes), whichever is lower; 0 when unknown.
func availableMemory() uint64 {
	total := meminfoTotal("/proc/meminfo")
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v // "max" (no limit) does not parse
		}
	}
	return total
}

// meminfoTotal reads MemTotal (in kB) from a /proc/meminfo file, in bytes; 0 when absent.
func meminfoTotal(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// processMemory is the memory the Go runtime holds from the system, less what it returned.
func processMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// monitor is a run's runner.Options.Monitor: it ends the run at --max-memory or --max-wall,
// keeps the heap on huge pages as it grows (heapPages) and, on a terminal, redraws a
// progress line. It reads the wall clock and the process's
// memory only, never simulation state beyond the time and event count it is given.
type monitor struct {
	maxMem   uint64        // bytes, 0: no cap
	maxWall  time.Duration // 0: no cap
	memory   func() uint64 // processMemory, replaced in tests
	progress io.Writer     // the terminal, or nil
	grow     func()        // heapPages.grow, or nil
	name     string
	duration sim.Time
	start    time.Time
	drawn    time.Time
}

// check is called every runner.MonitorEvery events.
func (m *monitor) check(now sim.Time, events uint64) error {
	if m.grow != nil {
		m.grow()
	}
	wall := time.Since(m.start)
	if m.maxWall > 0 && wall > m.maxWall {
		return &runner.CapError{Cap: "max-wall", Arg: "DURATION", At: now,
			Detail: fmt.Sprintf("%s of wall time, cap %s", wall.Round(time.Millisecond), m.maxWall)}
	}
	if m.maxMem > 0 {
		if used := m.memory(); used > m.maxMem {
			return &runner.CapError{Cap: "max-memory", Arg: "SIZE", At: now,
				Detail: fmt.Sprintf("%s in use, cap %s", units.Size(used>>20<<20), units.Size(m.maxMem))}
		}
	}
	if m.progress != nil && time.Since(m.drawn) >= 500*time.Millisecond {
		m.drawn = time.Now()
		fmt.Fprintf(m.progress, "\r\033[K%s", progressLine(m.name, now, m.duration, events, wall))
	}
	return nil
}

// done clears the progress line, if one was drawn.
func (m *monitor) done() {
	if m.progress != nil && !m.drawn.IsZero() {
		fmt.Fprint(m.progress, "\r\033[K")
	}
}

// progressLine is "NAME: 12s of 135s virtual (8.9%), 1.2M events/s, ETA 1m4s".
func progressLine(name string, now, duration sim.Time, events uint64, wall time.Duration) string {
	frac := float64(now) / float64(max(duration, 1))
	rate := float64(events) / max(wall.Seconds(), 1e-9)
	eta := "?"
	if frac > 0 {
		eta = time.Duration(wall.Seconds() * (1 - frac) / frac * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %s of %s virtual (%.1f%%), %.3gM events/s, ETA %s", name, now, duration, 100*frac, rate/1e6, eta)
}
