package scenarios

import "math"

// maxFirings is the most times one periodic or random fault may fire in a run: each firing
// is an event and usually a state change, so more can only exhaust the run's memory.
const maxFirings = 10_000_000

// faultLimits checks the repetition of every fault with a known action.
func (r *resolver) faultLimits() {
	for i := range r.s.Faults {
		if f := &r.s.Faults[i]; actions[f.Action] != nil {
			r.faultRepeat(index("faults", i), f)
		}
	}
}

// faultRepeat checks a fault's every and rate (after until has its default): a period
// must be positive (every: 0s would fire once), a rate written must not be 0 (it would
// fire once, at at, not never), and the firings from at to until must stay
// within maxFirings.
func (r *resolver) faultRepeat(p string, f *Fault) {
	if r.d.has(p+".every") && f.Every <= 0 {
		r.errorAt(p+".every", "remove every for a fault that fires once", "must be positive, got %s", f.Every)
		return
	}
	if r.d.has(p+".rate") && f.Rate == 0 {
		r.errorAt(p+".rate", "remove rate for a fault that fires once; leave the fault out for none", "must be positive, got 0")
		return
	}
	span := f.Until - f.At
	var n float64
	field := ".every"
	switch {
	case f.Every > 0:
		n = float64(span/f.Every) + 1
	case f.Rate > 0:
		n, field = math.Ceil(f.Rate*span.Seconds()), ".rate"
	}
	if n > maxFirings {
		r.errorAt(p+field, "fire less often, or set until to stop sooner", "the fault would fire about %.0f times from %s to %s, more than the limit of %d", n, f.At, f.Until, maxFirings)
	}
}

// fabricFits refuses a fat tree too small for the members' HCA ports, as the runner would
// when cabling it: a leaf of radix R with oversubscription down:up keeps R*up/(down+up)
// ports for uplinks (one per spine, or per aggregation switch of its pod) and the rest for
// hosts. A spine has R ports, one per leaf; in a three-level tree a pod holds R/2 leaves, an
// aggregation switch keeps R/2 ports for the cores and a core has one port per pod.
func (r *resolver) fabricFits() {
	f := &r.s.Fabric
	three := f.Topology == "fat-tree-3"
	if f.Topology != "fat-tree" && !three || f.Radix < 4 || f.Oversubscription.Down+f.Oversubscription.Up > f.Radix {
		return // unknown topology or radix: reported by fabric
	}
	up := f.Radix * f.Oversubscription.Up / (f.Oversubscription.Down + f.Oversubscription.Up)
	down := f.Radix - up
	if up < 1 || down < 1 {
		r.errorAt("fabric.oversubscription", "", "%d:%d leaves a leaf of %d ports no uplink or no host port", f.Oversubscription.Down, f.Oversubscription.Up, f.Radix)
		return
	}
	if three && up > f.Radix/2 {
		r.errorAt("fabric.oversubscription", "use 1:1 or more down ports than up", "%d:%d gives a leaf %d uplinks, more than the %d aggregation switches of a pod",
			f.Oversubscription.Down, f.Oversubscription.Up, up, f.Radix/2)
		return
	}
	ports := 0
	for i := range r.s.Members {
		ports += r.s.Members[i].HostPorts()
	}
	leaves := (ports + down - 1) / down
	switch {
	case !three && leaves > f.Radix:
		r.errorAt("fabric.radix", "use a larger radix, or more host ports per leaf: oversubscription 2:1 or 3:1, or topology fat-tree-3", "%d host ports need %d leaves of %d host ports, more than a spine's %d ports", ports, leaves, down, f.Radix)
	case three && (leaves+f.Radix/2-1)/(f.Radix/2) > f.Radix:
		r.errorAt("fabric.radix", "use a larger radix, or more host ports per leaf: oversubscription 2:1 or 3:1",
			"%d host ports need %d pods of %d leaves of %d host ports, more than a core's %d ports", ports, (leaves+f.Radix/2-1)/(f.Radix/2), f.Radix/2, down, f.Radix)
	}
}
