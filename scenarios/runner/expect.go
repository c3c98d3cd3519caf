package runner

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// Expectation event kinds: arg is the expectation's index.
const (
	evExpectFrom = iota + 1 // snapshot the state a delta or "changed" is measured from
	evExpectAt              // evaluate a state check (health, ni_status, stats)
)

// checker evaluates the scenario's expectations. State checks read the model at their
// time; record checks accumulate as messages and operations complete (acc), so nothing is
// kept per message.
type checker struct {
	cluster   *cluster
	scenario  *scenarios.Scenario
	workloads *workloads
	faults    *faultState // lnetctl command outcomes
	hid       sim.HandlerID
	fromVal   []int64 // value snapshotted at From (health, stats)
	acc       []accum
	results   []record.Expectation
	// paths: some expectation is a path check (it reads a message's attempts); byWorkload:
	// some expectation counts only one workload's messages (it needs their attribution).
	paths, byWorkload bool
}

// accum is a record check's running value.
type accum struct {
	wi    int        // workload index, -1 none given
	hops  []lnet.NID // path: the via NIs
	via   []*node    // path: the node of each via NI
	n     int64      // messages, path attempts
	bytes int64      // throughput
	lat   hist       // latency
}

// newChecker prepares s's expectations over cluster c, its workloads ws and its fault
// timeline f (whose lnetctl command outcomes some expectations read).
func newChecker(c *cluster, s *scenarios.Scenario, ws *workloads, f *faultState) (*checker, error) {
	ch := &checker{cluster: c, scenario: s, workloads: ws, faults: f, fromVal: make([]int64, len(s.Expect)), acc: make([]accum, len(s.Expect)), results: make([]record.Expectation, len(s.Expect))}
	ch.hid = c.k.Register(ch)
	for i := range s.Expect {
		e := &s.Expect[i]
		a := &ch.acc[i]
		a.wi = -1
		if e.Workload != "" {
			a.wi = ch.workloadIndex(e.Workload)
		}
		ch.paths = ch.paths || e.Check == "path"
		ch.byWorkload = ch.byWorkload || a.wi >= 0
		for _, ref := range e.Via {
			n, nid, err := c.niRef(ref)
			if err != nil {
				return nil, fmt.Errorf("expect %s: %w", e.Name, err)
			}
			a.hops = append(a.hops, nid)
			a.via = append(a.via, n)
		}
		if err := checkVia(a); err != nil {
			return nil, fmt.Errorf("expect %s: %w", e.Name, err)
		}
	}
	return ch, nil
}

// readsPaths reports whether onMsg needs a message's attempts.
func (ch *checker) readsPaths() bool { return ch.paths }

// readsWorkloads reports whether onMsg needs the workload a message belongs to: without an
// expectation of one workload it ignores it.
func (ch *checker) readsWorkloads() bool { return ch.byWorkload }

// checkVia refuses a path that is not hops in pairs (a sending NI, then the next hop's NI on
// the same net), each next hop but the last a router that forwards from another of its NIs.
func checkVia(a *accum) error {
	if len(a.hops) == 0 {
		return nil
	}
	if len(a.hops)%2 != 0 {
		return fmt.Errorf("via lists hops in pairs (sending NI, next hop), %d NIs given", len(a.hops))
	}
	for j := 0; j < len(a.hops); j += 2 {
		if a.hops[j].Net() != a.hops[j+1].Net() {
			return fmt.Errorf("via %s and %s: a hop stays on one net", a.hops[j], a.hops[j+1])
		}
		if j > 0 && a.via[j] != a.via[j-1] {
			return fmt.Errorf("via %s then %s: a router forwards from one of its own NIs", a.hops[j-1], a.hops[j])
		}
	}
	return nil
}

// pathCount returns how many of a finished message's attempts in e's window follow the path:
// on the sending node for a direct path; for a routed one, on the last router, the forwarded
// message's attempts over the last hop whose header source is the path's first NI (LNet's
// records carry no identity across routers: the NIs in between are checked by checkVia).
func (ch *checker) pathCount(e *scenarios.Expectation, a *accum, r *lnet.MsgRecord, w int, atts []attempt) int64 {
	last := len(a.hops) - 2
	origin := a.via[0]
	if r.Node != a.via[last].name || (e.Node != "" && e.Node != origin.name) {
		return 0
	}
	if last > 0 {
		if r.Src != a.hops[0] {
			return 0
		}
		if a.wi >= 0 {
			o := *r
			o.Node = origin.name
			w = ch.workloads.attribute(&o)
		}
	}
	if a.wi >= 0 && w != a.wi {
		return 0
	}
	var n int64
	for _, at := range atts {
		if inWindow(e, at.t) && at.txNI == a.hops[last] && at.nextH == a.hops[last+1] {
			n++
		}
	}
	return n
}

func inWindow(e *scenarios.Expectation, t sim.Time) bool { return t >= e.From && t <= e.At }

// onMsg feeds a finalized message (attributed to workload w, -1 none) to the message, path and
// (message) latency checks.
func (ch *checker) onMsg(r *lnet.MsgRecord, w int, atts []attempt) {
	for i := range ch.scenario.Expect {
		e := &ch.scenario.Expect[i]
		a := &ch.acc[i]
		if e.Check == "path" {
			a.n += ch.pathCount(e, a, r, w, atts)
			continue
		}
		if a.wi >= 0 && w != a.wi {
			continue
		}
		switch e.Check {
		case "messages":
			if !inWindow(e, r.End) || (e.Node != "" && r.Node != e.Node) || (e.Type != "" && !strings.EqualFold(r.Type.String(), e.Type)) {
				continue
			}
			ok := msgOK(r)
			switch e.Status {
			case "ok":
				if !ok {
					continue
				}
			case "failed":
				if ok {
					continue
				}
			default:
				if r.HStatus.String() != e.Status {
					continue
				}
			}
			a.n++
		case "latency":
			if a.wi < 0 && msgOK(r) && inWindow(e, r.End) && (e.Type == "" || strings.EqualFold(r.Type.String(), e.Type)) {
				a.lat.add(int64(r.End - r.Start))
			}
		}
	}
}

// onOp feeds a finished workload operation to the operations, latency and throughput
// checks.
func (ch *checker) onOp(o *op) {
	w := o.stream.workload.idx
	for i := range ch.scenario.Expect {
		e := &ch.scenario.Expect[i]
		a := &ch.acc[i]
		if !inWindow(e, o.end) || (a.wi >= 0 && w != a.wi) {
			continue
		}
		if e.Check == "operations" {
			if (e.Node == "" || o.stream.src.name == e.Node) && (o.status == 0) == (e.Status == "ok") {
				a.n++
			}
			continue
		}
		if o.status != 0 {
			continue
		}
		switch e.Check {
		case "latency":
			if a.wi >= 0 {
				a.lat.add(int64(o.end - o.start))
			}
		case "throughput":
			if e.Node == "" || o.stream.src.name == e.Node {
				a.bytes += int64(o.size)
			}
		}
	}
}

// stateCheck reports whether e reads live model state, so it must be evaluated at its time.
func stateCheck(e *scenarios.Expectation) bool {
	switch e.Check {
	case "health", "ni_status", "stats", "route", "lnetctl", "command", "console", "sockets":
		return true
	}
	return false
}

// schedule queues the snapshots and evaluations of state checks. Expectations evaluated at
// the end of the run are queued too, so they see the state at exactly Duration.
func (ch *checker) schedule() {
	for i := range ch.scenario.Expect {
		e := &ch.scenario.Expect[i]
		if !stateCheck(e) {
			continue
		}
		if e.Check == "stats" || e.Changed != nil && e.Check != "lnetctl" {
			ch.cluster.k.Schedule(e.From, ch.hid, evExpectFrom, uint64(i))
		}
		ch.cluster.k.Schedule(e.At, ch.hid, evExpectAt, uint64(i))
	}
}

// Handle snapshots or evaluates expectation arg.
func (ch *checker) Handle(kind int, arg uint64) {
	i := int(arg)
	e := &ch.scenario.Expect[i]
	if e.Check == "lnetctl" {
		ch.results[i] = ch.lnetctl(e)
		return
	}
	if e.Check == "command" {
		ch.results[i] = ch.commandCheck(e)
		return
	}
	v, err := ch.stateValue(e)
	switch kind {
	case evExpectFrom:
		ch.fromVal[i] = v
	case evExpectAt:
		if err != nil {
			ch.results[i] = record.Expectation{Name: e.Name, Passed: false, Detail: err.Error()}
			return
		}
		if e.Check == "stats" && !fmrGauges[e.Counter] {
			v -= ch.fromVal[i]
		}
		ch.results[i] = ch.judge(e, i, v, "")
	}
}

// stateValue reads the live value a state check looks at.
func (ch *checker) stateValue(e *scenarios.Expectation) (int64, error) {
	switch e.Check {
	case "health":
		if e.PeerNI != "" {
			_, nid, err := ch.cluster.niRef(e.PeerNI)
			if err != nil {
				return 0, err
			}
			var best int64 = -1
			for _, n := range ch.observers(e.Node) {
				if lpni := n.ln.PeerNI(nid); lpni != nil {
					best = max(best, int64(lpni.Health()))
				}
			}
			if best < 0 {
				return 0, fmt.Errorf("no node knows peer NI %s", nid)
			}
			return best, nil
		}
		n, nid, err := ch.cluster.niRef(e.NI)
		if err != nil {
			return 0, err
		}
		for _, ni := range n.ln.NIs() {
			if ni.NID() == nid {
				return int64(ni.Health()), nil
			}
		}
		return 0, fmt.Errorf("NI %s not found", nid)
	case "ni_status":
		n, nid, err := ch.cluster.niRef(e.NI)
		if err != nil {
			return 0, err
		}
		for _, ni := range n.ln.NIs() {
			if ni.NID() == nid {
				if ni.Status() == lnet.NIStatusUp {
					return 1, nil
				}
				return 0, nil
			}
		}
		return 0, fmt.Errorf("NI %s not found", nid)
	case "stats":
		var sum int64
		for _, n := range ch.observers(e.Node) {
			v, ok := counter(n.ln.Stats(), e.Counter)
			if !ok {
				v, ok = routerCounter(n.ln.RouterStats(), e.Counter)
			}
			if !ok {
				v, ok = ch.cluster.fmrCounter(n, e.Counter)
			}
			if !ok {
				return 0, fmt.Errorf("unknown counter %q", e.Counter)
			}
			sum += v
		}
		return sum, nil
	case "console":
		n := ch.cluster.byName[e.Node]
		if n == nil {
			return 0, fmt.Errorf("console check needs node")
		}
		var c int64
		for _, l := range n.ln.Console() {
			if l.Time >= e.From && strings.Contains(l.Text, e.Match) {
				c++
			}
		}
		return c, nil
	case "sockets":
		return ch.sockets(e)
	case "route":
		n := ch.cluster.byName[e.Node]
		if n == nil {
			return 0, fmt.Errorf("route check needs node")
		}
		_, gw, err := ch.cluster.niRef(e.Gateway)
		if err != nil {
			if gw, err = lnet.ParseNID(e.Gateway); err != nil {
				return 0, err
			}
		}
		net, err := lnet.ParseNet(e.Net)
		if err != nil {
			return 0, err
		}
		for _, r := range n.ln.Routes() {
			if r.Net == net.LnetctlString() && r.Gateway == gw.String() {
				if r.State == "up" {
					return 1, nil
				}
				return 0, nil
			}
		}
		if e.State == "absent" {
			return -1, nil
		}
		return 0, fmt.Errorf("node %s has no route to %s via %s", n.name, net, gw)
	}
	return 0, fmt.Errorf("not a state check")
}

func (ch *checker) observers(name string) []*node {
	if name == "" {
		return ch.cluster.nodes
	}
	if n := ch.cluster.byName[name]; n != nil {
		return []*node{n}
	}
	return nil // the loader makes names canonical; an unknown one observes nothing
}

// fmrGauges are the o2ib FastReg counters that are states, not counts: a stats check reads
// them at `at`, whatever its `from`.
var fmrGauges = map[string]bool{"o2ib_fmr_in_use": true, "o2ib_fmr_pools": true}

// fmrCounter reads an o2iblnd FastReg pool counter of node n, summed over its o2ib NIs that
// are up (no lnetctl command prints them): o2ib_fmr_maps (descriptors taken by maps),
// o2ib_fmr_map_errors (maps that failed), o2ib_fmr_unmaps (descriptors given back at
// kiblnd_tx_done), o2ib_fmr_in_use (descriptors out of their pools now) and o2ib_fmr_pools
// (pools now). A node without o2ib NIs, or on the ideal backend, reads 0.
func (c *cluster) fmrCounter(n *node, name string) (int64, bool) {
	switch name {
	case "o2ib_fmr_maps", "o2ib_fmr_map_errors", "o2ib_fmr_unmaps", "o2ib_fmr_in_use", "o2ib_fmr_pools":
	default:
		return 0, false
	}
	var sum int64
	if c.fab == nil { // the ideal backend: no o2iblnd
		return 0, true
	}
	for _, ni := range n.ln.NIs() {
		p, ok := c.fab.lnd.FMRPools(ni) // false for an NI of another LND
		if !ok {
			continue
		}
		sum += map[string]int64{"o2ib_fmr_maps": int64(p.Maps), "o2ib_fmr_map_errors": int64(p.MapErrors),
			"o2ib_fmr_unmaps": int64(p.Unmaps), "o2ib_fmr_in_use": int64(p.InUse), "o2ib_fmr_pools": int64(p.Pools)}[name]
	}
	return sum, true
}

// counter reads an `lnetctl stats show` counter by name.
func counter(c lnet.Counters, name string) (int64, bool) {
	m := map[string]uint64{
		"resend_count": c.ResendCount, "failed_resends": c.FailedResends, "successful_resends": c.SuccessfulResends,
		"response_timeout_count": c.ResponseTimeoutCount, "drop_count": c.DropCount, "send_count": c.SendCount,
		"recv_count": c.RecvCount, "local_interrupt_count": c.LocalInterruptCount, "local_dropped_count": c.LocalDroppedCount,
		"local_aborted_count": c.LocalAbortedCount, "local_no_route_count": c.LocalNoRouteCount,
		"local_timeout_count": c.LocalTimeoutCount, "local_error_count": c.LocalErrorCount,
		"remote_dropped_count": c.RemoteDroppedCount, "remote_error_count": c.RemoteErrorCount,
		"remote_timeout_count": c.RemoteTimeoutCount, "network_timeout_count": c.NetworkTimeoutCount,
		"route_count": c.RouteCount,
	}
	v, ok := m[name]
	return int64(v), ok
}

// finish evaluates the checks computed from the run's records (messages, operations, path,
// latency, throughput, nothing_lost); state checks were evaluated at their time.
func (ch *checker) finish() []record.Expectation {
	for i := range ch.scenario.Expect {
		e := &ch.scenario.Expect[i]
		if stateCheck(e) {
			if ch.results[i].Name == "" { // At beyond the run's end cannot happen (validated)
				ch.results[i] = record.Expectation{Name: e.Name, Detail: "not evaluated"}
			}
			continue
		}
		v, detail, err := ch.recordValue(i, e)
		if err != nil {
			ch.results[i] = record.Expectation{Name: e.Name, Detail: err.Error()}
			continue
		}
		ch.results[i] = ch.judge(e, i, v, detail)
	}
	return ch.results
}

func (ch *checker) workloadIndex(name string) int {
	for _, w := range ch.workloads.list {
		if w.spec.Name == name {
			return w.idx
		}
	}
	return -1
}

// recordValue returns a record check's accumulated value.
func (ch *checker) recordValue(i int, e *scenarios.Expectation) (int64, string, error) {
	a := &ch.acc[i]
	switch e.Check {
	case "messages", "path", "operations":
		return a.n, "", nil
	case "latency":
		if a.lat.n == 0 {
			return 0, "", fmt.Errorf("no completed operations in [%s, %s]", e.From, e.At)
		}
		p := e.Percentile
		if p == 0 {
			p = 50
		}
		v := a.lat.quantile(p)
		return v, fmt.Sprintf("p%g of %d = %s", p, a.lat.n, sim.Time(v)), nil
	case "throughput":
		span := (e.At - e.From).Seconds()
		if span <= 0 {
			return 0, "", fmt.Errorf("empty window")
		}
		bps := float64(a.bytes) * 8 / span
		return int64(bps), fmt.Sprintf("%.3f Gb/s", bps/1e9), nil
	case "nothing_lost":
		var lost, dup int64
		limit := ch.scenario.Duration - 2*ch.scenario.LNet.TransactionTimeout
		for _, w := range ch.workloads.list {
			if a.wi >= 0 && w.idx != a.wi {
				continue
			}
			dup += int64(w.dup)
			for _, st := range w.streams {
				if o := st.cur; o != nil && !o.done && o.start < limit {
					lost++
				}
			}
		}
		return lost + dup, fmt.Sprintf("%d operations never finalized, %d finalized twice", lost, dup), nil
	}
	return 0, "", fmt.Errorf("check %q not implemented", e.Check)
}

// judge compares v with e's bounds (nothing_lost wants 0; changed compares with From).
func (ch *checker) judge(e *scenarios.Expectation, i int, v int64, detail string) record.Expectation {
	res := record.Expectation{Name: e.Name, Passed: true}
	var want []string
	if e.Check == "nothing_lost" {
		res.Passed = v == 0
		want = append(want, "0")
	}
	if e.Check == "ni_status" || e.Check == "route" {
		up := int64(0)
		if e.State == "up" {
			up = 1
		}
		if e.State == "absent" {
			up = -1
		}
		res.Passed = v == up
		res.Detail = fmt.Sprintf("%s %s at %s, want %s", e.Check, map[int64]string{-1: "absent", 0: "down", 1: "up"}[v], e.At, e.State)
		return res
	}
	if e.Changed != nil {
		changed := v != ch.fromVal[i]
		if changed != *e.Changed {
			res.Passed = false
		}
		want = append(want, fmt.Sprintf("changed=%v since %s (was %d)", *e.Changed, e.From, ch.fromVal[i]))
	}
	if e.Eq.Set {
		res.Passed = res.Passed && v == e.Eq.Value
		want = append(want, "= "+e.Eq.Raw)
	}
	if e.Min.Set {
		res.Passed = res.Passed && v >= e.Min.Value
		want = append(want, ">= "+e.Min.Raw)
	}
	if e.Max.Set {
		res.Passed = res.Passed && v <= e.Max.Value
		want = append(want, "<= "+e.Max.Raw)
	}
	got := fmt.Sprint(v)
	if detail != "" {
		got = detail
	}
	res.Detail = fmt.Sprintf("%s at %s: got %s, want %s", checkLabel(e), e.At, got, strings.Join(want, " and "))
	return res
}

// checkLabel names what a counting check counted: the check, and for console and sockets
// checks the node and what they match.
func checkLabel(e *scenarios.Expectation) string {
	switch e.Check {
	case "console":
		return fmt.Sprintf("console %s %q", e.Node, e.Match)
	case "sockets":
		l := "sockets " + e.Node + " " + e.State
		if e.Local != "" {
			l += " local " + e.Local
		}
		if e.Remote != "" {
			l += " remote " + e.Remote
		}
		return l
	}
	return e.Check
}

// commandCheck compares the outcome of the last run (by At) of the lnetctl command e names
// with e's status.
func (ch *checker) commandCheck(e *scenarios.Expectation) record.Expectation {
	res := record.Expectation{Name: e.Name}
	rec, ok := ch.faults.commandResult(e.Fault)
	if !ok {
		res.Detail = fmt.Sprintf("command %s has not run by %s, want %s", e.Fault, e.At, e.Status)
		return res
	}
	res.Passed = rec.Result == e.Status && (e.AnsweredBy == "" || rec.AnsweredBy == e.AnsweredBy)
	res.Detail = fmt.Sprintf("command %s (%s) at %s: got %s, want %s", e.Fault, rec.Command, rec.Time, rec.Result, e.Status)
	if e.AnsweredBy != "" {
		res.Detail += fmt.Sprintf("; answered by %q, want %s", rec.AnsweredBy, e.AnsweredBy)
	}
	return res
}

// sockets counts node e.Node's TCP sockets in state e.State (listen: `ss -ltn`; established:
// `ss -tn state established`) whose local and remote addresses match e.Local and e.Remote.
func (ch *checker) sockets(e *scenarios.Expectation) (int64, error) {
	var h *tcp.Host
	if ch.cluster.eth != nil {
		h = ch.cluster.eth.hosts[e.Node]
	}
	if h == nil {
		return 0, fmt.Errorf("node %s has no TCP host", e.Node)
	}
	match := func(pat string, ap netip.AddrPort) bool {
		if pat == "" {
			return true
		}
		a, p, _ := scenarios.SocketPattern(pat) // checked at load
		return (!a.IsValid() || a == ap.Addr()) && (p < 0 || p == int(ap.Port()))
	}
	var c int64
	if e.State == "listen" {
		for _, ap := range h.Listening() {
			if match(e.Local, ap) {
				c++
			}
		}
		return c, nil
	}
	for _, s := range h.Established() {
		if match(e.Local, s[0]) && match(e.Remote, s[1]) {
			c++
		}
	}
	return c, nil
}
