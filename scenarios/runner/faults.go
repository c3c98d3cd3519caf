package runner

import (
	"fmt"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// Fault handler event kinds: arg is the fault's index in the timeline.
const (
	evFaultApply = iota + 1
	evFaultUndo
)

// retryExhaustion approximates how long an RC QP keeps retrying a send to a dead port before
// the completion error: (retry_count 5 + 1) ACK timeouts of 4.096us * 2^14 (o2iblnd's defaults).
const retryExhaustion = 6 * 67108864 * sim.Nanosecond

// faultState is the fault timeline of a run.
type faultState struct {
	cluster  *cluster
	scenario *scenarios.Scenario
	hid      sim.HandlerID
	records  []record.Fault
	cmds     []record.Command // lnetctl commands run, in order
	pings    []*cmdPing       // lnetctl pings, by index (evCmdPingTimeout)
	// prevGlobal is, per lnetctl set command with for:, the value its undo restores
	// (lookups only).
	prevGlobal map[*scenarios.Command]int
	// discovers are the lnetctl discovers waiting for their peer's discovery to end.
	discovers []*cmdDiscover
	// Per fault index: the LNet rules it added, and the hits of rules already removed.
	dropRules  [][]ruleRef
	delayRules [][]ruleRef
	pastHits   []uint64
	rnd        []*sim.Stream
	timeline   *timeline       // nil unless a trace is written
	fatalHCA   map[hcaKey]bool // ideal backend: HCAs failed by hca_fatal (lookups only)
}

type ruleRef struct {
	n    *node
	drop *lnet.DropRule
	dly  *lnet.DelayRule
}

func newFaults(c *cluster, s *scenarios.Scenario) (*faultState, error) {
	f := &faultState{cluster: c, scenario: s, dropRules: make([][]ruleRef, len(s.Faults)), delayRules: make([][]ruleRef, len(s.Faults)),
		pastHits: make([]uint64, len(s.Faults)), rnd: make([]*sim.Stream, len(s.Faults)), fatalHCA: map[hcaKey]bool{},
		prevGlobal: map[*scenarios.Command]int{}}
	f.hid = c.k.Register(f)
	for i := range s.Faults {
		ft := &s.Faults[i]
		if err := f.runnable(i, ft); err != nil {
			return nil, err
		}
		if ft.Rate > 0 {
			name := ft.Stream
			if name == "" {
				name = fmt.Sprintf("faults/%d", i)
			}
			f.rnd[i] = c.k.Rand(name)
		}
	}
	return f, nil
}

// schedule queues every fault's first occurrence.
func (f *faultState) schedule() {
	for i := range f.scenario.Faults {
		ft := &f.scenario.Faults[i]
		at := ft.At
		if ft.Rate > 0 {
			at += f.rnd[i].ExpTime(sim.Time(float64(sim.Second) / ft.Rate))
		}
		if at <= f.scenario.Duration {
			f.cluster.k.Schedule(at, f.hid, evFaultApply, uint64(i))
		}
	}
}

// Handle applies or undoes fault number arg, and schedules its next occurrence.
func (f *faultState) Handle(kind int, arg uint64) {
	i := int(arg)
	if kind == evCmdPingTimeout {
		f.pings[i].timedOut()
		return
	}
	if kind == evCmdMetaTimeout {
		f.pings[i].meta.timedOut()
		return
	}
	ft := &f.scenario.Faults[i]
	now := f.cluster.k.Now()
	if kind == evFaultUndo {
		f.perform(i, ft, true)
		return
	}
	f.perform(i, ft, false)
	if ft.For > 0 {
		f.cluster.k.After(ft.For, f.hid, evFaultUndo, arg)
	}
	until := f.scenario.Duration
	if ft.Until > 0 {
		until = min(until, ft.Until)
	}
	var next sim.Time
	switch {
	case ft.Every > 0:
		next = now + ft.Every
	case ft.Rate > 0:
		next = now + f.rnd[i].ExpTime(sim.Time(float64(sim.Second)/ft.Rate))
	default:
		return
	}
	if next <= until {
		f.cluster.k.Schedule(next, f.hid, evFaultApply, arg)
	}
}

func (f *faultState) note(kind, target, detail string) {
	f.records = append(f.records, record.Fault{Time: f.cluster.k.Now(), Kind: kind, Target: target, Detail: detail, Hits: 1})
	if f.timeline != nil {
		f.timeline.fault(f.cluster.k.Now(), kind, target)
	}
}

var anyNID = lnet.NIDPattern{NID: lnet.AnyNID}

// niDown makes an NI unusable, as a downed port or link is seen through o2iblnd: the owning
// node's NI turns fatal (PORT_ERR) and every send from or to it fails with REMOTE_DROPPED
// (a send completion error; see cluster.idealVerdict).
func (f *faultState) niDown(ref, kind string) {
	n, nid, err := f.cluster.niRef(ref)
	if err != nil {
		return
	}
	p := f.cluster.port(nid)
	p.down++
	if p.down == 1 {
		for _, ni := range n.ln.NIs() {
			if ni.NID() == nid {
				n.ln.SetNIFatal(ni, true)
			}
		}
	}
	f.note(kind, n.name+"/"+nid.String(), "")
}

// nodeRestart brings every NI of a node back on the ideal backend; a reboot resets its fatal
// HCAs too.
func (f *faultState) nodeRestart(name string) {
	for k := range f.fatalHCA {
		if k.node == name {
			delete(f.fatalHCA, k)
		}
	}
	for _, nid := range f.cluster.byName[name].nids {
		f.niUp(nid.String(), "node_restart")
	}
}

// niUp undoes every niDown of an NI (link_up, port_active, hca_recover, node_restart).
func (f *faultState) niUp(ref, kind string) {
	n, nid, err := f.cluster.niRef(ref)
	if err != nil {
		return
	}
	if p := f.cluster.port(nid); p.down > 0 {
		p.down = 0
		for _, ni := range n.ln.NIs() {
			if ni.NID() == nid {
				n.ln.SetNIFatal(ni, false)
			}
		}
	}
	f.note(kind, n.name+"/"+nid.String(), "")
}

// hcaKey names one HCA of a node (the ideal backend's record of fatal HCAs).
type hcaKey struct {
	node string
	hca  int
}

// hcaNIs returns the HCA behind NI ref and the NIDs of every NI of its node on that HCA.
func (f *faultState) hcaNIs(ref string) (hcaKey, []string, bool) {
	m, i, err := f.scenario.ResolveNI(ref)
	if err != nil {
		return hcaKey{}, nil, false
	}
	k := hcaKey{m.Name, m.NIs[i].HCA}
	n := f.cluster.byName[m.Name]
	var nids []string
	for j, ni := range m.NIs {
		if ni.HCA == k.hca {
			nids = append(nids, n.nids[j].String())
		}
	}
	return k, nids, true
}

// hcaFatal approximates IB_EVENT_DEVICE_FATAL on the ideal backend: every NI on the HCA goes
// down as with niDown, until hcaRecover.
func (f *faultState) hcaFatal(ref string) {
	k, nids, ok := f.hcaNIs(ref)
	if !ok || f.fatalHCA[k] {
		return
	}
	f.fatalHCA[k] = true
	for _, nid := range nids {
		f.niDown(nid, "hca_fatal")
	}
}

// hcaRecover brings a fatal HCA back (hca_recover, or hca_fatal's for:): its NIs come up as
// with niUp. An HCA that is not fatal is left alone.
func (f *faultState) hcaRecover(ref string) {
	k, nids, ok := f.hcaNIs(ref)
	if !ok || !f.fatalHCA[k] {
		return
	}
	delete(f.fatalHCA, k)
	for _, nid := range nids {
		f.niUp(nid, "hca_recover")
	}
}

// ruleNodes are the nodes a rule is added on: Node, or every node.
func (f *faultState) ruleNodes(ft *scenarios.Fault) []*node {
	if ft.Node != "" {
		return []*node{f.cluster.byName[ft.Node]}
	}
	return f.cluster.nodes
}

func (f *faultState) pattern(ref string) lnet.NIDPattern {
	if ref == "" || ref == "*" {
		return anyNID
	}
	if strings.HasPrefix(ref, "*@") {
		if p, err := lnet.ParseNIDPattern(ref); err == nil {
			return p
		}
	}
	if _, nid, err := f.cluster.niRef(ref); err == nil {
		return lnet.NIDPattern{NID: nid}
	}
	p, _ := lnet.ParseNIDPattern(ref)
	return p
}

// addRule installs an LNet drop or delay rule on the fault's nodes.
func (f *faultState) addRule(i int, ft *scenarios.Fault) {
	r := ft.Rule
	if r == nil {
		return // the loader refuses a rule_add without a rule; nothing to install
	}
	drop, delay := f.ruleSpecs(r)
	for _, n := range f.ruleNodes(ft) {
		if ft.Action == "drop_rule_add" {
			if dr, err := n.ln.AddDropRule(drop); err == nil {
				f.dropRules[i] = append(f.dropRules[i], ruleRef{n: n, drop: dr})
			}
		} else {
			if dr, err := n.ln.AddDelayRule(delay); err == nil {
				f.delayRules[i] = append(f.delayRules[i], ruleRef{n: n, dly: dr})
			}
		}
	}
	f.note(ft.Action, ft.Name, fmt.Sprintf("src=%s dst=%s", drop.Src, drop.Dst))
}

// ruleSpecs are the drop and delay rules a scenario's rule stands for (struct
// lnet_fault_attr as lctl and lnetctl fill it).
func (f *faultState) ruleSpecs(r *scenarios.FaultRule) (lnet.DropRuleSpec, lnet.DelayRuleSpec) {
	attr := lnet.FaultAttr{Src: f.pattern(r.Src), Dst: f.pattern(r.Dst), LocalNID: lnet.AnyNID}
	if r.LocalNID != "" {
		attr.LocalNID = f.pattern(r.LocalNID).NID
	}
	for _, p := range r.Portal {
		attr.PtlMask |= 1 << uint(p)
	}
	for _, m := range r.Message {
		switch m {
		case "put":
			attr.MsgMask |= lnet.MaskPUT
		case "ack":
			attr.MsgMask |= lnet.MaskACK
		case "get":
			attr.MsgMask |= lnet.MaskGET
		case "reply":
			attr.MsgMask |= lnet.MaskREPLY
		}
	}
	drop := lnet.DropRuleSpec{FaultAttr: attr, Rate: uint32(r.Rate), Interval: uint32(r.Interval.WholeSeconds()), Random: r.Random, DropAll: r.DropAll}
	for _, h := range r.HealthError {
		if hs, ok := lnet.ParseHStatus(h); ok {
			drop.HealthMask |= 1 << hs
		} else if h == "random" {
			drop.HealthMask |= (1<<lnet.NumHStatus - 1) &^ 1
		}
	}
	delay := lnet.DelayRuleSpec{FaultAttr: attr, Rate: uint32(r.Rate), Interval: uint32(r.Interval.WholeSeconds()), Latency: uint32(r.Latency.WholeSeconds())}
	return drop, delay
}

func (f *faultState) delRule(ref ruleRef) {
	if ref.drop != nil {
		ref.n.ln.DelDropRules(&ref.drop.Spec.Src, &ref.drop.Spec.Dst)
	} else {
		ref.n.ln.DelDelayRules(&ref.dly.Spec.Src, &ref.dly.Spec.Dst)
	}
}

// removeRules removes the rules added by earlier faults with the same name.
func (f *faultState) removeRules(ft *scenarios.Fault) {
	for i := range f.scenario.Faults {
		other := &f.scenario.Faults[i]
		if other.Name != ft.Name || !strings.HasSuffix(other.Action, "_add") {
			continue
		}
		f.removeFaultRules(i)
	}
	f.note(ft.Action, ft.Name, "")
}

// removeFaultRules removes the LNet rules fault i added, keeping their hit counts.
func (f *faultState) removeFaultRules(i int) {
	f.pastHits[i] = f.ruleHits(i)
	for _, ref := range append(f.dropRules[i], f.delayRules[i]...) {
		f.delRule(ref)
	}
	f.dropRules[i], f.delayRules[i] = nil, nil
}

// ruleHits returns, per fault index, the messages its rules dropped or delayed so far.
func (f *faultState) ruleHits(i int) uint64 {
	n := f.pastHits[i]
	for _, r := range f.dropRules[i] {
		n += r.drop.Stats.Dropped
	}
	for _, r := range f.delayRules[i] {
		n += r.dly.Stats.Dropped
	}
	return n
}
