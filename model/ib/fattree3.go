package ib

import "fmt"

// A three-level fat tree (leaf, aggregation, core) is routed by arithmetic on its shape
// instead of forwarding tables: a table per switch by destination port costs switches x ports
// entries (3,000 switches x 100,000 ports is 1.2 GB) and the generic search of computeRoutes
// ports x links of work. outLane computes the same kind of D-mod-K choice in constant time.

// Tree3 is a three-level fat tree: leaves in pods of Radix/2, each leaf cabled to every
// aggregation switch of its pod, aggregation switch j of every pod cabled to the Radix/2
// core switches of core group j. Hosts are cabled to Leaves by the caller.
type Tree3 struct {
	Leaves []*Switch
	Down   int // host ports per leaf
}

// ftPos is a switch's place in a three-level fat tree.
type ftPos struct {
	level uint8   // ftLeaf, ftAgg, ftCore
	pod   int32   // leaves and aggregation switches: the pod
	pos   int32   // leaves: index in the pod
	up    []int32 // lanes towards the cores, in index order
	down  []int32 // aggregation: lanes to the pod's leaves; core: lanes to each pod's switch
}

const (
	ftLeaf = iota + 1
	ftAgg
	ftCore
)

// AddFatTree3 builds the switches and inter-switch links of a three-level fat tree of the
// given radix holding at least hosts host ports, with up uplinks per leaf (one to each
// aggregation switch of its pod) and radix-up host ports per leaf. Each aggregation switch
// has radix/2 ports down (one per leaf of its pod) and radix/2 up (one per core of its
// group); a core has one port per pod, so a tree holds at most radix pods, radix x radix/2
// x (radix-up) hosts. Switches are named core<i>, agg<i> and leaf<i>, numbered in creation
// order (cores, then each pod's aggregation switches and leaves).
func (f *Fabric) AddFatTree3(radix, up, hosts int, spec LinkSpec) (*Tree3, error) {
	half := radix / 2
	down := radix - up
	if radix < 4 || radix%2 != 0 || up < 1 || up > half || down < 1 || hosts < 0 {
		return nil, fmt.Errorf("ib: three-level fat tree of radix %d with %d uplinks per leaf does not fit", radix, up)
	}
	leaves := max(1, (hosts+down-1)/down)
	pods := (leaves + half - 1) / half
	if pods > radix {
		return nil, fmt.Errorf("ib: %d host ports need %d pods of %d leaves of %d host ports, more than a core's %d ports",
			hosts, pods, half, down, radix)
	}
	cores := make([]*Switch, up*half)
	for i := range cores {
		cores[i] = f.AddSwitch(fmt.Sprintf("core%d", i))
		cores[i].ft = &ftPos{level: ftCore}
	}
	t := &Tree3{Down: down}
	for p := 0; p < pods; p++ {
		aggs := make([]*Switch, up)
		for j := range aggs {
			a := f.AddSwitch(fmt.Sprintf("agg%d", p*up+j))
			a.ft = &ftPos{level: ftAgg, pod: int32(p)}
			for c := 0; c < half; c++ {
				core := cores[j*half+c]
				f.Connect(a, core, spec)
				a.ft.up = append(a.ft.up, a.out[len(a.out)-1])
				core.ft.down = append(core.ft.down, core.out[len(core.out)-1])
			}
			aggs[j] = a
		}
		for l := 0; l < half && len(t.Leaves) < leaves; l++ {
			leaf := f.AddSwitch(fmt.Sprintf("leaf%d", len(t.Leaves)))
			leaf.ft = &ftPos{level: ftLeaf, pod: int32(p), pos: int32(l)}
			for _, a := range aggs {
				f.Connect(leaf, a, spec)
				leaf.ft.up = append(leaf.ft.up, leaf.out[len(leaf.out)-1])
				a.ft.down = append(a.ft.down, a.out[len(a.out)-1])
			}
			t.Leaves = append(t.Leaves, leaf)
		}
	}
	f.tree3 = true
	return t, nil
}

// treeRoutable reports whether the fabric is one three-level fat tree with every link
// between its switches up: then outLane routes by arithmetic and no table is built.
func (f *Fabric) treeRoutable() bool {
	if !f.tree3 {
		return false
	}
	for _, s := range f.switches {
		if s.ft == nil {
			return false
		}
	}
	for i := range f.lanes {
		ln := &f.lanes[i]
		if ln.from.kind == epSwitch && ln.to.kind == epSwitch && !ln.up {
			return false
		}
	}
	return true
}

// treeOut is outLane for a switch without a table entry: -1 unless it is a switch of a
// routable three-level fat tree. There it goes down when the destination is below, else up
// on a D-mod-K choice: a leaf takes aggregation switch LID mod up, an aggregation switch
// core (LID / up) mod radix/2 of its group, so the destinations of one leaf spread over
// every core.
func (f *Fabric) treeOut(s *Switch, dst int32) int32 {
	if s.ft == nil || s.route != nil || int(dst) >= len(f.ports) {
		return -1
	}
	p := f.ports[dst]
	if p.lane < 0 {
		return -1
	}
	in := &f.lanes[p.lane^1] // the lane into the port
	if in.from.kind != epSwitch {
		return -1
	}
	leaf := f.switches[in.from.idx].ft
	if leaf == nil || leaf.level != ftLeaf {
		return -1
	}
	t := s.ft
	lid := int(dst) + 1
	switch t.level {
	case ftLeaf:
		if leaf == t {
			return p.lane ^ 1
		}
		return t.up[lid%len(t.up)]
	case ftAgg:
		if leaf.pod == t.pod {
			return t.down[leaf.pos]
		}
		return t.up[lid/len(leaf.up)%len(t.up)]
	default:
		if int(leaf.pod) >= len(t.down) {
			return -1
		}
		return t.down[leaf.pod]
	}
}
