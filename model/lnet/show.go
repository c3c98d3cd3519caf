package lnet

// NIShow is one local NI as `lnetctl net show -v` prints it.
type NIShow struct {
	NID         string        `yaml:"nid"`
	Status      string        `yaml:"status"`
	Statistics  NIStats       `yaml:"statistics"`
	HealthStats NIHealthShow  `yaml:"health stats"`
	Tunables    NetTunables   `yaml:"tunables"`
	Credits     NICreditsShow `yaml:"credits"`
	CPTCredits  []TxQueue     `yaml:"cpt credits,omitempty"` // per CPT, with more than one
	UDSP        *UDSPInfo     `yaml:"udsp info,omitempty"`   // only on a node with UDSP rules
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

// NetShow is one net as `lnetctl net show -v` prints it.
type NetShow struct {
	NetType string   `yaml:"net type"`
	NIs     []NIShow `yaml:"local NI(s)"`
}

// ShowNets returns the node's nets in `lnetctl net show -v` shape (without 0@lo).
func (n *Node) ShowNets() []NetShow {
	out := make([]NetShow, 0, len(n.nets))
	for _, nt := range n.nets {
		ns := NetShow{NetType: nt.ID.String()}
		for _, ni := range nt.nis {
			a, mx, mn := ni.TxCredits()
			var perCPT []TxQueue
			if len(ni.tq) > 1 {
				perCPT = ni.TxQueues()
			}
			ns.NIs = append(ns.NIs, NIShow{
				NID: ni.nid.String(), Status: ni.Status().String(), Statistics: ni.stats,
				HealthStats: NIHealthShow{HealthValue: ni.health, NIHealthStats: ni.HealthStats()},
				Tunables:    nt.Tunables,
				Credits:     NICreditsShow{Max: mx, Available: a, Min: mn, Queued: ni.TxQueued()},
				CPTCredits:  perCPT,
				UDSP:        n.udspInfoShow(ni.nid),
			})
		}
		out = append(out, ns)
	}
	return out
}

// PeerNIShow is one peer NI as `lnetctl peer show -v` prints it.
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
}

// PeerNIHealthShow is a peer NI's `health stats:` block.
type PeerNIHealthShow struct {
	HealthValue       int `yaml:"health value"`
	PeerNIHealthStats `yaml:",inline"`
}

// PeerShow is one peer as `lnetctl peer show -v` prints it.
type PeerShow struct {
	PrimaryNID string       `yaml:"primary nid"`
	MultiRail  bool         `yaml:"Multi-Rail"`
	PeerNIs    []PeerNIShow `yaml:"peer ni"`
}

// ShowPeers returns the node's peers in `lnetctl peer show -v` shape.
func (n *Node) ShowPeers() []PeerShow {
	out := make([]PeerShow, 0, len(n.peers))
	for _, p := range n.peers {
		ps := PeerShow{PrimaryNID: p.primary.String(), MultiRail: p.mr}
		for _, lpni := range p.nis {
			a, mx, mn := lpni.TxCredits()
			ra, _, rm := lpni.RtrCredits()
			var pref []string
			for _, x := range lpni.prefNIDs {
				pref = append(pref, x.String())
			}
			ps.PeerNIs = append(ps.PeerNIs, PeerNIShow{
				NID: lpni.nid.String(), State: lpni.status.String(), MaxTx: mx, AvailTx: a, MinTx: mn,
				TxQ: lpni.txq.Len(), AvailRtr: ra, MinRtr: rm, Statistics: lpni.stats,
				HealthStats:  PeerNIHealthShow{HealthValue: lpni.health, PeerNIHealthStats: lpni.HealthStats()},
				PreferredNID: pref,
				UDSP:         n.udspInfoShow(lpni.nid),
			})
		}
		out = append(out, ps)
	}
	return out
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
