package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// counters returns each node's state in the shapes lnetctl prints: its nets and peers with
// every block the model has (net: `net show -v 4` with the per-type counts inside statistics
// and each NI's tx credits, which lnetctl does not print; peer: likewise) and every global
// tunable (global: `global show`'s keys and the model's others), then, rendered by the same
// functions the lnetctl check reads (show), `lnetctl stats show` (statistics), `route show
// -v` (route), on a router `routing show` (routing,
// buffers) plus the routing counters lnetctl has no name for (router counters), and on a
// node with rules `udsp show` (udsp). yaml.v3 writes map keys sorted.
func counters(c *cluster) map[string]any {
	out := map[string]any{}
	for _, n := range c.nodes {
		// every block the model has: tx credits, health stats, per-type counts, UDSP info
		// route: [] stays when route show prints nothing (a node without routes)
		// statistics: every counter the model keeps (stats show prints the release's)
		m := map[string]any{"net": showNets(c, n), "peer": n.ln.ShowPeers(), "global": n.ln.ShowGlobal(), "route": []any{},
			"statistics": n.ln.Stats()}
		for _, it := range show(c, n, "route show -v") {
			m[it.key] = it.val
		}
		if n.ln.RouterPoolsCPT() != nil {
			for _, it := range show(c, n, "routing show") {
				m[it.key] = it.val
			}
			m["router counters"] = routerCounters(n.ln)
		}
		if len(n.ln.UDSPs()) > 0 {
			m["udsp"] = n.ln.UDSPs()
		}
		out[n.name] = m
	}
	return out
}

// show renders what `lnetctl <cmd>` prints on node n as a YAML document (its top-level
// keys in the order lnetctl prints them); cmd is one of scenarios.LnetctlShowCommands, a net, peer or route show with levels
// and filters (showLeveled), or `which_nid NID [NID...]` (the kernel's peer distance reply
// that lctl which_nid reads). It returns nil for an unknown command (the loader refuses
// those).
func show(c *cluster, n *node, cmd string) omap {
	if doc := showDoc(c, n, cmd); doc != nil {
		return sortedOmap(doc)
	}
	switch cmd {
	case "routing show":
		return routingShow(n.ln)
	case "global show":
		return omap{{"global", globalShow(n.ln)}}
	case "export":
		return exportShow(c, n)
	case "export --backup":
		return exportBackup(c, n)
	}
	return nil
}

// showDoc renders the commands whose document has at most one top-level key (or lnetctl's
// error document) as a mapping: show's others; nil for the rest.
func showDoc(c *cluster, n *node, cmd string) map[string]any {
	ln := n.ln
	if scenarios.IsShowCommand(cmd) {
		sc, err := scenarios.ParseShowCommand(cmd)
		if err != nil {
			return nil // refused at load
		}
		return showLeveled(c, n, sc)
	}
	if scenarios.IsUDSPShow(cmd) {
		idx, err := scenarios.ParseUDSPShow(cmd, ln.Tunables().Profile)
		if err != nil {
			return nil // refused at load
		}
		return udspShow(ln, idx)
	}
	switch cmd {
	case "stats show":
		return map[string]any{"statistics": statsShow(ln)}
	case "peer list":
		return peerList(ln)
	case "debug recovery --local", "debug recovery -l":
		return recoveryQueue(ln.Tunables().Profile, "local NI recovery", ln.LocalRecoveryQueue())
	case "debug recovery --peer", "debug recovery -p":
		return recoveryQueue(ln.Tunables().Profile, "peer NI recovery", ln.PeerRecoveryQueue())
	case "fault drop show":
		return faultShow(ln, "drop")
	case "fault delay show":
		return faultShow(ln, "delay")
	}
	if args, ok := strings.CutPrefix(cmd, "which_nid "); ok {
		return whichNID(ln, strings.Fields(args))
	}
	return nil
}

// statsShow is `lnetctl stats show` (lustre_lnet_show_stats, the same printer in every
// release): LNet's global counters in its order; failed_resends and successful_resends
// after network_timeout_count from 2.17 (NoResendStatsShow). The model's late_msg_count,
// which lnetctl does not print, is left out (counters.yaml keeps it).
func statsShow(ln *lnet.Node) omap {
	c := ln.Stats()
	m := omap{{"msgs_alloc", c.MsgsAlloc}, {"msgs_max", c.MsgsMax}, {"rst_alloc", c.RstAlloc}, {"errors", c.Errors},
		{"send_count", c.SendCount}, {"resend_count", c.ResendCount}, {"response_timeout_count", c.ResponseTimeoutCount},
		{"local_interrupt_count", c.LocalInterruptCount}, {"local_dropped_count", c.LocalDroppedCount},
		{"local_aborted_count", c.LocalAbortedCount}, {"local_no_route_count", c.LocalNoRouteCount},
		{"local_timeout_count", c.LocalTimeoutCount}, {"local_error_count", c.LocalErrorCount},
		{"remote_dropped_count", c.RemoteDroppedCount}, {"remote_error_count", c.RemoteErrorCount},
		{"remote_timeout_count", c.RemoteTimeoutCount}, {"network_timeout_count", c.NetworkTimeoutCount}}
	if !ln.Tunables().Profile.NoResendStatsShow {
		m.add("failed_resends", c.FailedResends)
		m.add("successful_resends", c.SuccessfulResends)
	}
	return append(m, omap{{"recv_count", c.RecvCount}, {"route_count", c.RouteCount}, {"drop_count", c.DropCount},
		{"send_length", c.SendLength}, {"recv_length", c.RecvLength}, {"route_length", c.RouteLength},
		{"drop_length", c.DropLength}}...)
}

// routingShow is `lnetctl routing show` (jt_show_routing, lustre_lnet_show_routing, the same
// in every release): routing, a sequence of one {cpt[i]: pools} item per CPT and {enable},
// then buffers, each pool's buffers summed; nothing on a node whose router pools were never
// allocated (the kernel's buffer query finds none, so liblnetconfig hands back no tree).
func routingShow(ln *lnet.Node) omap {
	if ln.RouterPoolsCPT() == nil {
		return omap{}
	}
	r, b := ln.ShowRouting()
	return omap{{"routing", r}, {"buffers", b}}
}

// udspShow is `lnetctl udsp show [--idx N]` (jt_show_udsp, lustre_lnet_show_udsp): every
// policy for -1, else the one at place idx in the list, and nothing when there is none there
// (the kernel's ENOENT, which lnetctl shows as nothing) or no policy at all.
func udspShow(ln *lnet.Node, idx int) map[string]any {
	u := udspList(ln)
	switch {
	case idx == -1 && len(u) > 0:
		return map[string]any{"udsp": u}
	case idx < 0 || idx >= len(u):
		return map[string]any{}
	}
	return map[string]any{"udsp": u[idx : idx+1]}
}

// udspList is the policies as lustre_lnet_show_udsp prints them (udsp show, export): idx,
// src, dst and rte, and a priority rule's action. Up to 2.16 (UDSPShowNA) every policy has
// all three descriptors, NA for one it does not set; from 2.17 only those it sets.
func udspList(ln *lnet.Node) []any {
	na := ln.Tunables().Profile.UDSPShowNA
	var out []any
	for _, u := range ln.UDSPs() {
		m := omap{{"idx", u.Idx}}
		for _, d := range []struct{ key, val string }{{"src", u.Src}, {"dst", u.Dst}, {"rte", u.Rte}} {
			switch {
			case d.val != "":
				m.add(d.key, d.val)
			case na:
				m.add(d.key, "NA")
			}
		}
		if u.Action != nil {
			m.add("action", u.Action)
		}
		out = append(out, m)
	}
	return out
}

// peerList is `lnetctl peer list` (jt_list_peer): each peer's primary NID, in the order of
// the peer table (lnet_get_peer_list, or the netlink peer dump with only the primary NIDs
// kept); nothing when there is no peer.
func peerList(ln *lnet.Node) map[string]any {
	peers := ln.Peers()
	if len(peers) == 0 {
		return map[string]any{}
	}
	l := make([]map[string]any, 0, len(peers))
	for _, p := range peers {
		l = append(l, map[string]any{"nid": p.Primary().String()})
	}
	return map[string]any{"peer list": l}
}

// recoveryQueue is `lnetctl debug recovery --local|--peer`: the queue's NIDs in queue
// order as nid-0, nid-1, ... under name, and nothing at all for an empty queue. Up to 2.15
// (ShowByIoctl) show_recovery_queue names the queue "local NI recovery" or "peer NI
// recovery"; from 2.16 the kernel's Netlink dump (lnet_debug_recovery_show_dump, LU-9680
// 9c8f9b80f9) names it "Local NI recovery" or "Peer NI recovery", and lnetctl stays silent
// on its "No NIDs in recovery".
func recoveryQueue(p lnet.Profile, name string, nids []lnet.NID) map[string]any {
	if len(nids) == 0 {
		return map[string]any{}
	}
	if !p.ShowByIoctl {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	q := make(omap, 0, len(nids))
	for i, nid := range nids {
		q.add(fmt.Sprintf("nid-%d", i), nid.String())
	}
	return map[string]any{name: q}
}

// exportShow is `lnetctl export` (jt_export): nets at level 2, routes at 1, routing and
// buffers, peers at 3 (with their peer state; 2 up to 2.15), global and the rules, in the
// release's order (exportDoc).
func exportShow(c *cluster, n *node) omap {
	p := n.ln.Tunables().Profile
	peerLevel := 3
	if p.ShowByIoctl {
		peerLevel = 2 // lustre_lnet_show_peer(NULL, 2, ...) up to 2.15
	}
	s := map[string]any{"net": showLeveled(c, n, &scenarios.ShowCommand{Verb: "net show", Detail: 2, Hop: -1, Priority: -1})["net"],
		"global": exportGlobal(n.ln)}
	if routes := exportRoutes(n.ln, false); len(routes) > 0 {
		s["route"] = routes
	}
	if n.ln.RouterPoolsCPT() != nil {
		s["routing"], s["buffers"] = n.ln.ShowRouting()
	}
	if p, ok := showLeveled(c, n, &scenarios.ShowCommand{Verb: "peer show", Detail: peerLevel, Hop: -1, Priority: -1})["peer"]; ok {
		s["peer"] = p
	}
	if u := udspList(n.ln); len(u) > 0 && !p.NoUDSP {
		s["udsp"] = u
	}
	return exportDoc(p, s)
}

// exportDoc puts export's sections in the order the release's jt_export prints them; a
// section with nothing in it is absent from s and is not printed, as lnetctl prints none (no
// route, no peer, no rules; no routing nor buffers on a node whose router pools were never
// allocated: the kernel's buffer query finds nothing). Up to 2.15 (ShowByIoctl) every
// section goes into one cYAML tree, each appended after the ones before it: net, route,
// routing, buffers, peer, global, udsp. From 2.16 the Netlink dumps of the nets, routes and
// peers are printed as they come and the tree (routing, buffers, global, udsp) after them.
// 2.12's jt_export has no rules (NoUDSP).
func exportDoc(p lnet.Profile, s map[string]any) omap {
	order := []string{"net", "route", "peer", "routing", "buffers", "global", "udsp"}
	if p.ShowByIoctl {
		order = []string{"net", "route", "routing", "buffers", "peer", "global", "udsp"}
	}
	d := omap{}
	for _, k := range order {
		if v, ok := s[k]; ok {
			d.add(k, v)
		}
	}
	return d
}

// exportRoutes are the routes as export prints them (lustre_lnet_show_route at level 1, the
// Netlink route dump at LNET_GENL_VERSION; routeAt): with state and type, or without them
// for a backup.
func exportRoutes(ln *lnet.Node, backup bool) []any {
	var routes []any
	p := ln.Tunables().Profile
	for _, r := range ln.Routes() {
		routes = append(routes, routeAt(p, &r, true, backup))
	}
	return routes
}

// niBackup is a local NI as `lnetctl export --backup` prints it (no NID, status, statistics
// or dev cpt: only what configures it again): interfaces, tunables and lnd tunables as the
// release prints them (lndBlocks), CPT.
func niBackup(p lnet.Profile, ni *lnet.NIShow, lnd any) omap {
	var m omap
	if len(ni.Interfaces) > 0 {
		m.add("interfaces", ni.Interfaces)
	}
	m = append(m, lndBlocks(p, ni.NID, ni.Tunables, lnd)...)
	if ni.CPT != "" {
		m.add("CPT", ni.CPT)
	}
	return m
}

// peerBackup is a peer as export --backup prints it: its NIDs only.
type peerBackup struct {
	PrimaryNID string           `yaml:"primary nid"`
	MultiRail  any              `yaml:"Multi-Rail"` // multiRail
	PeerNIs    []map[string]any `yaml:"peer ni"`
}

// exportBackup is `lnetctl export --backup`, the subset sanity-lnet compares after route
// and peer changes, in the release's order (exportDoc): sections with nothing in them are
// left out, as lnetctl does, and so is the loopback net (lnet_net_show_dump skips lolnd's
// net for a backup) and, from 2.17, an LND's read-only timeout.
func exportBackup(c *cluster, n *node) omap {
	p := n.ln.Tunables().Profile
	s := map[string]any{"global": exportGlobal(n.ln)}
	var nets []omap
	for _, ns := range showNets(c, n) {
		if ns.NetType == "lo" { // the loopback net is not configuration: never exported
			continue
		}
		var nis []omap
		for i := range ns.NIs {
			lt := ns.NIs[i].LNDTunables
			if t, ok := lt.(interface{ WithoutTimeout() any }); ok && !p.BackupLNDTimeout {
				lt = t.WithoutTimeout() // read-only: left out from 2.17 (LU-19194)
			}
			nis = append(nis, niBackup(p, &ns.NIs[i], lt))
		}
		nets = append(nets, omap{{"net type", ns.NetType}, {"local NI(s)", nis}})
	}
	if len(nets) > 0 {
		s["net"] = nets
	}
	if routes := exportRoutes(n.ln, true); len(routes) > 0 {
		s["route"] = routes
	}
	var peers []peerBackup
	for _, pr := range n.ln.ShowPeers() {
		pb := peerBackup{PrimaryNID: pr.PrimaryNID, MultiRail: multiRail(p.ShowByIoctl, pr.MultiRail)}
		for _, pni := range pr.PeerNIs {
			pb.PeerNIs = append(pb.PeerNIs, map[string]any{"nid": pni.NID})
		}
		peers = append(peers, pb)
	}
	if len(peers) > 0 {
		s["peer"] = peers
	}
	if n.ln.RouterPoolsCPT() != nil {
		_, b := n.ln.ShowRouting()
		s["routing"] = map[string]any{"enable": boolInt(n.ln.Routing())}
		s["buffers"] = b
	}
	if u := udspList(n.ln); len(u) > 0 && !p.NoUDSP {
		s["udsp"] = u
	}
	return exportDoc(p, s)
}

// whichNID is the peer distance reply for each NID (skipping unreachable ones, as the
// kernel does): the local NID LNetDist chooses, distance and order.
func whichNID(ln *lnet.Node, nids []string) map[string]any {
	var out []lnet.DistShow
	for _, s := range nids {
		nid, err := lnet.ParseNID(s)
		if err != nil {
			continue // validated at load
		}
		if d, ok := ln.Dist(nid); ok {
			out = append(out, d)
		}
	}
	return map[string]any{"peer": out}
}

// showNets is `net show -v` with what the model's LNet NI does not know: the interface
// (from the scenario), the LND tunables (o2iblnd's or socklnd's, on the o2ib backend; up to
// 2.15 without timeout and tos), dev cpt (-1: the simulated HCA has no NUMA node) and the
// NI's CPTs.
func showNets(c *cluster, n *node) []lnet.NetShow {
	nets := n.ln.ShowNets()
	m := c.scenario.Member(n.name)
	cpts := cptList(n.ln.Tunables().CPTs)
	for i := range nets {
		for j := range nets[i].NIs {
			ni := &nets[i].NIs[j]
			devCPT := -1
			ni.DevCPT, ni.CPT = &devCPT, cpts
			if ifname := niInterface(m, ni.NID); ifname != "" {
				ni.Interfaces = map[int]string{0: ifname}
			}
			if t, ok := lndTunables(c, n, ni.NID); ok {
				ni.LNDTunables = t
				if w, ok := t.(interface{ WithoutTimeoutTOS() any }); ok && n.ln.Tunables().Profile.NoLNDTimeoutTOSShow {
					ni.LNDTunables = w.WithoutTimeoutTOS() // up to 2.15: the ioctl printers'
				}
			}
		}
	}
	return nets
}

// lndTunables is the `lnd tunables:` block of the NI with NID nid: o2iblnd's or socklnd's on
// the o2ib backend; none on the ideal backend, which runs no LND of the kernel's.
func lndTunables(c *cluster, n *node, nid string) (any, bool) {
	if c.fab == nil {
		return nil, false
	}
	for _, ni := range n.ln.NIs() {
		if ni.NID().String() != nid {
			continue
		}
		if c.eth != nil {
			if t, ok := c.eth.lnd.ShowTunables(ni); ok {
				return t, true
			}
		}
		return c.fab.lnd.ShowTunables(ni)
	}
	return nil, false
}

// memberNI finds the scenario NI with NID nid on member m.
func memberNI(m *scenarios.Member, nid string) *scenarios.MemberNI {
	if m == nil {
		return nil
	}
	for i := range m.NIs {
		if m.NIs[i].NID.String() == nid {
			return &m.NIs[i]
		}
	}
	return nil
}

// niInterface is the interface of the NI with NID nid: the scenario's, or, for an NI `net
// add --if` made at run time, that of the scenario's NI with its address (the interface's).
func niInterface(m *scenarios.Member, nid string) string {
	if mni := memberNI(m, nid); mni != nil {
		return mni.Interface
	}
	x, err := scenarios.ParseNID(nid)
	if err != nil || m == nil {
		return ""
	}
	for i := range m.NIs {
		if m.NIs[i].NID.Addr == x.Addr && m.NIs[i].Interface != "" {
			return m.NIs[i].Interface
		}
	}
	return ""
}

// cptList is the CPT: value lnetctl prints for an NI on every CPT: "[0,1,...]".
func cptList(ncpts int) string {
	parts := make([]string, max(ncpts, 1))
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// routerCounters are a router's counters lnetctl has no name for: messages forwarded,
// expired by the opt-in expiry policy, dropped otherwise, and the messages waiting for a
// buffer in each CPT's pools.
func routerCounters(ln *lnet.Node) map[string]any {
	st := ln.RouterStats()
	out := map[string]any{"forwarded": st.Forwarded, "expired": st.Expired, "dropped": st.Dropped}
	for c, pools := range ln.RouterPoolsCPT() {
		q := map[string]int{}
		for i, name := range []string{"tiny", "small", "large"} {
			q[name] = pools[i].Queued
		}
		out[fmt.Sprintf("queued cpt[%d]", c)] = q
	}
	return out
}

// routerCounter reads a router counter lnetctl has no name for (stats checks):
// router_expired_count (RouterStats.Expired, the opt-in expiry policy's drops) and
// router_dropped_count (RouterStats.Dropped).
func routerCounter(s lnet.RouterStats, name string) (int64, bool) {
	switch name {
	case "router_expired_count":
		return int64(s.Expired), true
	case "router_dropped_count":
		return int64(s.Dropped), true
	}
	return 0, false
}

// globalKeys are the keys `lnetctl global show` prints, in jt_show_global's order; a release
// prints the first Profile.GlobalShowKeys of them.
var globalKeys = []string{"numa_range", "max_interfaces", "discovery", "drop_asym_route", "retry_count",
	"transaction_timeout", "health_sensitivity", "recovery_interval", "router_sensitivity", "lnd_timeout",
	"response_tracking", "recovery_limit", "max_recovery_ping_interval"}

// globalShow is `lnetctl global show` (jt_show_global, and export's global section): each
// value as a number, discovery and drop_asym_route as 0 or 1 (lustre_lnet_show_discovery
// inverts lnet_peer_discovery_disabled), lnd_timeout the one in use.
func globalShow(ln *lnet.Node) omap {
	t, g := ln.Tunables(), ln.ShowGlobal()
	vals := []int{t.NUMARange, t.MaxInterfaces, boolInt(t.Discovery), boolInt(t.DropAsymRoute), t.RetryCount,
		t.TransactionTimeout, t.HealthSensitivity, t.RecoveryInterval, t.RouterSensitivity, g.LNDTimeout,
		t.ResponseTracking, t.RecoveryLimit, t.MaxRecoveryPingInterval}
	keys := globalKeys
	if k := t.Profile.GlobalShowKeys; k > 0 && k < len(keys) {
		keys = keys[:k]
	}
	m := make(omap, 0, len(keys))
	for i, k := range keys {
		if k == "max_interfaces" && t.Profile.MaxIntfKey {
			k = "max_intf" // up to 2.12 (LU-13722)
		}
		m.add(k, vals[i])
	}
	return m
}

// exportGlobal is export's global section: `global show`'s keys, up to 2.12 only the first
// four (ExportGlobalFour: jt_export shows numa_range, max_intf, discovery and
// drop_asym_route).
func exportGlobal(ln *lnet.Node) omap {
	m := globalShow(ln)
	if ln.Tunables().Profile.ExportGlobalFour {
		m = m[:4]
	}
	return m
}
