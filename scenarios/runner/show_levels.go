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
			nets = append(nets, map[string]any{"net type": ns.NetType, "local NI(s)": nis})
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
		if sc.Detail == 0 {
			routes = append(routes, map[string]any{"net": r.Net, "gateway": r.Gateway})
			continue
		}
		routes = append(routes, r)
	}
	if len(routes) == 0 {
		return map[string]any{}
	}
	return map[string]any{"route": routes}
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
// in nanoseconds, zeros without samples).
func counts(ln *lnet.Node, send, recv, drop uint64, lat *lnet.Latency) map[string]any {
	m := map[string]any{"send_count": send, "recv_count": recv, "drop_count": drop}
	if ln.Tunables().Profile.NoLatencyStats {
		return m
	}
	for op, s := range lat {
		k := lnet.LatencyOp(op).String()
		m[k+"_samples"], m[k+"_min_nsec"], m[k+"_max_nsec"], m[k+"_avg_nsec"] = s.Samples, s.MinNs, s.MaxNs, s.AvgNs
	}
	return m
}

// niAtLevel is a local NI at a level: nid, status and interfaces; from 1 statistics,
// tunables, lnd tunables, dev cpt and CPT; from 2 the per-type counts and health stats; at
// 4 the UDSP info (lnet_udsp_info_send prints it on every NI, rules or not).
func niAtLevel(ln *lnet.Node, ni *lnet.NIShow, d int) map[string]any {
	m := map[string]any{"nid": ni.NID, "status": ni.Status}
	if len(ni.Interfaces) > 0 {
		m["interfaces"] = ni.Interfaces
	}
	if d < 1 {
		return m
	}
	st := ni.Statistics
	m["statistics"] = counts(ln, st.SendCount, st.RecvCount, st.DropCount, &ni.Latency)
	if d >= 2 {
		m["sent_stats"], m["received_stats"], m["dropped_stats"] = st.Sent, st.Received, st.Dropped
		m["health stats"] = ni.HealthStats
	}
	if d >= 4 {
		m["udsp info"] = udspInfo(ln, ni.NID)
	}
	m["tunables"] = ni.Tunables
	if ni.LNDTunables != nil {
		m["lnd tunables"] = ni.LNDTunables
	}
	if ni.DevCPT != nil {
		m["dev cpt"] = *ni.DevCPT
	}
	if ni.CPT != "" {
		m["CPT"] = ni.CPT
	}
	return m
}

// peerAtLevel is a peer at a level: primary nid, Multi-Rail and each NI's nid and state;
// from 1 each NI's credits and statistics; from 2 its per-type counts and health stats; at 4
// its UDSP info (on every NI, as lnet_udsp_info_send prints it) and preferred local NIDs.
// From 3 the peer's `peer state` (lp_state, the bits the model keeps). The refcount of level
// 1 is not modelled.
func peerAtLevel(ln *lnet.Node, p *lnet.PeerShow, d int) map[string]any {
	nis := make([]any, 0, len(p.PeerNIs))
	for i := range p.PeerNIs {
		pni := &p.PeerNIs[i]
		m := map[string]any{"nid": pni.NID, "state": pni.State}
		if d >= 1 {
			m["max_ni_tx_credits"], m["available_tx_credits"], m["min_tx_credits"] = pni.MaxTx, pni.AvailTx, pni.MinTx
			m["tx_q_num_of_buf"], m["available_rtr_credits"], m["min_rtr_credits"] = pni.TxQ, pni.AvailRtr, pni.MinRtr
			st := pni.Statistics
			m["statistics"] = counts(ln, st.SendCount, st.RecvCount, st.DropCount, &pni.Latency)
		}
		if d >= 2 {
			st := pni.Statistics
			m["sent_stats"], m["received_stats"], m["dropped_stats"] = st.Sent, st.Received, st.Dropped
			m["health stats"] = pni.HealthStats
		}
		if d >= 4 {
			m["udsp info"] = udspInfo(ln, pni.NID)
			if len(pni.PreferredNID) > 0 {
				m["preferred local NIDs"] = pni.PreferredNID
			}
		}
		nis = append(nis, m)
	}
	m := map[string]any{"primary nid": p.PrimaryNID, "Multi-Rail": p.MultiRail, "peer ni": nis}
	if d >= 3 {
		m["peer state"] = int(p.State)
	}
	return m
}

// udspInfo is the `udsp info` block of a local or peer NI (priorities -1 when unset).
func udspInfo(ln *lnet.Node, nid string) any {
	if x, err := lnet.ParseNID(nid); err == nil {
		if in, ok := ln.UDSPInfo(x); ok {
			return in
		}
	}
	return nil
}
