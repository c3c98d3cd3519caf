package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/lnetsim/lnetsim/sim"
)

// TestProgressLine: the single-run progress line shows virtual time, share, event rate and
// ETA; the monitor draws it only on the writer it is given (a terminal), and clears it.
func TestProgressLine(t *testing.T) {
	got := progressLine("long", 25*sim.Second, 100*sim.Second, 2_000_000, 2*time.Second)
	if want := "long: 25s of 100s virtual (25.0%), 1M events/s, ETA 6s"; got != want {
		t.Fatalf("progressLine = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	m := &monitor{progress: &buf, name: "long", duration: 100 * sim.Second, start: time.Now()}
	if err := m.check(25*sim.Second, 65536); err != nil {
		t.Fatal(err)
	}
	m.done()
	b := buf.String()
	if !bytes.HasPrefix(buf.Bytes(), []byte("\r\033[Klong: 25s of 100s virtual (25.0%), ")) || !bytes.HasSuffix(buf.Bytes(), []byte("\r\033[K")) {
		t.Fatalf("drawn %q", b)
	}
	quiet := &monitor{name: "long", duration: 100 * sim.Second, start: time.Now()}
	if err := quiet.check(25*sim.Second, 65536); err != nil {
		t.Fatal(err)
	}
	quiet.done()
}

// TestDefaultMaxMemory: MemTotal is read in kB; the default cap is 3/4 of what is there.
func TestDefaultMaxMemory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(file, []byte("MemFree:  100 kB\nMemTotal:       24684084 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := meminfoTotal(file); got != 24684084*1024 {
		t.Fatalf("meminfoTotal = %d", got)
	}
	if got := meminfoTotal(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Fatalf("missing file: %d", got)
	}
	v, err := parseMaxMemory("")
	if err != nil || v != uint64(float64(availableMemory())*0.75) || v == 0 {
		t.Fatalf("default --max-memory %d, %v; want 3/4 of %d", v, err, availableMemory())
	}
	if v, err := parseMaxMemory("0"); v != 0 || err != nil {
		t.Fatalf("--max-memory 0 = %d, %v; want no cap", v, err)
	}
	if v, err := parseMaxMemory("1.5GiB"); v != 3<<29 || err != nil {
		t.Fatalf("--max-memory 1.5GiB = %d, %v", v, err)
	}
}

// TestGCMemoryLimit: the collector's soft limit is 90% of the memory cap, none without a cap,
// and an explicit GOMEMLIMIT is left alone.
func TestGCMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // restore the test binary's limit
	t.Setenv("GOMEMLIMIT", "")
	if got := setGCMemoryLimit(10 << 30); got != 9663676416 || debug.SetMemoryLimit(-1) != got {
		t.Fatalf("limit %d (runtime %d), want 90%% of 10 GiB = 9663676416", got, debug.SetMemoryLimit(-1))
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if got := setGCMemoryLimit(0); got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("no cap: limit %d", got)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	if got := setGCMemoryLimit(10 << 30); got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("explicit GOMEMLIMIT overridden: %d", got)
	}
}

// TestGCPercent: run, bench and sweep set the collector's target to 400 unless GOGC is set.
func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // restore the test binary's target
	t.Setenv("GOGC", "")
	setGCPercent()
	if got := debug.SetGCPercent(100); got != 400 {
		t.Fatalf("GOGC unset: target %d, want 400", got)
	}
	t.Setenv("GOGC", "150")
	setGCPercent()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC=150 in the environment: target changed to %d", got)
	}
}
