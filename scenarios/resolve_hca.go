package scenarios

import (
	"sort"

	"github.com/lnetsim/lnetsim/sim"
)

// HCA fault timeline checks. A fatal HCA (IB_EVENT_DEVICE_FATAL) stops raising events: its
// ports cannot report PORT_ACTIVE until the device is reset and re-probed, which is what
// hca_recover (or hca_fatal's for:) models. The loader follows each HCA's fatal state through
// the one-shot faults and rejects the two timelines that cannot do what they say: a
// port_active on a port of an HCA that is fatal at that time (it would not bring the NI
// back), and an hca_recover of an HCA that is not fatal then (it would do nothing).
// Periodic and random faults make the state unknown from their first occurrence on, and
// unknown states are not checked.

// hcaEffect is an action's part in the HCA timeline.
type hcaEffect int

const (
	hcaNone      hcaEffect = iota
	hcaFails               // the NI's HCA turns fatal; for: resets it
	hcaResets              // the NI's HCA is reset (refused when it is not fatal)
	hcaPortEvent           // the NI's port raises an event (refused while its HCA is fatal)
	hcaNodeDown            // the node goes down; its reboot after for: resets every HCA
	hcaNodeBoot            // the node reboots: every HCA is reset
)

// hcaID names one HCA of one member.
type hcaID struct {
	member string
	hca    int
}

// hcaState is an HCA's fatal state at a point of the timeline.
type hcaState int

const (
	hcaOK hcaState = iota
	hcaFatal
	hcaUnknown
)

// hcaStep is one change of an HCA's fatal state. Steps at the same time apply in the order
// the run fires them: first occurrences in fault order, then for: undos (which the run
// schedules only when their fault fires).
type hcaStep struct {
	at    sim.Time
	undo  bool
	fault int
	to    hcaState
}

func (a hcaStep) before(b hcaStep) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.undo != b.undo {
		return !a.undo
	}
	return a.fault < b.fault
}

// hcaOf resolves a fault's NI to its HCA; ok is false when the reference does not resolve
// (already reported).
func (r *resolver) hcaOf(ref string) (hcaID, bool) {
	m, i, err := r.s.ResolveNI(ref)
	if err != nil {
		return hcaID{}, false
	}
	return hcaID{m.Name, m.NIs[i].HCA}, true
}

// hcaSteps lists the fatal-state changes of HCA h, in firing order.
func (r *resolver) hcaSteps(h hcaID) []hcaStep {
	var steps []hcaStep
	for i := range r.s.Faults {
		f := &r.s.Faults[i]
		once := f.Every == 0 && f.Rate == 0
		eff := hcaNone
		if a := actions[f.Action]; a != nil {
			eff = a.HCA
		}
		var on bool
		switch eff {
		case hcaFails, hcaResets:
			id, ok := r.hcaOf(f.NI)
			on = ok && id == h
		case hcaNodeDown, hcaNodeBoot:
			// A reboot brings every HCA of the node back as a fresh device.
			on = f.Node == h.member && (eff == hcaNodeBoot || f.For > 0)
		}
		if !on {
			continue
		}
		switch {
		case !once:
			steps = append(steps, hcaStep{at: f.At, fault: i, to: hcaUnknown})
		case eff == hcaFails:
			steps = append(steps, hcaStep{at: f.At, fault: i, to: hcaFatal})
			if f.For > 0 {
				steps = append(steps, hcaStep{at: f.At + f.For, undo: true, fault: i, to: hcaOK})
			}
		case eff == hcaNodeDown:
			steps = append(steps, hcaStep{at: f.At + f.For, undo: true, fault: i, to: hcaOK})
		default: // hcaResets, hcaNodeBoot
			steps = append(steps, hcaStep{at: f.At, fault: i, to: hcaOK})
		}
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].before(steps[b]) })
	return steps
}

// hcaStateBefore replays steps up to (not including) fault i's first occurrence: the state
// then, and the step that last changed it (nil when it never changed: a reboot of a healthy
// HCA changes nothing).
func hcaStateBefore(steps []hcaStep, i int, at sim.Time) (hcaState, *hcaStep) {
	st, by := hcaOK, (*hcaStep)(nil)
	me := hcaStep{at: at, fault: i}
	for k := range steps {
		s := &steps[k]
		if !s.before(me) {
			break
		}
		if st == hcaUnknown {
			break
		}
		if s.to != st {
			st, by = s.to, s
		}
	}
	return st, by
}

// hcaTimeline reports port_active faults on fatal HCAs and hca_recover faults on HCAs that
// are not fatal.
func (r *resolver) hcaTimeline() {
	cache := map[hcaID][]hcaStep{}
	for i := range r.s.Faults {
		f := &r.s.Faults[i]
		a := actions[f.Action]
		if a == nil || (a.HCA != hcaPortEvent && a.HCA != hcaResets) {
			continue
		}
		h, ok := r.hcaOf(f.NI)
		if !ok {
			continue
		}
		steps, ok := cache[h]
		if !ok {
			steps = r.hcaSteps(h)
			cache[h] = steps
		}
		st, by := hcaStateBefore(steps, i, f.At)
		p := index("faults", i) + ".action"
		switch {
		case a.HCA == hcaPortEvent && st == hcaFatal:
			r.errorAt(p, "a fatal HCA comes back through a device reset: use action hca_recover",
				"%s on %s at %s: its HCA (hca %d of %s) is fatal since %s (faults[%d]) and raises no port events",
				f.Action, f.NI, f.At, h.hca, h.member, by.at, by.fault)
		case a.HCA == hcaResets && st == hcaOK && by == nil:
			r.errorAt(p, "recover an HCA after an hca_fatal on it",
				"%s on %s at %s: no earlier hca_fatal on its HCA (hca %d of %s)", f.Action, f.NI, f.At, h.hca, h.member)
		case a.HCA == hcaResets && st == hcaOK:
			r.errorAt(p, "recover an HCA after an hca_fatal on it",
				"%s on %s at %s: its HCA (hca %d of %s) is not fatal then (recovered at %s by faults[%d])",
				f.Action, f.NI, f.At, h.hca, h.member, by.at, by.fault)
		}
	}
}
