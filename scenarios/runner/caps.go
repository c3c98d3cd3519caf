package runner

import (
	"errors"
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// MonitorEvery is how many events fire between two calls of Options.Monitor.
const MonitorEvery = 1 << 16

// DefaultMaxEvents is Options.MaxEvents when it is zero.
const DefaultMaxEvents = 2_000_000_000

// DefaultMaxEventsPerInstant is Options.MaxEventsPerInstant when it is zero: far more events
// than any scenario fires at one virtual instant, so reaching it means a loop of events that
// never lets time advance. The largest crowd measured is a connection storm's: `bench
// cluster --clients 10000` fires between 262,144 and 1,048,576 events at 170 us, and 100,000
// clients some ten times as many.
const DefaultMaxEventsPerInstant = 100_000_000

// CapError ends a run at a cap (--max-events, --max-memory, --max-wall): the run stopped at
// virtual time At, before it was due to end.
type CapError struct {
	Cap    string // the flag without dashes, also summary.json's incomplete value
	Detail string // what was reached, against the cap
	Arg    string // the flag's argument, for the hint: N, SIZE, DURATION
	At     sim.Time
	Err    error // the kernel's event-limit error for max-events, else nil
}

func (e *CapError) Error() string {
	return fmt.Sprintf("--%s cap reached at %s of virtual time: %s (raise it with --%s %s)", e.Cap, e.At, e.Detail, e.Cap, e.Arg)
}

func (e *CapError) Unwrap() error { return e.Err }

// runCapped runs k until the scenario's end in slices of at most MonitorEvery events,
// calling monitor (if set) between slices: the same events fire in the same order as one
// RunUntil, so a run that completes is unchanged by the slicing. It returns a *CapError
// when maxEvents, perInstant (more events than that without virtual time moving: checked
// between slices, so it ends within MonitorEvery events after) or the monitor ends the run
// first. Both event caps depend only on the run, never on the machine.
func runCapped(k *sim.Kernel, until sim.Time, maxEvents, perInstant uint64, monitor func(sim.Time, uint64) error) error {
	at, from := k.Now(), k.Fired() // the instant the run is at, and the events fired before it
	for {
		k.SetLimits(sim.Limits{MaxEvents: min(maxEvents, k.Fired()+MonitorEvery)})
		err := k.RunUntil(until)
		if !errors.Is(err, sim.ErrEventLimit) {
			return err
		}
		if k.Fired() >= maxEvents {
			return &CapError{Cap: "max-events", Arg: "N", At: k.Now(), Err: err,
				Detail: fmt.Sprintf("%d events fired, %d pending", k.Fired(), k.Pending())}
		}
		if k.Now() != at {
			at, from = k.Now(), k.Fired()
		} else if n := k.Fired() - from; n >= perInstant {
			return &CapError{Cap: "max-events-per-instant", Arg: "N", At: k.Now(), Err: err,
				Detail: fmt.Sprintf("at least %d events fired without virtual time moving: a loop of events at one instant, "+
					"which is a bug of the model (please report the scenario)", n)}
		}
		if monitor != nil {
			if err := monitor(k.Now(), k.Fired()); err != nil {
				return err
			}
		}
	}
}
