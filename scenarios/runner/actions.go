package runner

import (
	"fmt"
	"slices"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/scenarios"
)

// actionFunc performs fault i of the timeline, or with undo reverses it after its for:.
type actionFunc func(f *faultState, i int, ft *scenarios.Fault, undo bool)

// actionImpl is how the run performs one action of the scenarios registry: on the ideal
// backend, and on the o2ib backend where the InfiniBand model does it differently (nil: as on
// the ideal backend). An action the registry marks O2IBOnly has no ideal function.
type actionImpl struct {
	ideal, o2ib actionFunc
}

// actionImpls holds an implementation of every action scenarios.Actions lists
// (TestEveryActionRuns).
var actionImpls = map[string]actionImpl{
	"link_down":         {ideal: idealDown, o2ib: fabLink},
	"port_error":        {ideal: idealDown, o2ib: fabLink},
	"link_up":           {ideal: idealUp, o2ib: fabLink},
	"port_active":       {ideal: idealPortActive, o2ib: fabLink},
	"hca_fatal":         {ideal: idealHCA, o2ib: fabHCA},
	"hca_recover":       {ideal: idealHCA, o2ib: fabHCA},
	"node_crash":        {ideal: idealNode, o2ib: fabNode},
	"node_restart":      {ideal: idealNode, o2ib: fabNode},
	"lustre_stop":       {ideal: lustreState},
	"lustre_start":      {ideal: lustreState},
	"router_down":       {ideal: routerState},
	"router_up":         {ideal: routerState},
	"cm_reject":         {o2ib: fabCMReject},
	"link_loss":         {o2ib: fabImpair},
	"link_delay":        {ideal: idealDelay, o2ib: fabImpair},
	"sm_down":           {o2ib: fabSM},
	"sm_up":             {o2ib: fabSM},
	"drop_rule_add":     {ideal: ruleAdd},
	"delay_rule_add":    {ideal: ruleAdd},
	"drop_rule_remove":  {ideal: ruleRemove},
	"delay_rule_remove": {ideal: ruleRemove},
	"set_health":        {ideal: setHealth},
	"set_peer_health":   {ideal: setPeerHealth},
	"fail_loc":          {ideal: failLoc},
	"add_uuid":          {ideal: addUUID},
	"del_uuid":          {ideal: delUUID},
	"lnd_unload":        {ideal: lndUnload},
	"route add":         {ideal: command(onNode(routeAdd))},
	"route del":         {ideal: command(onNode(routeDel))},
	"net set":           {ideal: command(netSet)},
	"peer set":          {ideal: command(onNode(peerSet))},
	"peer add":          {ideal: command(onNode(peerAdd))},
	"peer del":          {ideal: command(onNode(peerDel))},
	"lnet unconfigure":  {o2ib: command(lnetUnconfigure)},
	"lnet configure":    {ideal: command(lnetConfigure)},
	"ping":              {ideal: pingCmd},
	"net add":           {ideal: command(netAddRules)},
	"net del":           {ideal: command(netDel)},
	"udsp add":          {ideal: command(onNode(udspAdd))},
	"udsp del":          {ideal: command(onNode(udspDel))},
	"discover":          {ideal: discoverCmd},
	"stats reset":       {ideal: command(onNode(statsReset))},
	"debug peer":        {ideal: command(onNode(debugPeer))},
	"import":            {ideal: importAction},
	"fault drop add":    {ideal: command(faultAdd)},
	"fault delay add":   {ideal: command(faultAdd)},
	"fault drop del":    {ideal: command(faultDel)},
	"fault delay del":   {ideal: command(faultDel)},
	"fault drop reset":  {ideal: command(faultReset)},
	"fault delay reset": {ideal: command(faultReset)},
	"fault":             {ideal: command(faultBare)},
}

func init() {
	for _, name := range scenarios.SetNames {
		actionImpls["set "+name] = actionImpl{ideal: command(setGlobal)}
	}
}

// runnable reports why fault i cannot run on this cluster's backend, if it cannot.
func (f *faultState) runnable(i int, ft *scenarios.Fault) error {
	a := scenarios.LookupAction(ft.Action)
	impl, ok := actionImpls[ft.Action]
	switch {
	case a == nil || !ok:
		return fmt.Errorf("%w: faults[%d]: action %q is not implemented", ErrUnsupported, i, ft.Action)
	case a.O2IBOnly && f.cluster.fab == nil:
		return fmt.Errorf("%w: faults[%d]: %s needs the o2ib backend (the InfiniBand model), not the ideal LND", ErrUnsupported, i, ft.Action)
	case impl.ideal == nil && impl.o2ib == nil:
		return fmt.Errorf("%w: faults[%d]: action %q is not implemented", ErrUnsupported, i, ft.Action)
	case ft.SwitchLink != "" && f.cluster.eth.trunk(ft.SwitchLink) == nil:
		return fmt.Errorf("%w: faults[%d]: switch_link %s needs the o2ib backend's Ethernet model, not the ideal LND", ErrUnsupported, i, ft.SwitchLink)
	}
	return nil
}

// perform applies fault i, or reverses it (undo), on the cluster's backend.
func (f *faultState) perform(i int, ft *scenarios.Fault, undo bool) {
	if ft.SwitchLink != "" {
		switchLink(f, ft, undo)
		return
	}
	impl := actionImpls[ft.Action]
	do := impl.ideal
	if f.cluster.fab != nil && impl.o2ib != nil {
		do = impl.o2ib
	}
	if do != nil {
		do(f, i, ft, undo)
	}
}

// kind is what the results record for fault ft: its action, or when undone the registry's
// reverse (link_down -> link_up, ...).
func kind(ft *scenarios.Fault, undo bool) string {
	if undo {
		return scenarios.LookupAction(ft.Action).Undo
	}
	return ft.Action
}

// downs reports whether performing ft takes something down: an action that for: can undo,
// not being undone (link_down, port_error, hca_fatal, node_crash, router_down).
func downs(ft *scenarios.Fault, undo bool) bool {
	return (scenarios.LookupAction(ft.Action).Undo != "") != undo
}

func idealDown(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	if undo {
		f.niUp(ft.NI, kind(ft, true))
	} else {
		f.niDown(ft.NI, ft.Action)
	}
}

func idealUp(f *faultState, _ int, ft *scenarios.Fault, _ bool) { f.niUp(ft.NI, ft.Action) }

func idealPortActive(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	if k, _, ok := f.hcaNIs(ft.NI); ok && f.fatalHCA[k] {
		// A fatal HCA raises no PORT_ACTIVE (the loader rejects the plain case).
		n, nid, _ := f.cluster.niRef(ft.NI)
		f.note("port_active", n.name+"/"+nid.String(), "HCA fatal: no PORT_ACTIVE")
		return
	}
	f.niUp(ft.NI, ft.Action)
}

func idealHCA(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	if downs(ft, undo) {
		f.hcaFatal(ft.NI)
	} else {
		f.hcaRecover(ft.NI)
	}
}

func idealNode(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	if !downs(ft, undo) {
		f.nodeRestart(ft.Node)
		return
	}
	for _, nid := range f.cluster.byName[ft.Node].nids {
		f.niDown(nid.String(), "node_crash")
	}
}

func idealDelay(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	_, nid, _ := f.cluster.niRef(ft.NI)
	p := f.cluster.port(nid)
	if undo {
		p.delay -= ft.Delay
		f.note(kind(ft, true), nid.String(), "")
		return
	}
	p.delay += ft.Delay
	f.note("link_delay", nid.String(), ft.Delay.String())
}

// routerState stops or restarts a router's routing, as `lnetctl set routing 0|1` on it
// (router_down, router_up): see lnet.Node.SetRouting.
func routerState(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	n := f.cluster.byName[ft.Node]
	if n.down {
		f.note(kind(ft, undo), ft.Node, "node down: nothing to do")
		return
	}
	n.ln.SetRouting(!downs(ft, undo))
	f.note(kind(ft, undo), ft.Node, "routing "+n.ln.RoutingState())
}

func setHealth(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n, nid, _ := f.cluster.niRef(ft.NI)
	if err := n.ln.SetNIHealth(nid, ft.Health); err == nil {
		f.note("set_health", nid.String(), fmt.Sprint(ft.Health))
	}
}

func setPeerHealth(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	_, nid, _ := f.cluster.niRef(ft.PeerNI)
	if err := n.ln.SetPeerHealth(nid, ft.Health); err == nil {
		f.note("set_peer_health", n.name+"/"+nid.String(), fmt.Sprint(ft.Health))
	}
}

// failLoc is `lctl set_param fail_loc=X fail_val=Y` on the node; its undo (for:) writes
// fail_loc=0 and leaves fail_val.
func failLoc(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	n := f.cluster.byName[ft.Node]
	if n.down {
		f.note(kind(ft, undo), n.name, "node down: nothing to do")
		return
	}
	loc, val := ft.FailLoc, uint32(ft.FailVal)
	if undo {
		_, val = n.ln.FailLoc()
		loc = 0
	}
	n.ln.SetFailLoc(loc, val)
	f.note(kind(ft, undo), n.name, fmt.Sprintf("fail_loc=%#x fail_val=%d", loc, int32(val)))
}

// mtiNIDsMax is MTI_NIDS_MAX, the NIDs a UUID keeps (class_add_uuid: -EOVERFLOW beyond).
const mtiNIDsMax = 32

// addUUID is `lctl add_uuid UUID NID` on the node (class_add_uuid): the NID joins the UUID's
// NIDs (a UUID not known yet is made with it; a NID it has is not added twice; beyond
// MTI_NIDS_MAX it is dropped with a warning) and Lustre hands all of them to LNet
// (LNetAddPeer: lnet.Node.AddPeerNIDs). A node down or unconfigured does nothing.
func addUUID(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	if n.down || n.unconfigured {
		f.note(kind(ft, false), n.name, "LNet down: nothing to do")
		return
	}
	nid, err := lnet.ParseNID(ft.NID)
	if err != nil {
		f.note(kind(ft, false), n.name, err.Error())
		return
	}
	if n.uuids == nil {
		n.uuids = map[string][]lnet.NID{}
	}
	nids := n.uuids[ft.UUID]
	switch {
	case slices.Contains(nids, nid):
	case len(nids) == mtiNIDsMax:
		f.note(kind(ft, false), n.name, fmt.Sprintf("%s: can't add NID %s: EOVERFLOW", ft.UUID, nid))
	default:
		nids = append(nids, nid)
		n.uuids[ft.UUID] = nids
	}
	n.ln.AddPeerNIDs(nids)
	f.note(kind(ft, false), n.name, fmt.Sprintf("%s %s", ft.UUID, nid))
}

// delUUID is `lctl del_uuid UUID` (class_del_uuid): the UUID's NIDs are forgotten; LNet's
// peers stay. An unknown UUID is EINVAL.
func delUUID(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	if _, ok := n.uuids[ft.UUID]; !ok {
		f.note(kind(ft, false), n.name, ft.UUID+": EINVAL")
		return
	}
	delete(n.uuids, ft.UUID)
	f.note(kind(ft, false), n.name, ft.UUID)
}

func ruleAdd(f *faultState, i int, ft *scenarios.Fault, undo bool) {
	if undo {
		f.removeFaultRules(i)
		f.note(kind(ft, true), ft.Name, "")
		return
	}
	f.addRule(i, ft)
}

func ruleRemove(f *faultState, _ int, ft *scenarios.Fault, _ bool) { f.removeRules(ft) }

// fabLink takes a port's cable down or up on the InfiniBand model.
func fabLink(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	fb := f.cluster.fab
	_, nid, err := f.cluster.niRef(ft.NI)
	if err != nil {
		return
	}
	down := downs(ft, undo)
	if l := f.cluster.eth.linkOf(nid); l != nil {
		if down {
			l.Down()
		} else {
			l.Up()
		}
		f.cluster.eth.lnd.LinkChanged(l, !down)
	}
	if l := fb.linkOf(nid); l != nil {
		if down {
			l.LinkDown()
		} else {
			l.LinkUp()
		}
	}
	detail := ""
	if p := fb.ports[nid]; !down && p != nil && p.HCA().Fatal() {
		// The port is cabled and trains, but a fatal HCA raises no PORT_ACTIVE: the NI
		// stays down until hca_recover (the loader rejects the plain case).
		detail = "HCA fatal: no PORT_ACTIVE"
	}
	f.note(kind(ft, undo), nid.String(), detail)
}

// fabHCA fails an HCA (IB_EVENT_DEVICE_FATAL) or resets it.
func fabHCA(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	fb := f.cluster.fab
	_, nid, err := f.cluster.niRef(ft.NI)
	if err != nil {
		return
	}
	p := fb.ports[nid]
	if p == nil {
		return
	}
	h := p.HCA()
	if downs(ft, undo) {
		h.HCAFatal()
		f.note("hca_fatal", nid.String(), "")
		return
	}
	// The driver's reset and re-probe: ports that are up raise PORT_ACTIVE and o2iblnd
	// rebuilds the device's resources (see o2ib's dev.AsyncEvent).
	detail := ""
	if !h.Fatal() {
		detail = "HCA not fatal: nothing to reset"
	}
	h.Recover()
	f.note("hca_recover", nid.String(), detail)
}

// fabNode crashes a node or reboots it.
func fabNode(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	if downs(ft, undo) {
		f.crash(ft.Node)
	} else {
		f.reboot(ft.Node)
	}
}

// crash makes a node and everything in its memory vanish: the HCAs go silent, o2iblnd's and
// LNet's state is lost without a word to the peers.
func (f *faultState) crash(name string) {
	c := f.cluster
	ln := c.byName[name]
	if ln.down {
		return
	}
	n := c.fab.nodes[name]
	n.CrashNode()
	c.fab.lnd.NodeCrashed(n)
	if h := c.eth.host(name); h != nil {
		h.Crash()
		c.eth.lnd.HostCrashed(h)
	}
	ln.down = true
	ln.o2ibTimeout, ln.sockTimeout = nil, nil // the LND modules load afresh at the reboot
	ln.lndGone = 0
	ln.ln.Shutdown()
	c.workloads.nodeCrashed(ln)
	f.note("node_crash", name, "")
}

// reboot brings a crashed node back: the HCAs return and a fresh LNet (new incarnation)
// starts.
func (f *faultState) reboot(name string) {
	c := f.cluster
	ln := c.byName[name]
	if !ln.down {
		return
	}
	c.fab.nodes[name].Restart()
	if h := c.eth.host(name); h != nil {
		h.Restart()
	}
	fresh, err := c.newLNet(ln.idx, false)
	if err == nil {
		ln.ln = fresh
		err = c.start(ln)
	}
	if err != nil {
		f.note("node_restart_failed", name, err.Error())
		return
	}
	ln.down = false
	c.workloads.nodeRestarted(ln)
	f.note("node_restart", name, "")
}

// fabImpair sets a link's packet loss (link_loss: only it has a loss) or extra delay
// (link_delay), or with undo clears it.
func fabImpair(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	_, nid, _ := f.cluster.niRef(ft.NI)
	loss, delay := ft.Loss, ft.Delay
	if undo {
		loss, delay = 0, 0
	}
	if el := f.cluster.eth.linkOf(nid); el != nil {
		detail := delay.String()
		if ft.Loss > 0 {
			el.SetLoss(loss)
			detail = fmt.Sprint(loss)
		} else {
			el.SetExtraDelay(delay)
		}
		f.note(ft.Action, nid.String(), detail)
		return
	}
	l := f.cluster.fab.linkOf(nid)
	if l == nil {
		return
	}
	detail := delay.String()
	if ft.Loss > 0 {
		l.SetLoss(loss)
		detail = fmt.Sprint(loss)
	} else {
		l.SetExtraDelay(delay)
	}
	f.note(ft.Action, nid.String(), detail)
}

// fabCMReject makes the next connection attempts to a peer NI fail with a CM reject.
func fabCMReject(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	fb := f.cluster.fab
	if undo {
		return
	}
	_, nid, err := f.cluster.niRef(ft.PeerNI)
	if err != nil {
		return
	}
	reason, why := ib.RejConsumerDefined, cmRejectReasons[ft.Reason]
	var priv []byte
	if ft.Reason == "invalid_srv_id" {
		reason = ib.RejInvalidServiceID // no listener: the CM itself rejects
	} else {
		// A queue-size reject advertises half the default depth, which the initiator
		// adopts before reconnecting (as kiblnd_rejected does for a smaller depth).
		priv = o2ib.RejectPrivateData(why, 4)
	}
	count := max(ft.Count, 1)
	fb.ib.InjectCMReject(fb.ports[nid].IPs()[0], reason, priv, count)
	f.note("cm_reject", nid.String(), fmt.Sprintf("%s x%d", ft.Reason, count))
}

// fabSM makes the subnet manager unreachable (sm_down: path record queries go unanswered,
// so connection attempts end in ROUTE_ERROR) or reachable again (sm_up, or sm_down's for:).
func fabSM(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	if downs(ft, undo) {
		f.cluster.fab.ib.SMDown()
	} else {
		f.cluster.fab.ib.SMUp()
	}
	f.note(kind(ft, undo), "sm", "")
}

// switchLink performs link_down, link_up, link_loss or link_delay on a leaf-spine Ethernet
// trunk, or with undo reverses it. model/tcp routes around a trunk that is down at once;
// socklnd sees no carrier change (no NI is on a trunk), only TCP's loss.
func switchLink(f *faultState, ft *scenarios.Fault, undo bool) {
	l := f.cluster.eth.trunk(ft.SwitchLink)
	switch ft.Action {
	case "link_down", "link_up":
		if downs(ft, undo) {
			l.Down()
		} else {
			l.Up()
		}
		f.note(kind(ft, undo), ft.SwitchLink, "")
	case "link_loss":
		loss := ft.Loss
		if undo {
			loss = 0
		}
		l.SetLoss(loss)
		f.note(ft.Action, ft.SwitchLink, fmt.Sprint(loss))
	case "link_delay":
		delay := ft.Delay
		if undo {
			delay = 0
		}
		l.SetExtraDelay(delay)
		f.note(ft.Action, ft.SwitchLink, delay.String())
	}
}
