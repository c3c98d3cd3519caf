package ib

// computeRoutes fills every switch's forwarding table, the way a subnet manager programs
// linear forwarding tables: for each destination port, every switch forwards on a shortest
// path of up links. Among equal-cost out lanes (in lane creation order) it takes
// candidates[LID mod len(candidates)], a stable D-mod-K-like rule that spreads destinations
// over a fat tree's spines. Routes are recomputed only when the topology is built or
// Faults.Resweep runs (a subnet manager sweep), never implicitly on a link failure. A
// three-level fat tree with all its switch links up needs no tables (treeOut); with one down,
// a sweep builds them as for any fabric, routing around it.
//
// The cost is linear in ports times switch-to-switch lanes: the search from each destination
// walks only the lanes between switches (interSwitchLanes), and the last hop is the one lane
// into the port, so a single switch with n hosts is routed in O(n).
func (f *Fabric) computeRoutes() {
	if f.routed {
		f.settle() // a route sweep
	} else {
		f.takeBack() // the first routes, or after a topology change, which settled
	}
	defer f.recountSlow()
	if f.treeRoutable() {
		for _, s := range f.switches {
			s.route = nil
		}
		f.routed = true
		return
	}
	ns := len(f.switches)
	for _, s := range f.switches {
		s.route = make([]int32, len(f.ports))
	}
	inter := f.interSwitchLanes()
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
		if p.lane < 0 {
			continue
		}
		back := p.lane ^ 1 // lane into the port
		bl := &f.lanes[back]
		if bl.from.kind != epSwitch || !bl.up {
			continue
		}
		dist[bl.from.idx] = 1
		queue = append(queue[:0], bl.from.idx)
		for qi := 0; qi < len(queue); qi++ {
			s := queue[qi]
			for _, li := range inter[s] {
				// A switch t reaches s over the lane t->s, the reverse of s->t.
				rl := &f.lanes[li]
				if !rl.up || dist[rl.to.idx] >= 0 {
					continue
				}
				dist[rl.to.idx] = dist[s] + 1
				queue = append(queue, rl.to.idx)
			}
		}
		// The switch the port is cabled to forwards on that cable, its only lane to the port.
		f.switches[bl.from.idx].route[pi] = back
		for _, si := range queue[1:] {
			d := dist[si]
			cand = cand[:0]
			for _, li := range inter[si] {
				ln := &f.lanes[li]
				if ln.up && dist[ln.to.idx] == d-1 {
					cand = append(cand, li)
				}
			}
			if len(cand) > 0 {
				f.switches[si].route[pi] = cand[int(p.LID())%len(cand)]
			}
		}
	}
	f.routed = true
}

// interSwitchLanes lists, per switch, the lanes it has to other switches, in lane creation
// order (the order of Switch.out).
func (f *Fabric) interSwitchLanes() [][]int32 {
	inter := make([][]int32, len(f.switches))
	for _, s := range f.switches {
		for _, li := range s.out {
			if f.lanes[li].to.kind == epSwitch {
				inter[s.idx] = append(inter[s.idx], li)
			}
		}
	}
	return inter
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
			li = f.outLane(f.switches[ln.to.idx], int32(dst.idx))
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

// outLane returns the lane switch s forwards a packet for port dst on, or -1 if it has none:
// its table's entry, or for a switch of a routable three-level fat tree (no table) treeOut.
func (f *Fabric) outLane(s *Switch, dst int32) int32 {
	if int(dst) < len(s.route) {
		return s.route[dst]
	}
	return f.treeOut(s, dst)
}
