package ib

// computeRoutes fills every switch's forwarding table, the way a subnet manager programs
// linear forwarding tables: for each destination port, every switch forwards on a shortest
// path of up links. Among equal-cost out lanes (in lane creation order) it takes
// candidates[LID mod len(candidates)], a stable D-mod-K-like rule that spreads destinations
// over a fat tree's spines. Routes are recomputed only when the topology is built or
// Faults.Resweep runs (a subnet manager sweep), never implicitly on a link failure.
func (f *Fabric) computeRoutes() {
	f.settle()
	ns := len(f.switches)
	for _, s := range f.switches {
		s.route = make([]int32, len(f.ports))
	}
	dist := make([]int32, ns)
	queue := make([]int32, 0, ns)
	var cand []int32
	for pi, p := range f.ports {
		for i := range dist {
			dist[i] = -1
		}
		for _, s := range f.switches {
			s.route[pi] = -1
		}
		queue = queue[:0]
		if p.lane < 0 {
			continue
		}
		back := p.lane ^ 1 // lane into the port
		bl := &f.lanes[back]
		if bl.from.kind != epSwitch || !bl.up {
			continue
		}
		dist[bl.from.idx] = 1
		queue = append(queue, bl.from.idx)
		for qi := 0; qi < len(queue); qi++ {
			s := f.switches[queue[qi]]
			for _, li := range s.out {
				// A switch t reaches s over the lane t->s, the reverse of s->t.
				rl := &f.lanes[li]
				if rl.to.kind != epSwitch || !rl.up || dist[rl.to.idx] >= 0 {
					continue
				}
				dist[rl.to.idx] = dist[s.idx] + 1
				queue = append(queue, rl.to.idx)
			}
		}
		for _, s := range f.switches {
			d := dist[s.idx]
			if d < 0 {
				continue
			}
			cand = cand[:0]
			for _, li := range s.out {
				ln := &f.lanes[li]
				if !ln.up {
					continue
				}
				if d == 1 && ln.to.kind == epPort && int(ln.to.idx) == pi {
					cand = append(cand, li)
				} else if d > 1 && ln.to.kind == epSwitch && dist[ln.to.idx] == d-1 {
					cand = append(cand, li)
				}
			}
			if len(cand) > 0 {
				s.route[pi] = cand[int(p.LID())%len(cand)]
			}
		}
	}
	f.routed = true
}

// walk follows the route from port src to port dst and calls fn on every lane, stopping
// when fn returns false. It reports whether dst was reached.
func (f *Fabric) walk(src, dst *Port, fn func(ln *lane) bool) bool {
	if !f.routed {
		f.computeRoutes()
	}
	li := src.lane
	for hops := 0; li >= 0 && hops <= len(f.switches)+1; hops++ {
		ln := &f.lanes[li]
		if !fn(ln) {
			return false
		}
		switch ln.to.kind {
		case epPort:
			return int(ln.to.idx) == dst.idx
		case epSwitch:
			li = f.switches[ln.to.idx].route[dst.idx]
		}
	}
	return false
}

// pathUp reports whether every lane from src to dst is up and both ports are active: what
// a CM MAD or an SA path query needs to get through.
func (f *Fabric) pathUp(src, dst *Port) bool {
	if src.state != PortActive || dst.state != PortActive {
		return false
	}
	return f.walk(src, dst, func(ln *lane) bool { return ln.up })
}

// pathMTU returns the smallest MTU on the route from src to dst (4096 if unroutable).
func (f *Fabric) pathMTU(src, dst *Port) int {
	m := 4096
	f.walk(src, dst, func(ln *lane) bool {
		if mt := f.links[ln.link].Spec.MTU; mt < m {
			m = mt
		}
		return true
	})
	return m
}
