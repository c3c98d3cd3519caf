package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Action is one kind of fault-timeline entry: the fields it takes, how the loader checks
// them, and what for: does. The runner implements every registered action for both backends
// (runner.TestEveryActionRuns), so what `validate` accepts is what `run` performs.
type Action struct {
	// Name is the value of `action:`.
	Name string
	// Fields lists the fields the action takes beyond the timing ones, in the order their
	// absence is reported; all are required but those in Optional.
	Fields   []string
	Optional []string
	// Undo names what for: performs after the fault's duration ("" : for: is refused).
	Undo string
	// O2IBOnly marks actions only the InfiniBand model can perform.
	O2IBOnly bool
	// IBPort marks actions on an NI's HCA or port, which a tcp NI (Ethernet) does not have.
	IBPort bool
	// Cmd is the argument grammar of an lnetctl command (nil for other actions), whose
	// fault gives it as `lnetctl:`.
	Cmd *cmdSpec
	// HCA is the action's part in the loader's HCA fatal-state timeline (resolve_hca.go).
	HCA hcaEffect
	// check validates and defaults the action's own fields (after the common checks).
	check func(r *resolver, c *faultCtx, p string, i int, f *Fault)
}

// faultCtx is what the checks of one timeline share: rule names added so far and their kind.
type faultCtx struct {
	rules map[string]string
}

// actions is the registry of timeline actions, by name.
var actions = map[string]*Action{}

func register(a *Action) { actions[a.Name] = a }

// LookupAction returns the registered action of that name, or nil.
func LookupAction(name string) *Action { return actions[name] }

// Actions returns every registered action, by name.
func Actions() []*Action {
	out := make([]*Action, 0, len(actions))
	for _, a := range actions {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func init() {
	ni := []string{"ni"}
	link := []string{"ni", "switch_link"} // one of them: a node's NI or an Ethernet trunk
	node := []string{"node"}
	for _, a := range []*Action{
		{Name: "link_down", Fields: link, Optional: link, Undo: "link_up", check: checkLinkTarget},
		{Name: "link_up", Fields: link, Optional: link, check: checkLinkTarget},
		{Name: "port_error", Fields: ni, Undo: "port_active", IBPort: true},
		{Name: "port_active", Fields: ni, HCA: hcaPortEvent, IBPort: true},
		{Name: "hca_fatal", Fields: ni, Undo: "hca_recover", HCA: hcaFails, IBPort: true},
		{Name: "hca_recover", Fields: ni, HCA: hcaResets, IBPort: true},
		{Name: "node_crash", Fields: node, Undo: "node_restart", HCA: hcaNodeDown},
		{Name: "node_restart", Fields: node, HCA: hcaNodeBoot},
		{Name: "lustre_stop", Fields: node, Undo: "lustre_start"},
		{Name: "lustre_start", Fields: node},
		{Name: "router_down", Fields: node, Undo: "router_up", check: checkRouter},
		{Name: "router_up", Fields: node, check: checkRouter},
		{Name: "cm_reject", Fields: []string{"node", "peer_ni", "reason", "count"}, Optional: []string{"reason", "count"},
			O2IBOnly: true, check: checkCMReject},
		{Name: "link_loss", Fields: []string{"ni", "switch_link", "loss"}, Optional: link, Undo: "link_loss", O2IBOnly: true, check: checkLoss},
		{Name: "link_delay", Fields: []string{"ni", "switch_link", "delay"}, Optional: link, Undo: "link_delay_cleared", check: checkDelay},
		{Name: "sm_down", Undo: "sm_up", O2IBOnly: true},
		{Name: "sm_up", O2IBOnly: true},
		{Name: "drop_rule_add", Fields: []string{"node", "rule", "name"}, Optional: []string{"name"}, Undo: "drop_rule_remove", check: checkRuleAdd},
		{Name: "delay_rule_add", Fields: []string{"node", "rule", "name"}, Optional: []string{"name"}, Undo: "delay_rule_remove", check: checkRuleAdd},
		{Name: "drop_rule_remove", Fields: []string{"node", "name"}, Optional: []string{"name"}, check: checkRuleRemove},
		{Name: "delay_rule_remove", Fields: []string{"node", "name"}, Optional: []string{"name"}, check: checkRuleRemove},
		{Name: "set_health", Fields: []string{"ni", "health"}, check: checkHealth},
		{Name: "set_peer_health", Fields: []string{"node", "peer_ni", "health"}, check: checkHealth},
		{Name: "fail_loc", Fields: []string{"node", "fail_loc", "fail_val"}, Optional: []string{"fail_val"}, Undo: "fail_loc_cleared", check: checkFailLoc},
		{Name: "add_uuid", Fields: []string{"node", "uuid", "nid"}, check: checkUUID},
		{Name: "del_uuid", Fields: []string{"node", "uuid"}, check: checkUUID},
		{Name: "lnd_unload", Fields: []string{"node", "lnd"}, check: checkLNDUnload},
	} {
		register(a)
	}
}

var faultTiming = []string{"at", "every", "rate", "stream", "until", "for", "action"}

var cmReasons = set("conn_race", "no_resources", "fatal", "conn_uncompat", "conn_stale", "rdma_frags", "msg_queue_size", "invalid_srv_id", "early")

var healthErrors = set("local_interrupt", "local_dropped", "local_aborted", "local_no_route", "local_error",
	"local_timeout", "remote_error", "remote_dropped", "remote_timeout", "network_timeout", "random")

var msgTypes = set("put", "ack", "get", "reply")

// faults checks the fault timeline: each entry's timing, then its action's fields.
func (r *resolver) faults() {
	c := &faultCtx{rules: map[string]string{}}
	for i := range r.s.Faults {
		f := &r.s.Faults[i]
		p := index("faults", i)
		if r.d.has(p+".lnetctl") && !r.lnetctl(p, f) {
			continue
		}
		a := actions[f.Action]
		if a != nil && a.Cmd != nil && f.Cmd == nil {
			r.errorAt(p+".action", "e.g. lnetctl: \"route del --net o2ib1 --gateway 10.0.0.5@o2ib\"", "%s is an lnetctl command: write it as lnetctl: \"%s ...\"", f.Action, f.Action)
			continue
		}
		if a == nil {
			if f.Action == "" {
				r.errorAt(p+".action", "e.g. action: link_down", "action is required")
			} else {
				r.errorAt(p+".action", "see the scenario reference for the list", "unknown action %q", f.Action)
			}
			continue
		}
		r.allowed(p, "action "+f.Action, set(append(append([]string{}, faultTiming...), a.Fields...)...))
		r.faultTiming(p, i, f, a)
		r.faultFields(p, f, a)
		if a.check != nil {
			a.check(r, c, p, i, f)
		}
	}
	r.hcaTimeline()
}

// faultTiming checks and defaults at, every, rate, stream, until and for.
func (r *resolver) faultTiming(p string, i int, f *Fault, a *Action) {
	r.checkTime(p+".at", f.At)
	if f.Every > 0 && f.Rate > 0 {
		r.errorAt(p+".rate", "", "give every (periodic) or rate (random), not both")
	}
	if f.Rate < 0 {
		r.errorAt(p+".rate", "", "must not be negative")
	}
	if f.Stream == "" {
		f.Stream = "faults/" + strconv.Itoa(i)
	}
	if r.d.has(p+".until") && f.Every == 0 && f.Rate == 0 {
		r.errorAt(p+".until", "", "until ends a periodic (every) or random (rate) fault")
	}
	if f.Until == 0 {
		f.Until = r.s.Duration
	} else {
		r.checkTime(p+".until", f.Until)
		if f.Until < f.At {
			r.errorAt(p+".until", "", "%s is before at (%s)", f.Until, f.At)
		}
	}
	if f.For > 0 && a.Undo == "" {
		r.errorAt(p+".for", "", "%s cannot be undone automatically", f.Action)
	}
	if f.For > 0 && f.Every > 0 && f.For >= f.Every {
		r.errorAt(p+".for", "", "the fault lasts %s but repeats every %s", f.For, f.Every)
	}
}

// faultFields requires the action's fields and resolves its node and NI references.
func (r *resolver) faultFields(p string, f *Fault, a *Action) {
	// A field written with no value (`node:` alone, null) is as missing as one not
	// written: the runner would have nothing to act on.
	empty := map[string]bool{"node": f.Node == "", "uuid": f.UUID == "", "nid": f.NID == "", "ni": f.NI == "", "switch_link": f.SwitchLink == "", "peer_ni": f.PeerNI == "", "rule": f.Rule == nil, "lnd": f.LND == "", "lnetctl": f.Lnetctl == "", "yaml": f.Import == nil}
	optional := set(a.Optional...)
	for _, fld := range a.Fields {
		if optional[fld] {
			continue
		}
		if !r.d.has(join(p, fld)) {
			r.errorAt(join(p, fld), "", "%s needs %s", f.Action, fld)
		} else if empty[fld] {
			r.errorAt(join(p, fld), "", "%s needs %s, and it is empty", f.Action, fld)
		}
	}
	if f.NI != "" {
		if m, i, ok := r.resolveNI(p+".ni", f.NI); ok && a.IBPort && IsTCPNet(m.NIs[i].Net) {
			r.errorAt(p+".ni", "use link_down/link_up or node_crash for an Ethernet NI",
				"%s acts on an InfiniBand HCA or port; %s is on tcp net %s", f.Action, f.NI, m.NIs[i].Net)
		}
	}
	if f.Node != "" {
		r.canonicalNode(p+".node", &f.Node)
	}
	if f.PeerNI != "" {
		r.resolveNI(p+".peer_ni", f.PeerNI)
	}
}

func checkRouter(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	if m := r.s.Member(f.Node); m != nil && !m.Routing {
		r.errorAt(p+".node", "use node_crash, or set routing: true", "%s is not a router", f.Node)
	}
}

func checkHealth(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	if f.Health < 0 || f.Health > 1000 {
		r.errorAt(p+".health", "", "health values are 0 to 1000, got %d", f.Health)
	}
}

// checkLinkTarget requires a link action to name exactly one link: an NI's (ni) or a
// leaf-spine Ethernet trunk (switch_link, leaf<i>-spine<j> within the fabric's shape).
func checkLinkTarget(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	hasNI, hasSL := r.d.has(p+".ni"), r.d.has(p+".switch_link")
	switch {
	case hasNI && hasSL:
		r.errorAt(p+".switch_link", "give one of them", "%s takes ni or switch_link, not both", f.Action)
		return
	case !hasNI && !hasSL:
		r.errorAt(p+".action", "e.g. ni: client0:0, or switch_link: leaf0-spine1 on a leaf-spine Ethernet", "%s needs ni or switch_link", f.Action)
		return
	case hasNI && f.NI == "":
		r.errorAt(p+".ni", "", "%s needs ni, and it is empty", f.Action)
		return
	case hasSL && f.SwitchLink == "":
		r.errorAt(p+".switch_link", "e.g. switch_link: leaf0-spine1", "%s needs switch_link, and it is empty", f.Action)
		return
	case !hasSL:
		return
	}
	e := r.s.Ethernet
	if e == nil || e.Topology != "leaf-spine" {
		r.errorAt(p+".switch_link", "set ethernet.topology: leaf-spine, or name an NI's link with ni:", "switch_link names a trunk of a leaf-spine Ethernet, and there is none")
		return
	}
	if e.HostsPerLeaf < 1 || e.Spines < 1 {
		return // the shape is wrong: reported at ethernet
	}
	leaves := EthernetLeaves(r.s)
	hint := fmt.Sprintf("name a trunk leaf<i>-spine<j>, from leaf0-spine0 to leaf%d-spine%d", leaves-1, e.Spines-1)
	var l, s int
	var rest string
	if n, _ := fmt.Sscanf(f.SwitchLink, "leaf%d-spine%d%s", &l, &s, &rest); n < 2 || rest != "" ||
		f.SwitchLink != fmt.Sprintf("leaf%d-spine%d", l, s) {
		r.errorAt(p+".switch_link", hint, "unknown switch link %q", f.SwitchLink)
	} else if l < 0 || l >= leaves || s < 0 || s >= e.Spines {
		r.errorAt(p+".switch_link", hint, "no switch link %s in this fabric (%d hosts with a tcp NI, %d a leaf, %d spines)", f.SwitchLink, EthernetHosts(r.s), e.HostsPerLeaf, e.Spines)
	}
}

// EthernetLeaves is how many leaves a leaf-spine Ethernet has: its hosts (members with a
// tcp NI) at hosts_per_leaf a leaf, at least one.
func EthernetLeaves(s *Scenario) int {
	e := s.Ethernet
	if e == nil || e.HostsPerLeaf < 1 {
		return 1
	}
	return max(1, (EthernetHosts(s)+e.HostsPerLeaf-1)/e.HostsPerLeaf)
}

// EthernetHosts is how many members have a tcp NI: the Ethernet's hosts.
func EthernetHosts(s *Scenario) int {
	hosts := 0
	for i := range s.Members {
		for _, ni := range s.Members[i].NIs {
			if IsTCPNet(ni.Net) {
				hosts++
				break
			}
		}
	}
	return hosts
}

func checkLoss(r *resolver, c *faultCtx, p string, i int, f *Fault) {
	checkLinkTarget(r, c, p, i, f)
	if f.Loss <= 0 || f.Loss > 1 {
		r.errorAt(p+".loss", "", "a probability greater than 0 and at most 1, got %v", f.Loss)
	}
}

func checkDelay(r *resolver, c *faultCtx, p string, i int, f *Fault) {
	checkLinkTarget(r, c, p, i, f)
	if f.Delay <= 0 {
		r.errorAt(p+".delay", "", "must be greater than zero")
	}
}

func checkCMReject(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	if f.Reason == "" {
		f.Reason = "no_resources"
	}
	if !cmReasons[f.Reason] {
		r.errorAt(p+".reason", "use conn_race, no_resources, fatal, conn_uncompat, conn_stale, rdma_frags, msg_queue_size, invalid_srv_id or early", "unknown reject reason %q", f.Reason)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	if f.Count < 0 {
		r.errorAt(p+".count", "", "must be at least 1")
	}
}

// RuleKind is "drop" or "delay" for a rule action (drop_rule_add, delay_rule_remove, ...).
func RuleKind(action string) string { return strings.SplitN(action, "_", 2)[0] }

func checkRuleAdd(r *resolver, c *faultCtx, p string, i int, f *Fault) {
	kind := RuleKind(f.Action)
	if f.Name == "" {
		f.Name = "rule" + strconv.Itoa(i)
	}
	if _, dup := c.rules[f.Name]; dup {
		r.errorAt(p+".name", "", "a rule named %q was already added", f.Name)
	}
	c.rules[f.Name] = kind
	if f.Rule != nil {
		r.rule(p+".rule", kind, f.Rule)
		r.ruleRelease(p+".rule", f)
	}
}

// ruleRelease refuses a rule's drop_all and local_nid on a node whose release has neither
// lctl's options nor the kernel's fields (NoFaultDropAllLocalNID): the rule's node, or every
// node when it names none.
func (r *resolver) ruleRelease(p string, f *Fault) {
	var nodes []*Member
	for i := range r.s.Members {
		nodes = append(nodes, &r.s.Members[i])
	}
	if f.Node != "" {
		nodes = []*Member{r.s.Member(f.Node)}
	}
	for _, m := range nodes {
		if m == nil {
			return
		}
		rel := r.rel[m.Group]
		if !rel.Profile.NoFaultDropAllLocalNID {
			continue
		}
		for _, k := range []string{"drop_all", "local_nid"} {
			if r.d.has(join(p, k)) {
				r.errorAt(join(p, k), "LU-11470 adds it in 2.13", "%s runs %s, whose lctl net_drop_add has no --%s", m.Name, rel.Name, k)
			}
		}
		return
	}
}

func checkRuleRemove(r *resolver, c *faultCtx, p string, _ int, f *Fault) {
	kind := RuleKind(f.Action)
	if k, ok := c.rules[f.Name]; !ok || k != kind {
		r.errorAt(p+".name", "name a rule added by an earlier "+kind+"_rule_add", "no %s rule named %q", kind, f.Name)
	}
}

// checkUUID: add_uuid and del_uuid (lctl's, Lustre's class_add_uuid and class_del_uuid) on
// a node of 2.16 or later, the LNetAddPeer lnetsim models (LU-17379); the UUID fits
// struct obd_uuid (at most 39 characters) and add_uuid's nid is one NID.
func checkUUID(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	if len(f.UUID) > 39 {
		r.errorAt(p+".uuid", "at most 39 characters (struct obd_uuid)", "uuid %q is %d characters long", f.UUID, len(f.UUID))
	}
	if f.Action == "add_uuid" && f.NID != "" {
		if nids := r.cmdNIDs(p+".nid", f.NID); len(nids) > 1 {
			r.errorAt(p+".nid", "lctl add_uuid takes one NID", "nid %q names %d NIDs", f.NID, len(nids))
		} else if len(nids) == 1 {
			f.NID = nids[0]
		}
	}
	if m := r.s.Member(f.Node); m != nil && r.rel[m.Group].Profile.NoPeerLockPrimary {
		r.errorAt(p+".action", "run the node on 2.16 or later", "%s runs %s: lnetsim models Lustre's LNetAddPeer from 2.16 (LU-17379); 2.15's temporary peers (LU-14661) are not modelled, and 2.12's add_uuid adds no LNet peer", m.Name, r.rel[m.Group].Name)
	}
}

// LNDModules are the LND modules lnd_unload removes, by name (libcfs_lnd2modname), with the
// LND of each.
var LNDModules = map[string]lnet.LNDType{"ksocklnd": lnet.SOCKLND, "ko2iblnd": lnet.O2IBLND}

// checkLNDUnload: lnd names a module of an LND the model runs.
func checkLNDUnload(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	if _, ok := LNDModules[f.LND]; !ok && f.LND != "" {
		r.errorAt(p+".lnd", "ksocklnd or ko2iblnd", "lnd_unload removes an LND module the model runs, not %q", f.LND)
	}
}

// failLocations are the libcfs fail_loc locations the model checks, with the kernel's names.
var failLocations = map[uint32]string{0xe002: "CFS_FAIL_DELAY_MSG_FORWARD", 0xe003: "CFS_FAIL_TEST_PING_MD", 0xe004: "CFS_FAIL_RTR_HEALTH_INC",
	0xe020: "CFS_FAIL_SOCK_CONN", 0xf201: "CFS_FAIL_O2IBLND_FMR_MAP_SHORT"}

// failFlags are fail_loc's flag bits a user writes (libcfs_fail.h): once, skip, some, rand,
// usr1, fault. CFS_FAILED (0x40000000) is the kernel's own.
const failFlags uint32 = 0x80000000 | 0x20000000 | 0x10000000 | 0x08000000 | 0x04000000 | 0x02000000

// checkFailLoc: fail_loc is 0 or a location the model checks with flag bits; fail_val is an
// int as lctl writes it (-1 and the like wrap to unsigned, as cfs_fail_val does).
func checkFailLoc(r *resolver, _ *faultCtx, p string, _ int, f *Fault) {
	const hint = "LNet's and its LNDs' check points: 0xe002 (CFS_FAIL_DELAY_MSG_FORWARD), 0xe003 (CFS_FAIL_TEST_PING_MD), 0xe004 (CFS_FAIL_RTR_HEALTH_INC), 0xe020 (CFS_FAIL_SOCK_CONN), 0xf201 (CFS_FAIL_O2IBLND_FMR_MAP_SHORT), with flags 0x80000000 (once), 0x20000000 (skip), 0x10000000 (some), 0x08000000 (rand); 0 clears it"
	switch loc := f.FailLoc &^ failFlags; {
	case f.FailLoc == 0:
	case loc&0xffff != loc:
		r.errorAt(p+".fail_loc", hint, "fail_loc %#x has bits that are neither a location nor a flag (%#x)", f.FailLoc, loc&^0xffff)
	case failLocations[loc] == "":
		r.errorAt(p+".fail_loc", hint, "fail_loc %#x: lnetsim has no check point at location %#x", f.FailLoc, loc)
	}
	if f.FailVal < -1<<31 || f.FailVal > 1<<32-1 {
		r.errorAt(p+".fail_val", "fail_val is a 32-bit integer", "fail_val %d is out of range", f.FailVal)
	}
}
