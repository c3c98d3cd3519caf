package scenarios

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

var workloadFields = map[string]map[string]bool{
	"ping": set("name", "type", "from", "to", "distribution", "concurrency", "count", "start", "duration", "interval", "timeout", "portal"),
	"brw":  set("name", "type", "op", "from", "to", "distribution", "size", "concurrency", "count", "start", "duration", "interval", "timeout", "portal"),
	"rpc": set("name", "type", "from", "to", "distribution", "concurrency", "count", "start", "duration", "interval",
		"request_size", "bulk", "bulk_size", "reply_size", "timeout", "max_resends", "portal"),
}

func (r *resolver) workloads() {
	names := map[string]int{}
	for i := range r.s.Workload {
		w := &r.s.Workload[i]
		p := index("workload", i)
		if w.Name == "" {
			w.Name = "workload" + strconv.Itoa(i)
		}
		if j, dup := names[w.Name]; dup {
			r.errorAt(p+".name", "", "workload name %q is also used by workload[%d]", w.Name, j)
		}
		names[w.Name] = i
		allowed, ok := workloadFields[w.Type]
		if !ok {
			r.errorAt(p+".type", "", "unknown workload type %q (use ping, brw or rpc)", w.Type)
			continue
		}
		r.allowed(p, "a "+w.Type+" workload", allowed)
		if len(w.From) == 0 {
			r.errorAt(p+".from", "", "from is required (a node or group name)")
		}
		if len(w.To) == 0 {
			r.errorAt(p+".to", "", "to is required (a node or group name)")
		}
		srcs, dsts := r.expandNames(p+".from", w.From), r.expandNames(p+".to", w.To)
		if len(srcs) > 0 && len(dsts) > 0 {
			r.routes.pairs = append(r.routes.pairs, workloadPairs{p, w, srcs, dsts})
		}
		switch w.Distribution {
		case "1:1", "1:n", "all-to-all":
		default:
			r.errorAt(p+".distribution", "", "unknown distribution %q (use 1:1, 1:n or all-to-all)", w.Distribution)
		}
		switch w.Type {
		case "brw":
			if w.Op == "" {
				w.Op = "write"
			}
			if w.Op != "read" && w.Op != "write" {
				r.errorAt(p+".op", "", "unknown brw op %q (use read or write)", w.Op)
			}
			r.checkSize(p+".size", w.Size)
		case "rpc":
			if w.RequestSize == 0 {
				w.RequestSize = units.KiB
			}
			if w.ReplySize == 0 {
				w.ReplySize = units.KiB
			}
			switch w.Bulk {
			case "", "none":
				w.Bulk = "none"
				if r.d.has(p + ".bulk_size") {
					r.errorAt(p+".bulk_size", "set bulk: get or bulk: put", "bulk_size needs a bulk transfer")
				}
				w.BulkSize = 0
			case "get", "put":
				if w.BulkSize == 0 {
					w.BulkSize = units.MiB
				}
				r.checkSize(p+".bulk_size", w.BulkSize)
			default:
				r.errorAt(p+".bulk", "", "unknown bulk %q (use none, get or put)", w.Bulk)
			}
			r.checkSize(p+".request_size", w.RequestSize)
			r.checkSize(p+".reply_size", w.ReplySize)
			if w.MaxResends < 0 {
				r.errorAt(p+".max_resends", "", "must not be negative")
			}
			if w.MaxResends > 0 && w.Timeout == 0 {
				r.errorAt(p+".max_resends", "set timeout", "resends need an upper-layer timeout")
			}
		}
		if w.Type != "brw" {
			w.Size = 0
		}
		if w.Type == "ping" && !r.d.has(p+".interval") {
			w.Interval = sim.Second
		}
		if w.Portal == -1 {
			w.Portal = 52 // SRPC_RDMA_PORTAL
			if w.Type == "ping" {
				w.Portal = 0
			}
		}
		if w.Portal < 0 || w.Portal > 63 {
			r.errorAt(p+".portal", "", "LNet portals are 0 to 63, got %d", w.Portal)
		}
		if w.Concurrency < 1 || w.Concurrency > 1024 {
			r.errorAt(p+".concurrency", "", "must be from 1 to 1024, got %d", w.Concurrency)
		}
		if w.Count < 0 {
			r.errorAt(p+".count", "", "must not be negative")
		}
		if r.s.Duration > 0 && w.Start >= r.s.Duration {
			r.errorAt(p+".start", "", "%s is not before the end of the run (duration %s)", w.Start, r.s.Duration)
		}
		if w.Duration == 0 && r.s.Duration > w.Start {
			w.Duration = r.s.Duration - w.Start
		}
	}
}

// checkSize requires a size an LNet message can carry (1 byte to LNET_MTU, 1 MiB).
func (r *resolver) checkSize(p string, z units.Size) {
	if z < 1 || z > units.MiB {
		r.errorAt(p, "LNet messages carry at most LNET_MTU = 1MiB", "must be from 1B to 1MiB, got %s", z)
	}
}

// rule checks an LNet drop or delay rule as lnet_fault_attr's checks do.
func (r *resolver) rule(p, kind string, fr *FaultRule) {
	r.nidPattern(p+".src", fr.Src)
	r.nidPattern(p+".dst", fr.Dst)
	if fr.LocalNID != "" {
		r.nidPattern(p+".local_nid", fr.LocalNID)
	}
	if kind == "delay" {
		for _, f := range []string{"random", "drop_all", "health_error"} {
			if r.d.has(join(p, f)) {
				r.errorAt(join(p, f), "", "%s applies to drop rules only", f)
			}
		}
		if fr.Latency <= 0 {
			r.errorAt(p+".latency", "", "a delay rule needs latency > 0")
		}
		if fr.LocalNID != "" {
			r.errorAt(p+".local_nid", "the kernel ignores local NIDs for delay rules", "a delay rule with local_nid never matches")
		}
	} else if r.d.has(p + ".latency") {
		r.errorAt(p+".latency", "", "latency applies to delay rules only")
	}
	if fr.Rate < 0 {
		r.errorAt(p+".rate", "", "must not be negative")
	}
	// lctl's fault_simul_rule_add refuses these before the kernel's lnet_drop_rule_add and
	// lnet_delay_rule_add would (EINVAL), drop_all or not.
	if (fr.Rate > 0) == (fr.Interval > 0) {
		r.errorAt(p, "give rate: N or interval: SECONDS (lctl net_"+kind+"_add -r or -i; drop_all too)",
			"please provide either %s rate or interval but not both at the same time.", kind)
	}
	if fr.Random && fr.Interval == 0 {
		r.errorAt(p+".random", "", "random needs an interval")
	}
	for i, pt := range fr.Portal {
		if pt < 0 || pt > 63 {
			r.errorAt(index(p+".portal", i), "", "LNet portals are 0 to 63, got %d", pt)
		}
	}
	putGet := len(fr.Message) == 0
	for i, m := range fr.Message {
		if !msgTypes[m] {
			r.errorAt(index(p+".message", i), "", "unknown message type %q (use put, ack, get or reply)", m)
		}
		putGet = putGet || m == "put" || m == "get"
	}
	if len(fr.Portal) > 0 && !putGet {
		r.errorAt(p+".message", "a portal filter matches only PUT and GET: add put or get, or drop the portal",
			"lnet_%s_rule_add refuses the rule with EINVAL (lnet_fault_attr_validate: no PUT or GET among its message types)", kind)
	}
	for i, h := range fr.HealthError {
		if !healthErrors[h] {
			r.errorAt(index(p+".health_error", i), "e.g. local_timeout, remote_dropped, network_timeout or random", "unknown health error %q", h)
		}
	}
	if len(fr.HealthError) > 0 && fr.LocalNID != "" {
		r.errorAt(p+".local_nid", "health errors apply on the sending side, where the local NID is unknown", "a rule with health_error and local_nid never matches")
	}
}

// nidPattern checks a rule's src/dst: "*", "*@net", a NID or a node reference.
func (r *resolver) nidPattern(p, s string) {
	switch {
	case s == "*" || s == "":
	case len(s) > 2 && s[:2] == "*@":
		if net, _, err := ParseNet(s[2:]); err != nil {
			r.errorAt(p, "", "%v", err)
		} else if !r.nets[net] {
			r.errorAt(p, "", "no node has an NI on net %s", net)
		}
	default:
		r.resolveNI(p, s)
	}
}

// expectChecks lists each check's fields and the unit of its bounds.
var expectChecks = map[string]struct {
	fields []string
	unit   string
}{
	"messages":     {[]string{"workload", "node", "status", "type", "eq", "min", "max"}, "count"},
	"operations":   {[]string{"workload", "node", "status", "eq", "min", "max"}, "count"},
	"stats":        {[]string{"node", "counter", "eq", "min", "max"}, "count"},
	"health":       {[]string{"node", "ni", "peer_ni", "eq", "min", "max", "changed"}, "count"},
	"route":        {[]string{"node", "net", "gateway", "state"}, ""},
	"ni_status":    {[]string{"ni", "state"}, ""},
	"path":         {[]string{"workload", "node", "via", "eq", "min", "max"}, "count"},
	"latency":      {[]string{"workload", "type", "percentile", "eq", "min", "max"}, "duration"},
	"throughput":   {[]string{"workload", "node", "ni", "eq", "min", "max"}, "rate"},
	"nothing_lost": {[]string{"workload"}, ""},
	"lnetctl":      {[]string{"node", "command", "present", "absent", "equal"}, ""},
	"command":      {[]string{"fault", "status", "answered_by"}, ""},
	"console":      {[]string{"node", "match", "eq", "min", "max"}, "count"},
	"sockets":      {[]string{"node", "state", "local", "remote", "eq", "min", "max"}, "count"},
}

var statsCounters = set("resend_count", "failed_resends", "successful_resends", "response_timeout_count",
	"drop_count", "send_count", "recv_count", "local_interrupt_count", "local_dropped_count",
	"local_aborted_count", "local_no_route_count", "local_timeout_count", "local_error_count",
	"remote_dropped_count", "remote_error_count", "remote_timeout_count", "network_timeout_count",
	"route_count", "router_expired_count", "router_dropped_count",
	"o2ib_fmr_maps", "o2ib_fmr_map_errors", "o2ib_fmr_unmaps", "o2ib_fmr_in_use", "o2ib_fmr_pools")

var messageStatus = set("ok", "failed", "local_interrupt", "local_dropped", "local_aborted", "local_no_route",
	"local_error", "local_timeout", "remote_error", "remote_dropped", "remote_timeout", "network_timeout")

func (r *resolver) expectations() {
	workloads := map[string]bool{}
	for _, w := range r.s.Workload {
		workloads[w.Name] = true
	}
	for i := range r.s.Expect {
		e := &r.s.Expect[i]
		p := index("expect", i)
		if e.Name == "" {
			e.Name = "expect" + strconv.Itoa(i)
		}
		c, ok := expectChecks[e.Check]
		if !ok {
			if e.Check == "" {
				r.errorAt(p+".check", "e.g. check: health", "check is required")
			} else {
				r.errorAt(p+".check", "use messages, operations, stats, health, route, ni_status, path, latency, throughput, nothing_lost, lnetctl, command, console or sockets", "unknown check %q", e.Check)
			}
			continue
		}
		r.allowed(p, "check "+e.Check, set(append([]string{"name", "check", "at", "from"}, c.fields...)...))
		if e.At == 0 {
			e.At = r.s.Duration
		}
		r.checkTime(p+".at", e.At)
		if e.From > e.At {
			r.errorAt(p+".from", "", "%s is after at (%s)", e.From, e.At)
		}
		if e.Workload != "" && !workloads[e.Workload] {
			r.errorAt(p+".workload", "", "no workload named %q", e.Workload)
		}
		if e.Node != "" {
			r.canonicalNode(p+".node", &e.Node)
		}
		if e.NI != "" {
			r.resolveNI(p+".ni", e.NI)
		}
		if e.PeerNI != "" {
			r.resolveNI(p+".peer_ni", e.PeerNI)
		}
		bounds := 0
		for _, b := range []struct {
			name string
			b    *Bound
		}{{"eq", &e.Eq}, {"min", &e.Min}, {"max", &e.Max}} {
			if !b.b.Set {
				continue
			}
			bounds++
			v, err := parseBound(b.b.Raw, c.unit)
			if err != nil {
				r.errorAt(join(p, b.name), "", "%v", err)
				continue
			}
			b.b.Value = v
		}
		if e.Eq.Set && (e.Min.Set || e.Max.Set) {
			r.errorAt(p+".eq", "", "give eq, or min and/or max, not both")
		}
		if e.Min.Set && e.Max.Set && e.Min.Value > e.Max.Value {
			r.errorAt(p+".min", "", "min %s is greater than max %s", e.Min.Raw, e.Max.Raw)
		}
		switch e.Check {
		case "messages":
			if e.Status == "" {
				e.Status = "ok"
			}
			if !messageStatus[e.Status] {
				r.errorAt(p+".status", "use ok, failed or an hstatus name such as local_timeout", "unknown status %q", e.Status)
			}
			r.msgType(p, e.Type)
		case "operations":
			if e.Status == "" {
				e.Status = "ok"
			}
			if e.Status != "ok" && e.Status != "failed" {
				r.errorAt(p+".status", "an operation either completes (ok) or fails (failed)", "unknown status %q", e.Status)
			}
			if e.Workload == "" {
				r.errorAt(p, "e.g. workload: writes", "an operations check needs a workload")
			}
		case "stats":
			if !statsCounters[e.Counter] {
				r.errorAt(p+".counter", "as lnetctl stats show names them: resend_count, failed_resends, successful_resends, ...", "unknown counter %q", e.Counter)
			}
		case "health":
			switch {
			case e.NI == "" && e.PeerNI == "":
				r.errorAt(p, "ni: client:1, or node: client with peer_ni: server:0", "a health check needs ni or peer_ni")
			case e.NI != "" && e.PeerNI != "":
				r.errorAt(p+".peer_ni", "", "give ni or peer_ni, not both")
			case e.PeerNI != "" && e.Node == "":
				r.errorAt(p+".peer_ni", "the node whose view of the peer NI is checked", "peer_ni needs node")
			}
			if e.Changed == nil && bounds == 0 {
				r.errorAt(p, "", "give eq, min, max or changed")
			}
			for _, b := range []struct {
				n string
				b Bound
			}{{"eq", e.Eq}, {"min", e.Min}, {"max", e.Max}} {
				if b.b.Set && (b.b.Value < 0 || b.b.Value > 1000) {
					r.errorAt(join(p, b.n), "", "health values are 0 to 1000, got %d", b.b.Value)
				}
			}
		case "route":
			empty := map[string]bool{"node": e.Node == "", "net": e.Net == "", "gateway": e.Gateway == "", "state": e.State == ""}
			for _, f := range []string{"node", "net", "gateway", "state"} {
				if !r.d.has(join(p, f)) || empty[f] {
					r.errorAt(join(p, f), "", "a route check needs %s", f)
				}
			}
			if e.Net != "" {
				if net, _, err := ParseNet(e.Net); err != nil {
					r.errorAt(p+".net", "", "%v", err)
				} else {
					e.Net = net
				}
			}
			if _, err := ParseNID(e.Gateway); e.Gateway != "" && err != nil {
				r.resolveNI(p+".gateway", e.Gateway) // a NID may name a gateway no node has
			}
			if e.State != "absent" {
				r.state(p, e.State)
			}
		case "lnetctl":
			r.lnetctlCheck(p, e)
		case "ni_status":
			if e.NI == "" {
				r.errorAt(p+".ni", "", "an ni_status check needs ni")
			}
			r.state(p, e.State)
		case "path":
			if len(e.Via) < 2 {
				r.errorAt(p+".via", "e.g. via: [client:0, server:0]", "a path check needs at least two NIs")
			}
			for j, v := range e.Via {
				r.resolveNI(index(p+".via", j), v)
			}
			if bounds == 0 {
				e.Min = Bound{Raw: "1", Value: 1, Set: true}
			}
		case "latency":
			if e.Percentile <= 0 || e.Percentile > 100 {
				r.errorAt(p+".percentile", "e.g. 50, 99 or 99.9", "must be greater than 0 and at most 100")
			}
			r.msgType(p, e.Type)
			if bounds == 0 {
				r.errorAt(p, "", "give eq, min or max")
			}
		case "throughput":
			if bounds == 0 {
				r.errorAt(p, "", "give eq, min or max")
			}
		case "command":
			r.commandCheck(p, e)
		case "sockets":
			r.socketsCheck(p, e, bounds)
		case "console":
			if e.Node == "" {
				r.errorAt(p, "e.g. node: client", "a console check needs node: whose kernel log is read")
			}
			if e.Match == "" {
				r.errorAt(p, `e.g. match: "found metadata reply"`, "a console check needs match: the text to count lines of")
			}
			if bounds == 0 {
				r.errorAt(p, "", "give eq, min or max")
			}
		}
	}
}

// socketsCheck checks a sockets expectation: a node with a tcp NI, a state (listen or
// established), address patterns and bounds.
func (r *resolver) socketsCheck(p string, e *Expectation, bounds int) {
	if e.Node == "" {
		r.errorAt(p, "e.g. node: client", "a sockets check needs node: whose TCP sockets are counted")
	} else if m := r.s.Member(e.Node); m != nil && !slices.ContainsFunc(m.NIs, func(ni MemberNI) bool { return IsTCPNet(ni.Net) }) {
		r.errorAt(p+".node", "name a node with a tcp NI", "%s has no tcp NI, so no TCP sockets", e.Node)
	}
	switch e.State {
	case "listen":
		if e.Remote != "" {
			r.errorAt(p+".remote", "", "a listening socket has no remote address")
		}
	case "established":
	default:
		r.errorAt(p+".state", "listen (ss -ltn) or established (ss -tn state established)", "unknown sockets state %q", e.State)
	}
	for _, f := range []struct{ name, v string }{{"local", e.Local}, {"remote", e.Remote}} {
		if f.v != "" {
			if _, _, err := SocketPattern(f.v); err != nil {
				r.errorAt(p+"."+f.name, "ADDR:PORT, * for any part (10.0.0.1:988, *:989, 0.0.0.0:988)", "%v", err)
			}
		}
	}
	if bounds == 0 {
		r.errorAt(p, "", "give eq, min or max")
	}
}

// SocketPattern reads a sockets check's ADDR:PORT pattern: addr is the zero Addr for *, port
// -1 for *.
func SocketPattern(s string) (addr netip.Addr, port int, err error) {
	a, ps, ok := strings.Cut(s, ":")
	if !ok {
		return addr, 0, fmt.Errorf("%q is not ADDR:PORT", s)
	}
	if a != "*" {
		if addr, err = netip.ParseAddr(a); err != nil || !addr.Is4() {
			return addr, 0, fmt.Errorf("%q: %q is not an IPv4 address or *", s, a)
		}
	}
	if ps == "*" {
		return addr, -1, nil
	}
	if port, err = strconv.Atoi(ps); err != nil || port < 0 || port > 65535 {
		return addr, 0, fmt.Errorf("%q: %q is not a port or *", s, ps)
	}
	return addr, port, nil
}

func (r *resolver) msgType(p, t string) {
	if t != "" && !msgTypes[t] {
		r.errorAt(p+".type", "", "unknown message type %q (use put, ack, get or reply)", t)
	}
}

func (r *resolver) state(p, s string) {
	if s != "up" && s != "down" {
		r.errorAt(p+".state", "", "state must be up or down, got %q", s)
	}
}

// commandCheck checks a command expectation: it names an lnetctl command of the timeline and
// an outcome (ok, an errno name, not_run; default ok).
func (r *resolver) commandCheck(p string, e *Expectation) {
	found := false
	for i := range r.s.Faults {
		found = found || (r.s.Faults[i].Cmd != nil && r.s.Faults[i].Name == e.Fault)
	}
	if !found {
		r.errorAt(p+".fault", "name a faults: entry with lnetctl: (its name:, default cmd<i>)", "no lnetctl command named %q", e.Fault)
	}
	if e.AnsweredBy != "" {
		if nids := r.cmdNIDs(p+".answered_by", e.AnsweredBy); len(nids) == 1 {
			e.AnsweredBy = nids[0]
		}
	}
	if e.Status == "" {
		e.Status = "ok"
	}
	if e.Status != "ok" && e.Status != "not_run" && !isErrnoName(e.Status) {
		r.errorAt(p+".status", "ok, not_run, or an errno name such as ENOENT or EHOSTUNREACH", "unknown command status %q", e.Status)
	}
}

// isErrnoName reports whether s looks like an errno name (E followed by capitals).
func isErrnoName(s string) bool {
	if len(s) < 3 || s[0] != 'E' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
