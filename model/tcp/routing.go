package tcp

// computeRoutes fills next[t][s]: the lane switch s sends on toward switch t (-1 when
// unreachable or s == t), by breadth-first search over trunks in link order, so paths have
// the fewest switch hops and ties go to the earlier link.
func (n *Network) computeRoutes() {
	ns := len(n.switches)
	n.next = make([][]int32, ns)
	n.paths = make(map[[2]int32][]int32)
	for t := range ns {
		nx := make([]int32, ns)
		for i := range nx {
			nx[i] = -1
		}
		seen := make([]bool, ns)
		seen[t] = true
		queue := []int{t}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, li := range n.switches[v].out {
				u := n.lanes[li].toSw
				if u == nil || seen[u.idx] {
					continue
				}
				seen[u.idx] = true
				nx[u.idx] = li ^ 1 // the lane from u back to v
				queue = append(queue, u.idx)
			}
		}
		n.next[t] = nx
	}
	n.routed = true
}

// path returns the lanes from interface src to interface dst, or nil if there is none.
// Paths are cached until the topology changes.
func (n *Network) path(src, dst int32) []int32 {
	if !n.routed {
		n.computeRoutes()
	}
	key := [2]int32{src, dst}
	if p, ok := n.paths[key]; ok {
		return p
	}
	first := int32(2 * n.ifaces[src].link.idx)
	last := int32(2*n.ifaces[dst].link.idx + 1)
	p := []int32{first}
	sw := n.lanes[first].toSw
	t := n.lanes[last^1].toSw
	for sw != t {
		li := n.next[t.idx][sw.idx]
		if li < 0 {
			p = nil
			break
		}
		p = append(p, li)
		sw = n.lanes[li].toSw
	}
	if p != nil {
		p = append(p, last)
	}
	n.paths[key] = p
	return p
}
