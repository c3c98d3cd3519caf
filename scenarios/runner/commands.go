package runner

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
)

// cmdFunc runs an lnetctl command on a node's LNet (or with undo, what for: does after the
// fault's duration) and returns the errno the kernel refused it with (0: done) and a detail.
type cmdFunc func(n *node, c *scenarios.Command, undo bool) (errno int, detail string)

// cfgFunc is a command that changes what runs on the node (lnet configure/unconfigure).
type cfgFunc func(f *faultState, n *node, c *scenarios.Command, undo bool) (errno int, detail string)

// onNode adapts a cmdFunc, which needs only the node.
func onNode(run cmdFunc) cfgFunc {
	return func(_ *faultState, n *node, c *scenarios.Command, undo bool) (int, string) { return run(n, c, undo) }
}

// command makes an lnetctl command an action: it runs on the fault's node (one that is down
// runs nothing, as lnetctl on a crashed node cannot) and its outcome is recorded.
func command(run cfgFunc) actionFunc {
	return func(f *faultState, _ int, ft *scenarios.Fault, undo bool) {
		n := f.cluster.byName[ft.Node]
		text := strings.TrimPrefix(ft.Lnetctl, "lnetctl ")
		if undo {
			text = scenarios.LookupAction(ft.Action).Undo + " (for: of " + text + ")"
		}
		rec := record.Command{Time: f.cluster.k.Now(), Node: ft.Node, Name: ft.Name, Command: text}
		if b := f.cmdBlocked(n, ft); b != nil {
			rec.Result, rec.Detail = b.Result, b.Detail
		} else {
			errno, detail := run(f, n, ft.Cmd, undo)
			rec.Result, rec.Detail = "ok", detail
			if errno != 0 {
				rec.Result = lnet.ErrnoName(errno)
			}
		}
		f.cmds = append(f.cmds, rec)
		if f.timeline != nil {
			f.timeline.fault(rec.Time, "lnetctl "+ft.Action, ft.Node)
		}
	}
}

// commandResult returns the outcome of the last run of the command named name at or before
// the time now (ok, an errno name, not_run), and false if it has not run by then.
func (f *faultState) commandResult(name string) (record.Command, bool) {
	for i := len(f.cmds) - 1; i >= 0; i-- {
		if f.cmds[i].Name == name {
			return f.cmds[i], true
		}
	}
	return record.Command{}, false
}

// eachNID runs one call per NID of a command's NID list as lustre_lnet_route_common does:
// EEXIST counts as done, EHOSTUNREACH is remembered and the next NID tried, any other
// refusal stops the command. The result is that of the last NID tried; the detail gives each
// NID's.
func eachNID(nids []string, call func(lnet.NID) error) (int, string) {
	errno, details := 0, []string(nil)
	for _, s := range nids {
		nid, err := lnet.ParseNID(s)
		if err == nil {
			err = call(nid)
		}
		errno = 0
		res := "ok"
		if err != nil {
			errno = lnet.ErrnoOf(err)
			res = err.Error()
		}
		details = append(details, s+": "+res)
		if errno != 0 && errno != lnet.EEXIST && errno != lnet.EHOSTUNREACH {
			break
		}
		if errno == lnet.EEXIST {
			errno = 0
		}
	}
	return errno, strings.Join(details, "; ")
}

// routeAdd is lnetctl route add (lustre_lnet_config_route): one lnet_add_route per gateway
// NID, with the gateway's health sensitivity when --health_sensitivity gave one (2.15,
// 2.16; else 1); for: deletes what it added.
func routeAdd(n *node, c *scenarios.Command, undo bool) (int, string) {
	net, err := lnet.ParseNet(c.Net)
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	if undo {
		return routeDel(n, c, false)
	}
	sens := 1
	if c.Sensitivity != nil {
		sens = *c.Sensitivity
	}
	return eachNID(c.NIDs, func(gw lnet.NID) error { return n.ln.ConfigRouteSensitivity(net, gw, c.Hop, c.Priority, sens) })
}

// routeDel is lnetctl route del (lustre_lnet_del_route): one lnet_del_route per gateway NID.
func routeDel(n *node, c *scenarios.Command, _ bool) (int, string) {
	net, err := lnet.ParseNet(c.Net)
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	return eachNID(c.NIDs, func(gw lnet.NID) error { return n.ln.DelRoute(net, gw) })
}

// hasCommands reports whether the timeline runs lnetctl commands (commands.csv is written).
func hasCommands(s *scenarios.Scenario) bool {
	for i := range s.Faults {
		if s.Faults[i].Cmd != nil {
			return true
		}
	}
	return false
}

// parseNIDs converts a command's resolved NIDs.
func parseNIDs(ss []string) []lnet.NID {
	out := make([]lnet.NID, 0, len(ss))
	for _, s := range ss {
		if nid, err := lnet.ParseNID(s); err == nil {
			out = append(out, nid)
		}
	}
	return out
}

// result turns a model refusal into the command's outcome.
func result(err error) (int, string) {
	if err != nil {
		return lnet.ErrnoOf(err), err.Error()
	}
	return 0, ""
}

// setGlobal is lnetctl set NAME VALUE (the kernel's module-parameter setters); with undo
// (for:) it sets the value the tunable had before.
func setGlobal(f *faultState, n *node, c *scenarios.Command, undo bool) (int, string) {
	name := strings.TrimPrefix(c.Verb, "set ")
	if undo {
		prev, ok := f.prevGlobal[c]
		if !ok {
			return 0, "nothing to restore: the set was refused"
		}
		delete(f.prevGlobal, c)
		return result(n.ln.SetGlobal(name, prev))
	}
	prev, _ := n.ln.Global(name)
	errno, detail := result(n.ln.SetGlobal(name, c.Value))
	if errno == 0 {
		f.prevGlobal[c] = prev
	}
	return errno, detail
}

// netSet is lnetctl net set --nid NID|--all with --health V (lnet_ni_set_healthv) or
// --conns-per-peer V (the NI's o2iblnd conns_per_peer: peers created after it open V
// connections; the ideal LND has no connections, so there it changes nothing), or --net NET
// --lnd-timeout S (lustre_lnet_config_lnd_timeout: the timeout module parameter of NET's
// LND, which every NI of that LND on the node uses from then on: applyLNDTimeouts).
func netSet(f *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	if _, ok := c.Args["lnd-timeout"]; ok {
		v := c.Value
		if scenarios.IsTCPNet(c.Net) {
			n.sockTimeout = &v
		} else {
			n.o2ibTimeout = &v
		}
		f.cluster.applyLNDTimeouts(n)
		return 0, ""
	}
	_, all := c.Args["all"]
	if _, cpp := c.Args["conns-per-peer"]; cpp {
		return connsPerPeer(f, n, c, all)
	}
	if all {
		return result(n.ln.ConfigNIHealth(0, true, c.Value))
	}
	return eachNID(c.NIDs, func(nid lnet.NID) error { return n.ln.ConfigNIHealth(nid, false, c.Value) })
}

// connsPerPeer sets conns_per_peer on the NIs named (or all), ENOENT for a NID that is not
// a local NI; a negative value reaches no NI (lnetctl passes it on to no call).
func connsPerPeer(f *faultState, n *node, c *scenarios.Command, all bool) (int, string) {
	if c.Value < 0 {
		return 0, ""
	}
	set := func(ni *lnet.NI) {
		if f.cluster.fab != nil {
			f.cluster.fab.lnd.SetConnsPerPeer(ni, c.Value)
		}
	}
	if all {
		for _, ni := range n.ln.NIs() {
			set(ni)
		}
		return 0, ""
	}
	return eachNID(c.NIDs, func(nid lnet.NID) error {
		ni := n.ln.NI(nid)
		if ni == nil {
			return &lnet.ConfigError{Errno: lnet.ENOENT, Msg: "no local NI " + nid.String()}
		}
		set(ni)
		return nil
	})
}

// peerSet is lnetctl peer set --nid NID|--all --health V (lnet_peer_ni_set_healthv), or
// --nid NID --state S (the peer's lp_state).
func peerSet(n *node, c *scenarios.Command, _ bool) (int, string) {
	if _, ok := c.Args["state"]; ok {
		return eachNID(c.NIDs, func(nid lnet.NID) error { return n.ln.SetPeerState(nid, uint32(c.Value)) })
	}
	_, all := c.Args["all"]
	if all {
		return result(n.ln.ConfigPeerNIHealth(0, true, c.Value))
	}
	return eachNID(c.NIDs, func(nid lnet.NID) error { return n.ln.ConfigPeerNIHealth(nid, false, c.Value) })
}

// peerAdd is lnetctl peer add (lustre_lnet_config_peer_nid).
func peerAdd(n *node, c *scenarios.Command, _ bool) (int, string) {
	prim, err := lnet.ParseNID(c.Prim)
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	return result(n.ln.ConfigPeer(prim, parseNIDs(c.NIDs), !c.NonMR, c.LockPrim))
}

// peerDel is lnetctl peer del (lustre_lnet_del_peer_nid).
func peerDel(n *node, c *scenarios.Command, _ bool) (int, string) {
	prim, err := lnet.ParseNID(c.Prim)
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	return result(n.ln.DelPeer(prim, parseNIDs(c.NIDs), c.Force))
}

// udspAdd is lnetctl udsp add (lnet_udsp_add_policy): EALREADY for a rule equal to one there
// (an equal priority rule updates its priority instead).
func udspAdd(n *node, c *scenarios.Command, _ bool) (int, string) {
	spec := lnet.UDSPSpec{Src: c.Args["src"], Dst: c.Args["dst"], Rte: c.Args["rte"], Priority: int64(c.Priority)}
	if err := n.ln.AddUDSP(spec, c.Value); err != nil {
		return lnet.EALREADY, err.Error()
	}
	return 0, ""
}

// debugPeer is lnetctl debug peer --nid NID (IOC_LIBCFS_GET_PEER, lnet.Node.DebugPeer): EINVAL
// without a local NI on NID's net, ENOENT when that NI's LND has no peer.
func debugPeer(n *node, c *scenarios.Command, _ bool) (int, string) {
	if len(c.NIDs) != 1 {
		return lnet.EINVAL, ""
	}
	nid, err := lnet.ParseNID(c.NIDs[0])
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	if rc := n.ln.DebugPeer(nid); rc != 0 {
		return -rc, ""
	}
	return 0, ""
}

// statsReset is lnetctl stats reset (IOC_LIBCFS_RESET_LNET_STATS, lnet.Node.ResetStats).
func statsReset(n *node, _ *scenarios.Command, _ bool) (int, string) {
	n.ln.ResetStats()
	return 0, ""
}

// udspDel is lnetctl udsp del --idx N | --all (lnet_udsp_del_policy): ENOENT for no policy
// at that index, which up to 2.15 (LegacyUDSPDel, before LU-16574) the kernel does not
// report: the command succeeds.
func udspDel(n *node, c *scenarios.Command, _ bool) (int, string) {
	if err := n.ln.DelUDSP(c.Value); err != nil {
		if n.ln.Tunables().Profile.LegacyUDSPDel {
			return 0, err.Error() + " (reported to no one up to 2.15)"
		}
		return lnet.ENOENT, err.Error()
	}
	return 0, ""
}

// applyLNDTimeouts gives every NI of the node the LND timeouts `net set --lnd-timeout` wrote
// (ko2iblnd's timeout, ksocklnd's sock_timeout: module-wide in the kernel, read at each use),
// after the command and when LNet starts again on a running node (lnet configure). The
// ideal backend has no LND timeout of its own (its NIs use lnet_lnd_timeout): nothing
// changes there.
func (c *cluster) applyLNDTimeouts(n *node) {
	for _, ni := range n.ln.NIs() {
		if n.o2ibTimeout != nil && c.fab != nil {
			c.fab.lnd.SetTimeout(ni, *n.o2ibTimeout)
		}
		if n.sockTimeout != nil && c.eth != nil {
			c.eth.lnd.SetTimeout(ni, *n.sockTimeout)
		}
	}
}
