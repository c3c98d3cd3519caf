package runner

import (
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// showLeveled renders a net, peer or route show at its level with its filters, as lnetctl
// prints it (lustre_lnet_show_net/peer/route up to 2.15, the kernel's Netlink dumps
// lnet_net_show_dump, lnet_peer_ni_show_dump and lnet_route_show_dump from 2.16; both print
// the same keys at each level).
// A net or peer filter that matches nothing yields lnetctl's error document (what it prints
// on stderr, with the kernel's errno), or nothing up to 2.15 where lnetctl prints nothing.
// A route show that finds no route and a peer show of a node without peers print nothing
// (the empty document) in every release: lustre_lnet_show_route and lustre_lnet_show_peer
// hand back no tree when nothing exists, lnet_route_show_dump and lnet_peer_ni_show_dump
// send no message for an unfiltered dump that finds nothing, and yaml_lnet_route stays
// silent on the "No routes found" its filtered dump reports (errno -ENOENT, exit 0).
func showLeveled(c *cluster, n *node, sc *scenarios.ShowCommand) map[string]any {
	ioctl := n.ln.Tunables().Profile.ShowByIoctl
	switch sc.Verb {
	case "net show":
		var nets []any
		for _, ns := range showNets(c, n) {
			if sc.Net != "" && !sameNet(ns.NetType, sc.Net) {
				continue
			}
			nis := make([]any, 0, len(ns.NIs))
			for i := range ns.NIs {
				nis = append(nis, niAtLevel(n.ln, &ns.NIs[i], sc.Detail))
			}
			nets = append(nets, omap{{"net type", ns.NetType}, {"local NI(s)", nis}})
		}
		if sc.Net != "" && len(nets) == 0 {
			// lnet_net_show_dump finds no net: -ESRCH with its message.
			return showError(ioctl, "net", -esrch, "Network is down")
		}
		return map[string]any{"net": nets}
	case "peer show":
		var peers []any
		for _, p := range n.ln.ShowPeers() {
			if sc.NID != "" && !peerHas(p, sc.NID) {
				continue
			}
			peers = append(peers, peerAtLevel(n.ln, &p, sc.Detail))
		}
		if sc.NID != "" && len(peers) == 0 {
			// lnet_find_peer finds no peer: -ENOENT; the ioctl path prints strerror.
			if ioctl {
				return showErrorDoc("peer", -lnet.ENOENT, "cannot get peer information: No such file or directory")
			}
			return showErrorDoc("peer", -lnet.ENOENT, "cannot find peer")
		}
		if len(peers) == 0 {
			return map[string]any{}
		}
		return map[string]any{"peer": peers}
	}
	hop, prio := sc.Hop, sc.Priority
	if ioctl && hop != -1 && (hop < 1 || hop > 255) {
		// lustre_lnet_show_route (up to 2.15) refuses a hop count outside 1..255 before
		// asking the kernel (LUSTRE_CFG_RC_OUT_OF_RANGE_PARAM).
		return showErrorDoc("route", -3, fmt.Sprintf("invalid hop count %d, must be between 0 and 256", hop))
	}
	if !ioctl && sc.Net == "" && sc.Gateway == "" {
		// From 2.16 yaml_lnet_route sends --hop and --priority only beside --net or
		// --gateway: alone they ask for the unfiltered dump, which lists every route.
		hop, prio = -1, -1
	}
	var routes []any
	for _, r := range n.ln.Routes() {
		if (sc.Net != "" && !sameNet(r.Net, sc.Net)) || (sc.Gateway != "" && r.Gateway != sc.Gateway) ||
			(hop != -1 && r.Hop != hop) || (prio != -1 && r.Priority != prio) {
			continue
		}
		routes = append(routes, routeAt(n.ln.Tunables().Profile, &r, sc.Detail > 0, false))
	}
	if len(routes) == 0 {
		return map[string]any{}
	}
	return map[string]any{"route": routes}
}

// routeAt is a route as the release's lnetctl prints it, its keys in lnetctl's order
// (lustre_lnet_show_route up to 2.15, lnet_route_show_dump's key table from 2.16: the same
// order): net and gateway; with detail hop, priority, on 2.15 and 2.16 the gateway's
// health_sensitivity (GatewayOwnSensitivity), then, unless backup (export --backup:
// liblnetconfig's backup flag up to 2.15, the filtered dump from 2.16), state and type (no
// type up to 2.12, NoRouteTypeShow).
func routeAt(p lnet.Profile, r *lnet.RouteShow, detail, backup bool) omap {
	m := omap{{"net", r.Net}, {"gateway", r.Gateway}}
	if !detail {
		return m
	}
	m.add("hop", r.Hop)
	m.add("priority", r.Priority)
	if p.GatewayOwnSensitivity {
		m.add("health_sensitivity", r.HealthSensitivity)
	}
	if backup {
		return m
	}
	m.add("state", r.State)
	if !p.NoRouteTypeShow {
		m.add("type", r.Type)
	}
	return m
}

// esrch is ESRCH, the errno of lnet_net_show_dump when no net matches.
const esrch = 3

// showError is a Netlink show's error document, or nothing for the ioctl path, which prints
// nothing when its filter matches nothing.
func showError(ioctl bool, entity string, errno int, descr string) map[string]any {
	if ioctl {
		return map[string]any{}
	}
	return showErrorDoc(entity, errno, descr)
}

// showErrorDoc is the error lnetctl prints for a show (yaml_lnet_print_error and
// cYAML_build_error print the same shape): show: [{ENTITY: {errno: E, descr: "..."}}].
func showErrorDoc(entity string, errno int, descr string) map[string]any {
	return map[string]any{"show": []any{map[string]any{entity: map[string]any{"errno": errno, "descr": descr}}}}
}

// sameNet reports whether the net lnetctl prints (o2ib) is the canonical net (o2ib0).
func sameNet(printed, canonical string) bool {
	a, errA := lnet.ParseNet(printed)
	b, errB := lnet.ParseNet(canonical)
	return errA == nil && errB == nil && a == b
}

// peerHas reports whether the peer has an NI with the NID (lnet_find_peer finds a peer by
// any of its NIs).
func peerHas(p lnet.PeerShow, nid string) bool {
	for _, ni := range p.PeerNIs {
		if ni.NID == nid {
			return true
		}
	}
	return false
}

// counts is the statistics block lnetctl prints from level 1: the three totals, and on master
// each operation's latency after them (lnet_nl_put_latency: samples, min, max and average
// in nanoseconds, zeros without samples), in the order of the kernel's key table.
func counts(ln *lnet.Node, send, recv, drop uint64, lat *lnet.Latency) omap {
	m := omap{{"send_count", send}, {"recv_count", recv}, {"drop_count", drop}}
	if ln.Tunables().Profile.NoLatencyStats {
		return m
	}
	for op, s := range lat {
		k := lnet.LatencyOp(op).String()
		m.add(k+"_samples", s.Samples)
		m.add(k+"_min_nsec", s.MinNs)
		m.add(k+"_max_nsec", s.MaxNs)
		m.add(k+"_avg_nsec", s.AvgNs)
	}
	return m
}

// niAtLevel is a local NI at a level, its keys in lnetctl's order (lustre_lnet_show_net up to
// 2.15, lnet_net_show_dump's local NI key table from 2.16; the same order in every release):
// nid, status and interfaces; from 1 statistics; at 4 the UDSP info (lnet_udsp_info_send
// prints it on every NI, rules or not; no UDSP up to 2.12); from 2 the per-type counts and
// health stats; from 1 tunables, lnd tunables (lndBlocks), dev cpt, up to 2.12 tcp bonding
// (ShowTCPBonding: socklnd's bonding is not modelled, 0), and CPT.
func niAtLevel(ln *lnet.Node, ni *lnet.NIShow, d int) omap {
	p := ln.Tunables().Profile
	m := omap{{"nid", ni.NID}, {"status", ni.Status}}
	if len(ni.Interfaces) > 0 {
		m.add("interfaces", ni.Interfaces)
	}
	if d < 1 {
		return m
	}
	st := ni.Statistics
	m.add("statistics", counts(ln, st.SendCount, st.RecvCount, st.DropCount, &ni.Latency))
	if d >= 4 && !p.NoUDSP {
		m.add("udsp info", udspInfo(ln, ni.NID))
	}
	if d >= 2 {
		m.add("sent_stats", st.Sent)
		m.add("received_stats", st.Received)
		m.add("dropped_stats", st.Dropped)
		m.add("health stats", niHealthStats(p, &ni.HealthStats))
	}
	m = append(m, lndBlocks(p, ni.NID, ni.Tunables, ni.LNDTunables)...)
	if ni.DevCPT != nil {
		m.add("dev cpt", *ni.DevCPT)
	}
	if p.ShowTCPBonding {
		m.add("tcp bonding", 0)
	}
	if ni.CPT != "" {
		m.add("CPT", ni.CPT)
	}
	return m
}

// niHealthStats is a local NI's `health stats:` block as the release prints it: fatal_error
// first (not up to 2.12, NoFatalErrorShow), the health value and the counters, then
// ping_count and next_ping (not up to 2.12, NoHealthPingShow).
func niHealthStats(p lnet.Profile, h *lnet.NIHealthShow) omap {
	var m omap
	if !p.NoFatalErrorShow {
		m.add("fatal_error", h.FatalError)
	}
	m = append(m, omap{{"health value", h.HealthValue}, {"interrupts", h.Interrupts}, {"dropped", h.Dropped},
		{"aborted", h.Aborted}, {"no route", h.NoRoute}, {"timeouts", h.Timeouts}, {"error", h.Error}}...)
	if !p.NoHealthPingShow {
		m.add("ping_count", h.PingCount)
		m.add("next_ping", h.NextPing)
	}
	return m
}

// lndBlocks are an NI's `tunables:` and `lnd tunables:` as the release prints them; lnd is
// the LND's block (nil for the loopback NI and on the ideal backend). Up to 2.12
// (LNDTunablesInTunables) lustre_lnet_show_net writes o2iblnd's parameters after the net's
// four in `tunables:` and then opens an empty `lnd tunables:` (for o2ib NIs only: it prints
// nothing of socklnd's). In 2.15 (ShowByIoctl) the printer opens `lnd tunables:` for every
// NI, so the loopback's, and an NI's on the ideal backend, is empty. From 2.16 the Netlink
// dump sends an LND's block only (none for lo), map_on_demand as a flag (o2ib Netlink).
func lndBlocks(p lnet.Profile, nid string, tun lnet.NetTunables, lnd any) omap {
	isO2IB := false
	if x, err := lnet.ParseNID(nid); err == nil {
		isO2IB = x.Net().Type() == lnet.O2IBLND
	}
	switch {
	case p.LNDTunablesInTunables:
		if !isO2IB {
			return omap{{"tunables", tun}}
		}
		t, _ := mappingOf(tun)
		if lnd != nil {
			l, _ := mappingOf(lnd)
			t = append(t, l...)
		}
		return omap{{"tunables", t}, {"lnd tunables", nil}}
	case p.ShowByIoctl:
		return omap{{"tunables", tun}, {"lnd tunables", lnd}}
	}
	if lnd == nil {
		return omap{{"tunables", tun}}
	}
	if nl, ok := lnd.(interface{ Netlink(asSet bool) any }); ok {
		lnd = nl.Netlink(p.MapOnDemandAsSet)
	}
	return omap{{"tunables", tun}, {"lnd tunables", lnd}}
}

// peerAtLevel is a peer at a level, its keys in lnetctl's order (lustre_lnet_show_peer up to
// 2.15, lnet_peer_ni_show_dump's key tables from 2.16): primary nid, Multi-Rail, from 3 the
// peer's `peer state` (lp_state, the bits the model keeps), then each NI's nid, at 4 its UDSP
// info (on every NI, as lnet_udsp_info_send prints it; no UDSP up to 2.12), its state; from
// 1 its credits and statistics; from 2 its per-type counts and health stats (without
// ping_count and next_ping up to 2.12, NoHealthPingShow). The refcount of level 1 is not
// modelled.
func peerAtLevel(ln *lnet.Node, p *lnet.PeerShow, d int) omap {
	prof := ln.Tunables().Profile
	nis := make([]any, 0, len(p.PeerNIs))
	for i := range p.PeerNIs {
		pni := &p.PeerNIs[i]
		m := omap{{"nid", pni.NID}}
		if d >= 4 && !prof.NoUDSP {
			m.add("udsp info", udspInfo(ln, pni.NID))
		}
		m.add("state", pni.State)
		if d >= 1 {
			m = append(m, omap{{"max_ni_tx_credits", pni.MaxTx}, {"available_tx_credits", pni.AvailTx},
				{"min_tx_credits", pni.MinTx}, {"tx_q_num_of_buf", pni.TxQ}, {"available_rtr_credits", pni.AvailRtr},
				{"min_rtr_credits", pni.MinRtr}}...)
			st := pni.Statistics
			m.add("statistics", counts(ln, st.SendCount, st.RecvCount, st.DropCount, &pni.Latency))
		}
		if d >= 2 {
			st := pni.Statistics
			m.add("sent_stats", st.Sent)
			m.add("received_stats", st.Received)
			m.add("dropped_stats", st.Dropped)
			h := pni.HealthStats
			hs := omap{{"health value", h.HealthValue}, {"dropped", h.Dropped}, {"timeout", h.Timeout},
				{"error", h.Error}, {"network timeout", h.NetworkTimeout}}
			if !prof.NoHealthPingShow {
				hs.add("ping_count", h.PingCount)
				hs.add("next_ping", h.NextPing)
			}
			m.add("health stats", hs)
		}
		nis = append(nis, m)
	}
	m := omap{{"primary nid", p.PrimaryNID}, {"Multi-Rail", multiRail(prof.ShowByIoctl, p.MultiRail)}}
	if d >= 3 {
		m.add("peer state", int(p.State))
	}
	m.add("peer ni", nis)
	return m
}

// udspInfo is the `udsp info` block of a local or peer NI (priorities -1 when unset), as the
// release prints it. Up to 2.15 (ShowByIoctl) create_local_udsp_info and
// create_remote_udsp_info print the priorities, then the preferred gateways and, for a peer
// NI, the preferred source NIDs, each as a mapping NID-0, NID-1, ... From 2.16
// lnet_udsp_info_send sends the priorities and the preferred gateways only (lnetsim lists
// the gateways; the form lnetctl gives the kernel's nested list is not modelled).
func udspInfo(ln *lnet.Node, nid string) any {
	x, err := lnet.ParseNID(nid)
	if err != nil {
		return nil
	}
	in, ok := ln.UDSPInfo(x)
	if !ok {
		return nil
	}
	m := omap{{"net priority", in.NetPriority}, {"nid priority", in.NIDPriority}}
	if !ln.Tunables().Profile.ShowByIoctl {
		if len(in.PreferredGW) > 0 {
			m.add("Preferred gateway NIDs", in.PreferredGW)
		}
		return m
	}
	if len(in.PreferredGW) > 0 {
		m.add("Preferred gateway NIDs", nidIndex(in.PreferredGW))
	}
	if len(in.PreferredNID) > 0 {
		m.add("Preferred source NIDs", nidIndex(in.PreferredNID))
	}
	return m
}

// nidIndex is a list of NIDs as liblnetconfig's UDSP printers write it: NID-0, NID-1, ...
func nidIndex(nids []string) omap {
	m := make(omap, 0, len(nids))
	for i, s := range nids {
		m.add(fmt.Sprintf("NID-%d", i), s)
	}
	return m
}
