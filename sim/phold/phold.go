// Package phold is the PHOLD benchmark on the sim kernel, specified exactly (REFERENCE.md
// in this directory) so that its event count and checksum can be compared bit for bit with
// ns-3, SimGrid, SimPy and plain Go queues running the same model.
//
// Model: lps logical processes and pop initial events; initial event i goes to LP i mod lps at
// time delay(). Handling an event at LP x: cnt[x]++, dst = rng() mod lps, t = now + delay();
// if t <= End, schedule an event for dst at t. delay() = LA + trunc(-Mean * ln(1-u)) with
// u = (rng() >> 11) * 2^-53. rng is one splitmix64 generator seeded with Seed, called in
// exactly that order. The run drains the queue; checksum = sum of cnt[i]*(i+1).
//
// The model's generator is deliberately not a sim.Stream: the benchmark pins the generator
// so that other engines can reproduce the sequence.
package phold

import (
	"math"

	"github.com/lnetsim/lnetsim/sim"
)

// Config is one PHOLD configuration.
type Config struct {
	LPs  int      // logical processes
	Pop  int      // initial events
	End  sim.Time // last time at which an event may be scheduled
	LA   sim.Time // lookahead: minimum delay
	Mean float64  // mean of the exponential part of the delay, in nanoseconds
	Seed uint64   // splitmix64 initial state
}

// Default returns the reference parameters (LA 100us, Mean 900us, seed 42) for lps, pop, end.
func Default(lps, pop int, end sim.Time) Config {
	return Config{LPs: lps, Pop: pop, End: end, LA: 100 * sim.Microsecond, Mean: 900_000, Seed: 42}
}

// Model is a PHOLD instance bound to a kernel. It is the single sim.Handler of all its
// events; the destination LP travels in the event's kind, so no event allocates.
type Model struct {
	k     *sim.Kernel
	cfg   Config
	rng   uint64
	cnt   []uint64
	lps   uint64
	id    sim.HandlerID
	Count uint64 // events handled
}

// New builds the model on k and schedules its initial population.
func New(k *sim.Kernel, cfg Config) *Model {
	m := &Model{k: k, cfg: cfg, rng: cfg.Seed, cnt: make([]uint64, cfg.LPs), lps: uint64(cfg.LPs)}
	m.id = k.Register(m)
	for i := 0; i < cfg.Pop; i++ {
		if d := m.delay(); d <= cfg.End {
			k.Schedule(d, m.id, i%cfg.LPs, 0)
		}
	}
	return m
}

func (m *Model) delay() sim.Time {
	u := float64(sim.SplitMix64(&m.rng)>>11) * (1.0 / 9007199254740992.0)
	return m.cfg.LA + sim.Time(-m.cfg.Mean*math.Log(1.0-u))
}

// Handle processes one PHOLD event at LP lp.
func (m *Model) Handle(lp int, _ uint64) {
	m.cnt[lp]++
	m.Count++
	dst := int(sim.SplitMix64(&m.rng) % m.lps)
	if t := m.k.Now() + m.delay(); t <= m.cfg.End {
		m.k.Schedule(t, m.id, dst, 0)
	}
}

// Checksum returns sum over LPs of cnt[i]*(i+1), wrapping.
func (m *Model) Checksum() uint64 {
	var c uint64
	for i, n := range m.cnt {
		c += n * uint64(i+1)
	}
	return c
}
