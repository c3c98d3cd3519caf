package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// TestMonitorDoesNotChangeResults: a run sliced every MonitorEvery events for its monitor
// writes the same bytes as one without, and the monitor sees each slice's end.
func TestMonitorDoesNotChangeResults(t *testing.T) {
	s, err := scenarios.LoadBuiltin(scenarios.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	plain, sliced := filepath.Join(base, "plain"), filepath.Join(base, "sliced")
	a, err := Run(s, Options{Out: plain})
	if err != nil {
		t.Fatal(err)
	}
	var calls []uint64
	b, err := Run(s, Options{Out: sliced, Monitor: func(_ sim.Time, events uint64) error {
		calls = append(calls, events)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Summary.Checksum != b.Summary.Checksum || a.Summary.Events != b.Summary.Events {
		t.Fatalf("sliced run: %d events, checksum %s; plain: %d, %s", b.Summary.Events, b.Summary.Checksum, a.Summary.Events, a.Summary.Checksum)
	}
	if want := int(a.Summary.Events / MonitorEvery); len(calls) != want || calls[0] != MonitorEvery {
		t.Fatalf("monitor called at %v, want %d calls, every %d events", calls, want, MonitorEvery)
	}
	if err := compareDirs(plain, sliced); err != nil {
		t.Fatal(err)
	}
}

// TestCapWritesIncompleteRun: --max-events (and any cap the monitor returns) ends the run at
// exactly that event; with WriteIncomplete its results so far are committed, summary.json
// marked incomplete with the virtual time reached and no expectation; without, nothing is
// written.
func TestCapWritesIncompleteRun(t *testing.T) {
	s, err := scenarios.LoadBuiltin(scenarios.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := Run(s, Options{Out: dir, MaxEvents: 1000, WriteIncomplete: true})
	var capErr *CapError
	if !errors.As(err, &capErr) || !errors.Is(err, sim.ErrEventLimit) || capErr.Cap != "max-events" {
		t.Fatalf("err = %v, want a max-events CapError wrapping sim.ErrEventLimit", err)
	}
	// The virtual time and queue length reached depend on the model; the count does not.
	want := fmt.Sprintf("run of rail-failure stopped: --max-events cap reached at %s of virtual time: 1000 events fired, ", capErr.At)
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), " pending (raise it with --max-events N)") || capErr.At <= 0 {
		t.Fatalf("err = %q\nwant  %q...", err, want)
	}
	sum, rerr := record.ReadSummary(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if sum.Incomplete != "max-events" || sum.Events != 1000 || sum.Duration != capErr.At.String() || sum.Expectations != nil || res.Summary.Incomplete != "max-events" {
		t.Fatalf("summary: incomplete %q, %d events, duration %s, %d expectations", sum.Incomplete, sum.Events, sum.Duration, len(sum.Expectations))
	}
	b, _ := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	if !bytes.Contains(b, []byte(`"incomplete": "max-events"`)) {
		t.Fatalf("summary.json:\n%s", b)
	}
	// A monitor's cap, and no WriteIncomplete: nothing is written.
	gone := filepath.Join(t.TempDir(), "run")
	_, err = Run(s, Options{Out: gone, Monitor: func(now sim.Time, _ uint64) error {
		return &CapError{Cap: "max-wall", Arg: "DURATION", At: now, Detail: "test"}
	}})
	if !errors.As(err, &capErr) || capErr.Cap != "max-wall" {
		t.Fatalf("err = %v, want the monitor's cap", err)
	}
	if _, serr := os.Stat(gone); !os.IsNotExist(serr) {
		t.Fatalf("a capped run without WriteIncomplete left %s", gone)
	}
}

// TestCappedThroughputCoversReachedTime: a capped run's throughput divides the bytes its
// writes moved by the virtual time it reached, not by the span it never simulated.
func TestCappedThroughputCoversReachedTime(t *testing.T) {
	s, err := scenarios.LoadBuiltin(scenarios.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(s, Options{MaxEvents: 200_000, WriteIncomplete: true})
	var capErr *CapError
	if !errors.As(err, &capErr) {
		t.Fatalf("err = %v, want a max-events cap", err)
	}
	m := res.Summary.Metrics
	done := m["writes.ops_completed"]
	if done == 0 {
		t.Fatalf("no write completed within the cap at %s", capErr.At)
	}
	want := done * float64(1<<20) * 8 / (capErr.At - s.Workload[0].Start).Seconds() / 1e9
	if got := m["writes.throughput_gbps"]; got != want {
		t.Fatalf("writes.throughput_gbps = %v, want %v (%v writes of 1MiB by %s)", got, want, done, capErr.At)
	}
}

// loopHandler schedules itself again after delay every time it fires, counting firings.
type loopHandler struct {
	k     *sim.Kernel
	h     sim.HandlerID
	delay sim.Time
	fired int
}

func (l *loopHandler) Handle(int, uint64) {
	l.fired++
	l.k.After(l.delay, l.h, 0, 0)
}

// TestStalledRunEndsWithCap: a loop of events at one instant (a zero-delay event that
// schedules itself again) ends the run with the max-events-per-instant cap, at the instant
// it is stuck at. The count starts at the first slice boundary (each slice is MonitorEvery
// events) that finds the instant, here the first, so the run ends one slice later than
// the cap counted from the loop's start; the same events one nanosecond apart run to the
// end.
func TestStalledRunEndsWithCap(t *testing.T) {
	const cap = 3 * MonitorEvery
	for _, tc := range []struct {
		delay sim.Time
		want  string // the cap, or "" for none
	}{{0, "max-events-per-instant"}, {1, ""}} {
		k := sim.New(1)
		l := &loopHandler{k: k, delay: tc.delay}
		l.h = k.Register(l)
		k.Schedule(5, l.h, 0, 0)
		err := runCapped(k, 4*cap, DefaultMaxEvents, cap, nil)
		var capErr *CapError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("delay %d: %v", tc.delay, err)
		case tc.want == "":
			if k.Now() != 4*cap || l.fired != 4*cap-4 {
				t.Errorf("delay %d: ended at %s after %d events", tc.delay, k.Now(), l.fired)
			}
		case !errors.As(err, &capErr) || capErr.Cap != tc.want || capErr.At != 5 || l.fired != cap+MonitorEvery:
			t.Errorf("delay %d: err %v after %d events, want the %s cap at 5ns after %d", tc.delay, err, l.fired, tc.want, cap+MonitorEvery)
		case !strings.Contains(err.Error(), "at least 196608 events fired without virtual time moving") ||
			!strings.HasSuffix(err.Error(), "(raise it with --max-events-per-instant N)"):
			t.Errorf("delay %d: message %q", tc.delay, err)
		}
	}
}
