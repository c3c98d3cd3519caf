package scenarios

import (
	"maps"
	"slices"
	"strings"
)

// routeTable is the routes the resolver has added, with where each was written, and the
// workloads whose reach is checked once the timeline is resolved.
type routeTable struct {
	from     map[*Member][]string // per member, where each of its Routes was written
	memo     map[reachKey]bool
	timeline map[string][]ResolvedRoute // member -> routes its timeline adds (route add)
	pairs    []workloadPairs
}

// workloadPairs is a workload at path p with its source and target members.
type workloadPairs struct {
	p          string
	w          *Workload
	srcs, dsts []*Member
}

// reachKey memoizes reaches: whether a member gets to a net.
type reachKey struct {
	node int // index in Scenario.Members
	net  string
}

// addRouteOnce records route rt of m written at path p; it reports a located error and
// false when m already has a route to the same net through the same gateway, as
// lnet_add_route refuses it (-EEXIST).
//
// The duplicate is looked for in m's own routes (a node has a few; a table of every node's
// routes was 1.6 M entries at 100,000 clients with 16 routes each, a third of loading).
func (r *resolver) addRouteOnce(p string, m *Member, rt ResolvedRoute) bool {
	if r.routes.from == nil {
		r.routes.from = map[*Member][]string{}
	}
	if first := r.routePath(m, rt.Net, rt.Gateway); first != "" {
		r.errorAt(p, "remove one of them: lnetctl route add refuses a second one (EEXIST)", "%s already has a route to %s via %s, from %s", m.Name, rt.Net, rt.Gateway, first)
		return false
	}
	m.Routes = append(m.Routes, rt)
	r.routes.from[m] = append(r.routes.from[m], p)
	return true
}

// routePath returns where m's route to net through gateway was written, "" if m has none.
func (r *resolver) routePath(m *Member, net string, gateway NID) string {
	for i, rt := range m.Routes {
		if rt.Gateway == gateway && rt.Net == net {
			return r.routes.from[m][i]
		}
	}
	return ""
}

// routesOf lists the routes node m has at some time of the run: its static ones and those
// its timeline adds (lnetctl route add), whenever they are added.
func (r *resolver) routesOf(m *Member) []ResolvedRoute {
	if t := r.routes.timeline[m.Name]; len(t) > 0 {
		return append(append([]ResolvedRoute{}, m.Routes...), t...)
	}
	return m.Routes
}

// timelineRoutes collects the routes the fault timeline adds, per node.
func (r *resolver) timelineRoutes() map[string][]ResolvedRoute {
	out := map[string][]ResolvedRoute{}
	for _, f := range r.s.Faults {
		if f.Action != "route add" || f.Cmd == nil {
			continue
		}
		for _, g := range f.Cmd.NIDs {
			if nid, err := ParseNID(g); err == nil {
				out[f.Node] = append(out[f.Node], ResolvedRoute{Net: f.Cmd.Net, Gateway: nid})
			}
		}
	}
	return out
}

// workloadReach checks each workload's reach (workloadRoutes) once the timeline's routes
// are known: a workload may count on a route added later in the run.
func (r *resolver) workloadReach() {
	r.routes.timeline = r.timelineRoutes()
	for _, wp := range r.routes.pairs {
		r.workloadRoutes(wp.p, wp.w, wp.srcs, wp.dsts)
	}
}

// gatewayOf is the member owning a route's gateway NID, or nil.
func (r *resolver) gatewayOf(rt ResolvedRoute) *Member { return r.s.Member(r.nids[rt.Gateway]) }

// routeLoops refuses a static route whose gateway routes back: for each remote net, the graph
// "node -> gateway of one of its routes to that net, when the gateway is not on the net
// itself" must have no cycle, or a message would circle between the routers for ever
// (LNet has no hop limit). Each cycle is reported once, at the route that closes it.
func (r *resolver) routeLoops() {
	nets := map[string]bool{}
	for i := range r.s.Members {
		for _, rt := range r.s.Members[i].Routes {
			nets[rt.Net] = true
		}
	}
	for _, net := range slices.Sorted(maps.Keys(nets)) {
		state := make([]int8, len(r.s.Members)) // 0 unseen, 1 on the stack, 2 done
		for i := range r.s.Members {
			if state[i] == 0 {
				r.loopFrom(net, i, state, nil)
			}
		}
	}
}

// loopFrom walks net's route graph depth-first from member i; stack holds the members on
// the current path.
func (r *resolver) loopFrom(net string, i int, state []int8, stack []int) {
	state[i] = 1
	stack = append(stack, i)
	m := &r.s.Members[i]
	for _, rt := range m.Routes {
		gw := r.gatewayOf(rt)
		if rt.Net != net || gw == nil || hasNet(gw, net) {
			continue
		}
		j := r.memberIndex(gw)
		switch state[j] {
		case 0:
			r.loopFrom(net, j, state, stack)
		case 1:
			r.errorAt(r.routePath(m, net, rt.Gateway), "give one of these routers an NI on "+net+" or remove a route", "route loop to %s: %s", net, r.cycle(stack, j))
		}
	}
	state[i] = 2
}

// cycle names the members of stack from the one at index j on, back to it.
func (r *resolver) cycle(stack []int, j int) string {
	var names []string
	for k := len(stack) - 1; k >= 0; k-- {
		names = append(names, r.s.Members[stack[k]].Name)
		if stack[k] == j {
			break
		}
	}
	for a, b := 0, len(names)-1; a < b; a, b = a+1, b-1 {
		names[a], names[b] = names[b], names[a]
	}
	return strings.Join(append(names, names[0]), " -> ")
}

// memberIndex is m's index in Scenario.Members.
func (r *resolver) memberIndex(m *Member) int {
	r.s.Member(m.Name) // builds the index
	return r.s.memberIndex[m.Name]
}

// reaches reports whether a message from member i can get to net: i has an NI on it, or a
// route to it through a gateway that reaches it.
func (r *resolver) reaches(i int, net string) bool {
	if r.routes.memo == nil {
		r.routes.memo = map[reachKey]bool{}
	}
	k := reachKey{i, net}
	if v, ok := r.routes.memo[k]; ok {
		return v
	}
	r.routes.memo[k] = false // a loop reaches nothing (and is refused by routeLoops)
	m := &r.s.Members[i]
	ok := hasNet(m, net)
	for _, rt := range r.routesOf(m) {
		if gw := r.gatewayOf(rt); !ok && rt.Net == net && gw != nil {
			ok = r.reaches(r.memberIndex(gw), net)
		}
	}
	r.routes.memo[k] = ok
	return ok
}

// reachesNode reports whether member i can send to member dst on one of dst's nets.
func (r *resolver) reachesNode(i int, dst *Member) bool {
	if r.s.Members[i].Name == dst.Name {
		return true
	}
	for _, ni := range dst.NIs {
		if ni.Net != "" && r.reaches(i, ni.Net) {
			return true
		}
	}
	return false
}

// workloadRoutes refuses a workload some of whose sources cannot reach a target, or, for
// rpc, whose target cannot send its bulk and reply back (new messages, routed as any); an
// ACK or REPLY goes back through the router it came from (lnet_send's rtr_nid) and needs no
// route. Such a workload would measure nothing. Pairs are those the runner makes: source i
// with target i mod len(to) for 1:1, every pair otherwise (checked against one member of
// each set of nets, as reachability depends only on them).
func (r *resolver) workloadRoutes(p string, w *Workload, srcs, dsts []*Member) {
	back := w.Type == "rpc"
	if w.Distribution == "1:1" {
		for si, src := range srcs {
			dst := dsts[si%len(dsts)]
			if !r.routed(p, w, src, dst) || back && !r.routed(p, w, dst, src) {
				return
			}
		}
		return
	}
	dirs := [][2][]*Member{{srcs, byNets(dsts)}}
	if back {
		dirs = append(dirs, [2][]*Member{dsts, byNets(srcs)})
	}
	for _, dir := range dirs {
		for _, from := range dir[0] {
			for _, to := range dir[1] {
				if !r.routed(p, w, from, to) {
					return
				}
			}
		}
	}
}

// routed reports whether from can send to to, with a located error when not.
func (r *resolver) routed(p string, w *Workload, from, to *Member) bool {
	if r.reachesNode(r.memberIndex(from), to) {
		return true
	}
	r.errorAt(p+".to", "add a route in lnet.routes through a router on both nets", "workload %s: no route from %s to %s (on %s)", w.Name, from.Name, to.Name, netsOf(to))
	return false
}

// byNets keeps the first member of each distinct set of nets.
func byNets(ms []*Member) []*Member {
	seen := map[string]bool{}
	var out []*Member
	for _, m := range ms {
		if k := netsOf(m); !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	return out
}

// netsOf lists a member's nets.
func netsOf(m *Member) string {
	seen := map[string]bool{}
	for _, ni := range m.NIs {
		seen[ni.Net] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(seen)), ", ")
}
