package runner

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/modparam"
)

// lnetUser reports whether a node runs a workload (sends or serves one) it has not stopped
// (lustre_stop): such a user holds its own reference on LNet (LNetNIInit), as Lustre and
// lnet_selftest do.
func (c *cluster) lnetUser(n *node) bool {
	if n.stopped {
		return false // lustre_stop released the workload's reference
	}
	for i := range c.scenario.Workload {
		w := &c.scenario.Workload[i]
		for _, m := range c.members(append(append([]string{}, w.From...), w.To...)) {
			if m == n {
				return true
			}
		}
	}
	return false
}

// lnetUnconfigure is lnetctl lnet unconfigure (lnet_unconfigure): lnetctl drops its own
// reference on LNet; LNet stops (LNetNIFini: every NI shut down, o2iblnd closing its
// connections and, its last net on a device gone, its listener) only when no other user
// holds one. A node running a workload holds one, so there the command fails with EBUSY and
// LNet keeps running, as in the kernel. The HCA stays up: peers connecting find no listener.
// With undo (for:) it is lnet configure.
func lnetUnconfigure(f *faultState, n *node, c *scenarios.Command, undo bool) (int, string) {
	if undo {
		return lnetConfigure(f, n, c, false)
	}
	if f.cluster.lnetUser(n) {
		return lnet.EBUSY, "a workload uses LNet on this node"
	}
	if n.unconfigured {
		return 0, "already unconfigured"
	}
	n.ln.FaultFini()
	n.ln.Shutdown()
	n.unconfigured = true
	return 0, ""
}

// lnetConfigure is lnetctl lnet configure (lnet_configure, LNetNIInit): on a node whose LNet
// was unconfigured, a new LNet instance starts with the node's configuration (its NIs as the
// module parameters name them, its routes, peers and policies, as an import would restore
// them); on a running one it does nothing. A node configured by its module options
// (nodes.NAME.module) starts as the kernel starts it: with `--all` from them, without it
// bare (lnetctl's configure sets ln_nis_from_mod_params: networks= and routes= are not
// read), only lo, until an import or net add configures it.
func lnetConfigure(f *faultState, n *node, cmd *scenarios.Command, _ bool) (int, string) {
	if !n.unconfigured {
		return 0, "already configured"
	}
	c := f.cluster
	m := &c.scenario.Members[n.idx]
	bare := false // lustre_start (no command) and the undo of lnet unconfigure restore
	if cmd != nil && cmd.Verb == "lnet configure" {
		_, all := cmd.Args["all"]
		bare = !all && c.scenario.Nodes[m.Group].Module != nil
	}
	if !bare {
		for _, mni := range m.NIs {
			if x, err := lnet.ParseNID(mni.NID.String()); err == nil {
				if rc, msg := lndMissing(n, x.Net().Type()); rc != 0 {
					return rc, msg // LNetNIInit fails: LNet stays unconfigured
				}
			}
		}
	}
	fresh, err := c.newLNet(n.idx, bare)
	if err == nil {
		fresh.SetFailLoc(n.ln.FailLoc()) // libcfs stays loaded: fail_loc and fail_val are kept
		n.ln = fresh
		if bare {
			err = n.ln.Startup()
		} else {
			err = c.start(n)
		}
	}
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	c.applyLNDTimeouts(n) // the LND modules stay loaded with the timeouts net set wrote
	n.unconfigured = false
	return 0, ""
}

// netAdd is lnetctl net add (lnet_dyn_add_ni): the NI runs on the net's LND with the net's
// tunables (the scenario's for that net, or the defaults), each option given replacing one
// (-1: the module's value), and the LND options of netAddLND; on the o2ib backend it uses
// the port whose IPoIB address it has, so a second net on an interface shares its port.
func netAdd(f *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	cl := f.cluster
	nid, err := lnet.ParseNID(c.NIDs[0])
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	if rc, msg := lndMissing(n, nid.Net().Type()); rc != 0 {
		return rc, msg
	}
	restore, rc, msg := cl.netAddLND(n, nid, c)
	if rc != 0 {
		return rc, msg
	}
	defer restore()
	if have := cl.interfaceTaken(n, nid.Net(), c.Args["if"]); have != "" {
		return lnet.EEXIST, fmt.Sprintf("the net's NI on %s takes interface %s", have, c.Args["if"])
	}
	if err := n.ln.ConfigNI(nid, cl.lndFor(c.Net), netAddTunables(cl.scenario, c, n.ln.Tunables().Profile.NIAddByIoctl)); err != nil {
		return lnet.ErrnoOf(err), err.Error()
	}
	cl.owner[nid] = n
	cl.applyLNDTimeouts(n)
	if cl.fab != nil {
		a := nid.Addr()
		if p := cl.fab.ib.PortByIP(netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})); p != nil {
			cl.fab.ports[nid] = p
		}
	}
	return 0, ""
}

// interfaceTaken models the check lnet_dyn_add_ni makes through lnet_add_net_common before
// it starts an NI (lnet_ni_unique_net, EEXIST): the interface of an NI the node already has
// on net that `net add --if ifname` counts as the same (modparam SameInterface: up to 2.15
// one whose name starts with ifname, as the alias eth0:0 takes eth0), or "". An NI on
// ifname itself is left to ConfigNI: an interface has one address, so that NI has the NID
// being added ("NI exists", the same EEXIST). A command by --nid names no interface and is
// not checked here (its NID is).
func (c *cluster) interfaceTaken(n *node, net lnet.NetID, ifname string) string {
	if ifname == "" {
		return ""
	}
	m := &c.scenario.Members[n.idx]
	d := modparam.Dialect(n.ln.Tunables().Profile.ModuleDialect)
	for _, ni := range n.ln.NIs() {
		if ni.NID().Net() != net {
			continue
		}
		if have := niInterface(m, ni.NID().String()); have != "" && have != ifname && d.SameInterface(have, ifname) {
			return have
		}
	}
	return ""
}

// netAddRules is lnetctl net add: with --ip2net, the NIs the kernel's
// lnet_handle_legacy_ip2nets starts (Command.Sub, read at load), in order, the first refusal
// ending the command as an import's Netlink message ends (importRun); otherwise netAdd.
func netAddRules(f *faultState, n *node, c *scenarios.Command, undo bool) (int, string) {
	if _, ok := c.Args["ip2net"]; ok {
		return importRun(f, n, c, undo)
	}
	return netAdd(f, n, c, undo)
}

// netAddLND fails a --cpt naming a CPT the node does not have (lnet_dyn_add_ni: ERANGE;
// EINVAL up to 2.15, NIAddByIoctl),
// and gives the NI net add starts the LND tunables its options set, as
// kiblnd_tunables_setup and ksocknal_startup settle them: --tos from 0 to 255 (-1 or absent:
// the module's tos), --conns-per-peer above 0 (0 or less, or absent: the module's value;
// above 127, which only lnetctl 2.16 and 2.17 hand on, the Netlink LND tunables parsers
// refuse with ERANGE). The o2ib NI also runs its node's release's o2iblnd rules, as one
// configured at load does. The parameters are set for the NI's NID before it starts; the
// returned func puts back those the load gave it, once it has started.
func (c *cluster) netAddLND(n *node, nid lnet.NID, cmd *scenarios.Command) (func(), int, string) {
	if s, ok := cmd.Args["cpt"]; ok {
		if hi, err := scenarios.ParseCPTList(s); err == nil && hi >= max(n.ln.Tunables().CPTs, 1) {
			errno := lnet.ERANGE
			if n.ln.Tunables().Profile.NIAddByIoctl {
				errno = lnet.EINVAL // the ioctl's lnet_dyn_add_ni, up to 2.15
			}
			return nil, errno, fmt.Sprintf("invalid CPT set %s: the node has %d CPTs", s, max(n.ln.Tunables().CPTs, 1))
		}
	}
	tos, cpp := -1, -1
	if v, err := strconv.Atoi(cmd.Args["tos"]); err == nil {
		tos = v
	}
	if v, err := strconv.Atoi(cmd.Args["conns-per-peer"]); err == nil {
		cpp = v
	}
	if cpp > 127 {
		return nil, lnet.ERANGE, fmt.Sprintf("conns_per_peer %d: the LND takes 0 to 127", cpp)
	}
	switch {
	case c.fab == nil:
	case c.eth != nil && scenarios.IsTCPNet(cmd.Net):
		p := c.eth.lnd.Params(nid.Net())
		if tos >= 0 {
			p.TOS = tos
		}
		if cpp > 0 {
			p.ConnsPerPeer = cpp
		}
		if err := c.eth.lnd.SetNIParams(nid, p); err != nil {
			return nil, lnet.EINVAL, err.Error()
		}
		return func() { c.eth.lnd.ClearNIParams(nid) }, 0, ""
	case !scenarios.IsTCPNet(cmd.Net):
		m := c.scenario.Member(n.name)
		base := c.fab.lnd.Params(nid.Net())
		if mni := memberNI(m, nid.String()); mni != nil && mni.LND != nil {
			base = o2ibParams(mni.LND)
		}
		base.Profile = scenarios.O2IBProfile(m.Global.Release)
		p := base
		if tos >= 0 {
			p.TOS = tos
		}
		if cpp > 0 {
			p.ConnsPerPeer = cpp
		}
		if err := c.fab.lnd.SetNIParams(nid, p); err != nil {
			return nil, lnet.EINVAL, err.Error()
		}
		return func() { _ = c.fab.lnd.SetNIParams(nid, base) }, 0, ""
	}
	return func() {}, 0, ""
}

// netAddTunables are the new net's tunables: the scenario's for the net (or the defaults),
// with the options net add was given. By ioctl (up to 2.15) a peer_timeout, peer_credits or
// credits of 0 is the default too: lnet_dyn_add_ni's lnet_set_tune_defaults replaces it
// (and lnetctl passes no tunables at all when none is above 0).
func netAddTunables(s *scenarios.Scenario, c *scenarios.Command, ioctl bool) lnet.NetTunables {
	t := lnet.DefaultNetTunables()
	if nt := s.LNet.Nets[c.Net]; nt != nil {
		t = netTunables(nt)
	}
	for i, p := range []*int{&t.PeerTimeout, &t.PeerCredits, &t.PeerBufferCredits, &t.Credits} {
		v, err := strconv.Atoi(c.Args[scenarios.NetAddTunables[i]])
		if err != nil || v == -1 || ioctl && v == 0 && p != &t.PeerBufferCredits {
			continue
		}
		*p = v
	}
	return t
}

// netDel is lnetctl net del (lnet_dyn_del_ni / lnet_dyn_del_net): the NI named, or every NI
// of the net.
func netDel(_ *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	net, err := lnet.ParseNet(c.Net)
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	nid := lnet.MakeNID(net, 0)
	if len(c.NIDs) > 0 {
		if nid, err = lnet.ParseNID(c.NIDs[0]); err != nil {
			return lnet.EINVAL, err.Error()
		}
	}
	return result(n.ln.DelNI(nid))
}

// lndUnload performs lnd_unload: rmmod of an LND module that cannot be loaded again, as
// sanity-lnet test 280 has it (its module file missing, so request_module fails). While the
// node's LNet has an NI of that LND the module is in use and rmmod fails: nothing changes.
// Otherwise LNet's next start of an NI of that LND (lnet configure, net add, an import's net
// entries) fails as lnet_load_lnd does (lndMissing), until a crash and restart load the
// node's modules afresh.
func lndUnload(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	t := scenarios.LNDModules[ft.LND]
	switch {
	case n.down:
		f.note(ft.Action, n.name, "node down: nothing done")
		return
	case !n.unconfigured:
		for _, ni := range n.ln.NIs() {
			if ni.NID().Net().Type() == t {
				f.note(ft.Action, n.name, ft.LND+" is in use by "+ni.NID().String()+": nothing done")
				return
			}
		}
	}
	n.lndGone |= 1 << t
	f.note(ft.Action, n.name, ft.LND)
}

// lndMissing models lnet_load_lnd for an LND lnd_unload removed: request_module finds no
// module and the NI's start fails with EINVAL (up to 2.16 lnet_startup_lndnet's own -EINVAL;
// from 2.17, LU-18893, the positive return of modprobe turned into -EINVAL), the kernel
// logging "Can't load LND". It returns the errno and message, or 0 when the LND is there.
func lndMissing(n *node, t lnet.LNDType) (int, string) {
	if n.lndGone&(1<<t) == 0 {
		return 0, ""
	}
	mod := "ksocklnd"
	if t == lnet.O2IBLND {
		mod = "ko2iblnd"
	}
	return lnet.EINVAL, fmt.Sprintf("Can't load LND %s, module %s", t, mod)
}

// lustreState performs lustre_stop and lustre_start: what an admin does around unloading LNet
// on a node that serves or runs a workload. lustre_stop stands for unmounting its Lustre
// targets and clients (or stopping lnet_selftest): their buffers are unlinked (LNetMDUnlink),
// the operations the node started and has not finished fail with ECONNABORTED, its streams
// issue nothing more and the workload's reference on LNet is dropped, so `lnet unconfigure`
// then stops LNet (lnet_unconfigure finds no other user). lustre_start mounts again: on a node
// whose LNet was unconfigured, LNetNIInit first starts it with the node's configuration (as a
// mount loads LNet with its module parameters); the targets are posted again and the streams
// resume.
func lustreState(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
	n := f.cluster.byName[ft.Node]
	what := kind(ft, undo)
	switch {
	case n.down:
		f.note(what, n.name, "node down: nothing done")
	case downs(ft, undo):
		if n.stopped {
			return
		}
		for _, h := range n.targets {
			_ = n.ln.MDUnlink(h)
		}
		n.targets = n.targets[:0]
		n.stopped = true
		f.cluster.workloads.abortFrom(n)
		f.note(what, n.name, "")
	case n.stopped:
		if n.unconfigured {
			if rc, msg := lnetConfigure(f, n, nil, false); rc != 0 {
				f.note(what, n.name, "lnet configure failed: "+msg)
				return
			}
		}
		n.stopped = false
		f.cluster.workloads.nodeRestarted(n)
		f.note(what, n.name, "")
	}
}
