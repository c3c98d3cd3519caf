package tcp

import "net/netip"

// Routing. A frame takes a path with the fewest switch hops over the trunks that are up.
// Where a switch has several equally short next hops (a leaf's uplinks to the spines of a
// leaf-spine fabric), it picks one per flow by hashing the flow's 5-tuple (IPv4 source and
// destination, protocol, ports), as equal-cost multipath does in L3 switches and Linux
// (fib_multipath_hash_policy 1): every frame of one TCP connection direction takes the same
// path, so a connection is never reordered by ECMP. The choice is rendezvous hashing (the
// candidate with the highest hash of flow and link wins), which behaves as switches'
// resilient hashing: when a trunk goes down only the flows that crossed it move, and when it
// comes back they return to it. Routes are recomputed as soon as a trunk goes down or up
// (the switch sees its carrier go: no routing-protocol convergence delay is modelled).

// pathKey names a flow direction: the interfaces and ports of its frames.
type pathKey struct {
	src, dst     int32
	sport, dport uint16
}

// computeRoutes forgets the routes: the distances toward each switch are found again when a
// path toward it is next needed (distTo), so a trunk going down or up costs nothing until
// traffic needs a route, and only the destinations it needs.
func (n *Network) computeRoutes() {
	n.dist = make([][]int32, len(n.switches))
	n.paths = make(map[pathKey][]int32)
	n.routed = true
}

// distTo returns dist[t][s], the fewest trunk hops from each switch s to switch t over trunks
// that are up (-1 when unreachable), by breadth-first search from t on first use.
func (n *Network) distTo(t int) []int32 {
	if d := n.dist[t]; d != nil {
		return d
	}
	d := make([]int32, len(n.switches))
	for i := range d {
		d[i] = -1
	}
	d[t] = 0
	queue := []int{t}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, li := range n.switches[v].out {
			ln := &n.lanes[li]
			if u := ln.toSw; u != nil && !ln.link.down && d[u.idx] < 0 {
				d[u.idx] = d[v] + 1
				queue = append(queue, u.idx)
			}
		}
	}
	n.dist[t] = d
	return d
}

// path returns the lanes a frame of the flow from interface src, port sport to interface
// dst, port dport crosses, or nil if no path of up trunks joins their switches (the frame is
// counted in Counters.NoRoute and not sent). Paths are cached until a trunk or the topology
// changes.
func (n *Network) path(src, dst int32, sport, dport uint16) []int32 {
	p := n.route(pathKey{src, dst, sport, dport})
	if p == nil {
		n.ctr.NoRoute++
	}
	return p
}

// route returns the cached path of a flow direction, finding it on a miss.
func (n *Network) route(key pathKey) []int32 {
	if !n.routed {
		n.computeRoutes()
	}
	p, ok := n.paths[key]
	if !ok {
		p = n.findPath(key)
		n.paths[key] = p
	}
	return p
}

// findPath walks from the source interface's switch to the destination's, taking at each
// switch the next hop one hop closer; among several, the flow hash chooses.
func (n *Network) findPath(key pathKey) []int32 {
	first := int32(2 * n.ifaces[key.src].link.idx)
	last := int32(2*n.ifaces[key.dst].link.idx + 1)
	p := []int32{first}
	sw := n.lanes[first].toSw
	t := n.lanes[last^1].toSw
	dist := n.distTo(t.idx)
	var flow uint64
	for sw != t {
		d := dist[sw.idx]
		if d < 0 {
			return nil
		}
		best, bestScore, ties := int32(-1), uint64(0), 0
		for _, li := range sw.out {
			ln := &n.lanes[li]
			if ln.toSw == nil || ln.link.down || dist[ln.toSw.idx] != d-1 {
				continue
			}
			if ties++; ties == 1 {
				best = li
				continue
			}
			if ties == 2 {
				if flow == 0 {
					flow = flowHash(n.ifaces[key.src].addr, n.ifaces[key.dst].addr, key.sport, key.dport)
				}
				bestScore = mix64(flow ^ uint64(best))
			}
			if s := mix64(flow ^ uint64(li)); s > bestScore {
				best, bestScore = li, s
			}
		}
		if best < 0 {
			return nil
		}
		p = append(p, best)
		sw = n.lanes[best].toSw
	}
	return append(p, last)
}

// flowHash hashes a TCP flow's 5-tuple (FNV-1a over the addresses, protocol 6 and ports).
func flowHash(src, dst netip.Addr, sport, dport uint16) uint64 {
	h := uint64(14695981039346656037)
	s, d := src.As4(), dst.As4()
	for _, b := range [...]byte{s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3], 6,
		byte(sport >> 8), byte(sport), byte(dport >> 8), byte(dport)} {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return mix64(h) | 1 // never 0, which findPath reads as "not computed yet"
}

// mix64 is splitmix64's finaliser: the rendezvous score of a flow hash combined with a lane.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
