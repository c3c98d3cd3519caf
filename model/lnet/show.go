package lnet

import "fmt"

// NIShow is one local NI with every block `lnetctl net show -v 4` prints (the per-type
// counts inside Statistics); the runner cuts it to each level.
type NIShow struct {
	NID         string         `yaml:"nid"`
	Status      string         `yaml:"status"`
	Interfaces  map[int]string `yaml:"interfaces,omitempty"` // filled by the caller, which knows them
	Statistics  NIStats        `yaml:"statistics"`
	HealthStats NIHealthShow   `yaml:"health stats"`
	Tunables    NetTunables    `yaml:"tunables"`
	LNDTunables any            `yaml:"lnd tunables,omitempty"` // filled by the caller (the LND's)
	DevCPT      *int           `yaml:"dev cpt,omitempty"`      // filled by the caller
	CPT         string         `yaml:"CPT,omitempty"`          // filled by the caller: "[0,1]"
	Credits     *NICreditsShow `yaml:"credits,omitempty"`      // lnetsim's (see WithoutCredits)
	CPTCredits  []TxQueue      `yaml:"cpt credits,omitempty"`  // lnetsim's: per CPT, with more than one
	UDSP        *UDSPInfo      `yaml:"udsp info,omitempty"`    // only on a node with UDSP rules
	// Latency is master's per-operation latency, printed in lnetctl's statistics block
	// (the runner's leveled shows); the counters file leaves it out.
	Latency Latency `yaml:"-"`
}

// NIHealthShow is a local NI's `health stats:` block.
type NIHealthShow struct {
	HealthValue   int `yaml:"health value"`
	NIHealthStats `yaml:",inline"`
}

// NICreditsShow are an NI's tx credit counters summed over its CPTs (max and available as
// ni_tx_credits counts them; min the sum of each CPT's lowest).
type NICreditsShow struct {
	Max       int `yaml:"max_tx_credits"`
	Available int `yaml:"available_tx_credits"`
	Min       int `yaml:"min_tx_credits"`
	Queued    int `yaml:"tx_q_num_of_buf"`
}

// NetShow is one net as `lnetctl net show -v 4` prints it.
type NetShow struct {
	NetType string   `yaml:"net type"`
	NIs     []NIShow `yaml:"local NI(s)"`
}

// ShowNets returns the node's nets in `lnetctl net show -v 4` shape, with each NI's tx credits
// (credits, and cpt credits with more than one CPT), which lnetctl does not print;
// WithoutCredits drops them. The loopback net comes first, as the kernel lists it
// (lnet_net_show_dump walks ln_nets, where LNetNIInit put lo first): 0@lo is always up (its
// status is never read, nid_is_lo0), its net's tunables are all 0 (lnet_startup_lndni sets
// them so for lolnd) and it has no tx credit block (lolnd sends take no credits).
func (n *Node) ShowNets() []NetShow {
	out := make([]NetShow, 0, len(n.nets)+1)
	if lo := n.loNI; lo != nil {
		ns := n.showNI(lo)
		ns.Status = NIStatusUp.String()
		ns.Credits = nil
		out = append(out, NetShow{NetType: lo.net.ID.LnetctlString(), NIs: []NIShow{ns}})
	}
	for _, nt := range n.nets {
		ns := NetShow{NetType: nt.ID.LnetctlString()}
		for _, ni := range nt.nis {
			ns.NIs = append(ns.NIs, n.showNI(ni))
		}
		out = append(out, ns)
	}
	return out
}

// showNI is one local NI's `net show -v 4` entry.
func (n *Node) showNI(ni *NI) NIShow {
	a, mx, mn := ni.TxCredits()
	var perCPT []TxQueue
	if len(ni.tq) > 1 {
		perCPT = ni.TxQueues()
	}
	return NIShow{
		NID: ni.nid.String(), Status: ni.Status().String(), Statistics: ni.stats, Latency: ni.Latency(),
		HealthStats: NIHealthShow{HealthValue: ni.health, NIHealthStats: ni.HealthStats()},
		Tunables:    ni.net.Tunables,
		Credits:     &NICreditsShow{Max: mx, Available: a, Min: mn, Queued: ni.TxQueued()},
		CPTCredits:  perCPT,
		UDSP:        n.udspInfoShow(ni.nid),
	}
}

// WithoutCredits removes the NIs' tx credit blocks lnetctl does not print.
func WithoutCredits(nets []NetShow) []NetShow {
	for i := range nets {
		for j := range nets[i].NIs {
			nets[i].NIs[j].Credits, nets[i].NIs[j].CPTCredits = nil, nil
		}
	}
	return nets
}

// PeerNIShow is one peer NI with every block `lnetctl peer show -v 4` prints (the per-type
// counts inside Statistics); the runner cuts it to each level.
type PeerNIShow struct {
	NID          string           `yaml:"nid"`
	State        string           `yaml:"state"`
	MaxTx        int              `yaml:"max_ni_tx_credits"`
	AvailTx      int              `yaml:"available_tx_credits"`
	MinTx        int              `yaml:"min_tx_credits"`
	TxQ          int              `yaml:"tx_q_num_of_buf"`
	AvailRtr     int              `yaml:"available_rtr_credits"`
	MinRtr       int              `yaml:"min_rtr_credits"`
	Statistics   PeerNIStats      `yaml:"statistics"`
	HealthStats  PeerNIHealthShow `yaml:"health stats"`
	PreferredNID []string         `yaml:"preferred local NIDs,omitempty"`
	UDSP         *UDSPInfo        `yaml:"udsp info,omitempty"` // only on a node with UDSP rules
	Latency      Latency          `yaml:"-"`                   // as NIShow's
}

// PeerNIHealthShow is a peer NI's `health stats:` block.
type PeerNIHealthShow struct {
	HealthValue       int `yaml:"health value"`
	PeerNIHealthStats `yaml:",inline"`
}

// PeerShow is one peer as `lnetctl peer show -v 4` prints it. State (`peer state`, from
// level 3) is left out of the counters file, which has the shape of level 4 without it.
type PeerShow struct {
	PrimaryNID string       `yaml:"primary nid"`
	MultiRail  bool         `yaml:"Multi-Rail"`
	State      uint32       `yaml:"-"`
	PeerNIs    []PeerNIShow `yaml:"peer ni"`
}

// ShowPeers returns the node's peers in `lnetctl peer show -v 4` shape; a peer NI's state is
// lnet_is_peer_ni_alive's answer (gwNIAlive: its status, and from 2.13 to 2.16 its health).
// A peer's NIs come in the kernel's walk (lnet_get_next_peer_ni_locked): net by net, in the
// order of lp_peer_nets, each net's NIs in the order of lpn_peer_nis; lnet_peer_attach_peer_ni
// puts the NI of the peer's primary NID at the time first in its net, and its net first if
// new, and appends the others (from 2.14.53; appends all before).
func (n *Node) ShowPeers() []PeerShow {
	out := make([]PeerShow, 0, len(n.peers))
	for _, p := range n.peers {
		ps := PeerShow{PrimaryNID: p.primary.String(), MultiRail: p.mr, State: n.peerState(p)}
		for _, lpni := range p.kernelOrder() {
			a, mx, mn := lpni.TxCredits()
			ra, _, rm := lpni.RtrCredits()
			var pref []string
			for _, x := range lpni.prefNIDs {
				pref = append(pref, x.String())
			}
			state := n.peerNIState(lpni)
			ps.PeerNIs = append(ps.PeerNIs, PeerNIShow{
				NID: lpni.nid.String(), State: state, MaxTx: mx, AvailTx: a, MinTx: mn,
				TxQ: lpni.txq.Len(), AvailRtr: ra, MinRtr: rm, Statistics: lpni.Stats(), Latency: lpni.Latency(),
				HealthStats:  PeerNIHealthShow{HealthValue: lpni.health, PeerNIHealthStats: lpni.HealthStats()},
				PreferredNID: pref,
				UDSP:         n.udspInfoShow(lpni.nid),
			})
		}
		out = append(out, ps)
	}
	return out
}

// PeerNICounts calls fn for every peer NI of every peer, in ShowPeers' order, with what
// ShowPeers reports of its state, health value, traffic counts and health statistics,
// without building ShowPeers' strings (NIDs, preferred NIDs, UDSP information): for
// summing a large cluster's peers (counters.yaml's per-group aggregates). It returns the
// number of peers.
func (n *Node) PeerNICounts(fn func(state string, health int, stats PeerNIStats, hs PeerNIHealthStats)) int {
	for _, p := range n.peers {
		for _, pn := range p.nets {
			for _, lpni := range pn.nis {
				fn(n.peerNIState(lpni), lpni.health, lpni.Stats(), lpni.HealthStats())
			}
		}
	}
	return len(n.peers)
}

// kernelOrder returns the peer's NIs in the order of the kernel's lists (see ShowPeers): net
// by net, each net's NIs in turn, as addPeerNI attached them (lnet_peer_attach_peer_ni).
func (p *Peer) kernelOrder() []*PeerNI {
	out := make([]*PeerNI, 0, len(p.nis))
	for _, pn := range p.nets {
		out = append(out, pn.nis...)
	}
	return out
}

// peerNIState is a peer NI's `state:` as lnet_get_peer_ni_info and lnet_peer_ni_show_dump
// print it: lnet_is_peer_ni_alive's answer (gwNIAlive: its status, and from 2.13 to 2.16 its
// health) for a gateway's NI (lnet_isrouter) or where aliveness is tracked
// (lnet_peer_aliveness_enabled: this node routes and the NI is on a local net whose
// peer_timeout is set), "NA" otherwise.
func (n *Node) peerNIState(lpni *PeerNI) string {
	if !lpni.peer.isRouter {
		nt := n.netByID(lpni.nid.Net())
		if !n.routing || nt == nil || nt.Tunables.PeerTimeout <= 0 {
			return "NA"
		}
	}
	if n.gwNIAlive(lpni) {
		return NIStatusUp.String()
	}
	return NIStatusDown.String()
}

// GlobalShow is `lnetctl global show`.
type GlobalShow struct {
	Tunables   `yaml:",inline"`
	LNDTimeout int `yaml:"lnd_timeout"`
}

// ShowGlobal returns the global settings with the derived lnd_timeout.
func (n *Node) ShowGlobal() GlobalShow {
	return GlobalShow{Tunables: n.tun, LNDTimeout: int(n.tun.LNDTimeout().WholeSeconds())}
}

// udspInfoShow is the `udsp info` block of a local or peer NI, nil on a node without UDSP
// rules (so that output without UDSP keeps its shape).
func (n *Node) udspInfoShow(nid NID) *UDSPInfo {
	if len(n.udsps) == 0 {
		return nil
	}
	in, ok := n.UDSPInfo(nid)
	if !ok {
		return nil
	}
	return &in
}

// DistShow is one entry of the kernel's peer distance reply (LNET_CMD_PEER_DIST, which
// `lctl which_nid` reads): the local NID LNetDist chooses to reach a NID, the distance and
// the order.
type DistShow struct {
	NID      string `yaml:"nid"`
	Distance int    `yaml:"distance"`
	Order    uint32 `yaml:"order"`
}

// Dist models LNetDist with local_nid_dist_zero set (its default): a local NID is at distance
// 0 (order 1) and answers itself; a NID on a local net is at distance 1 from that net's first
// NI; a routed NID is at its shortest route's hops + 1 (undefined hops counting 1) from the
// first NI of that route's local net. Orders count local NIs from 2; a routed NID gets the
// order after the last local NI (the kernel also counts the remote nets that share the
// destination's hash chain; the model takes each net to have its own). ok is false when the
// NID is unreachable (-EHOSTUNREACH). The order offset for an NI of another net namespace
// is not modelled (every NI is in one namespace).
func (n *Node) Dist(dst NID) (d DistShow, ok bool) {
	order := uint32(2)
	var matched *NI
	var matchedOrder uint32
	for _, ni := range n.nis {
		if ni.nid == dst {
			return DistShow{NID: dst.String(), Distance: 0, Order: 1}, true
		}
		if matched == nil && ni.nid.Net() == dst.Net() {
			matched, matchedOrder = ni, order
		}
		order++
	}
	if matched != nil {
		return DistShow{NID: matched.nid.String(), Distance: 1, Order: matchedOrder}, true
	}
	for _, rn := range n.remoteNets {
		if rn.id != dst.Net() || len(rn.routes) == 0 {
			continue
		}
		var shortest *Route
		for _, r := range rn.routes {
			if shortest == nil || routeHops(r) < routeHops(shortest) {
				shortest = r
			}
		}
		src := dst
		if net := n.netByID(shortest.gwNID.Net()); net != nil && len(net.nis) > 0 {
			src = net.nis[0].nid
		}
		return DistShow{NID: src.String(), Distance: routeHops(shortest) + 1, Order: order}, true
	}
	return DistShow{}, false
}

// routeHops is a route's hop count with undefined (-1) counting as 1.
func routeHops(r *Route) int {
	if r.hops < 0 {
		return 1
	}
	return int(r.hops)
}

// RoutingCPTShow is one CPT's buffer pools as `lnetctl routing show` prints them.
type RoutingCPTShow struct {
	Tiny  RouterPoolShow `yaml:"tiny"`
	Small RouterPoolShow `yaml:"small"`
	Large RouterPoolShow `yaml:"large"`
}

// BuffersShow is the `buffers:` section `lnetctl routing show` and export print: each pool's
// buffer count summed over the CPTs.
type BuffersShow struct {
	Tiny  int `yaml:"tiny"`
	Small int `yaml:"small"`
	Large int `yaml:"large"`
}

// ShowRouting returns `lnetctl routing show`: a sequence of one {cpt[i]: pools} item per CPT
// followed by {enable: 0|1}, and the buffers totals. A node whose pools were never allocated
// has no routing item (the kernel's buffer query finds nothing) and zero buffers; lnetctl
// then prints neither section (scenarios/runner routingShow, exportDoc).
func (n *Node) ShowRouting() (routing []map[string]any, buffers BuffersShow) {
	cpts := n.RouterPoolsCPT()
	for c, pools := range cpts {
		routing = append(routing, map[string]any{fmt.Sprintf("cpt[%d]", c): RoutingCPTShow{Tiny: pools[0], Small: pools[1], Large: pools[2]}})
		buffers.Tiny += pools[0].NBuffers
		buffers.Small += pools[1].NBuffers
		buffers.Large += pools[2].NBuffers
	}
	if cpts != nil {
		enable := 0
		if n.Routing() {
			enable = 1
		}
		routing = append(routing, map[string]any{"enable": enable})
	}
	return routing, buffers
}
