package runner

import (
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/socklnd"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// ethernet is the Ethernet model of the cluster's tcp NIs and the socklnd serving them.
type ethernet struct {
	n      *tcp.Network
	lnd    *socklnd.LND
	hosts  map[string]*tcp.Host   // member name -> host (lookups only)
	links  map[lnet.NID]*tcp.Link // tcp NI -> its interface's link (lookups only)
	fabric *tcp.LeafSpine         // the leaf-spine switches and trunks; nil for one switch
}

// sockParams converts a scenario's ksocklnd parameters to model/socklnd's.
func sockParams(p *scenarios.SockLNDParams) socklnd.Params {
	q := socklnd.DefaultParams()
	q.SockTimeout = int(p.SockTimeout.WholeSeconds())
	q.Credits, q.PeerCredits, q.PeerBufferCredits = p.Credits, p.PeerCredits, p.PeerBufferCredits
	q.PeerTimeout = int(p.PeerTimeout.WholeSeconds())
	q.NConnds, q.MinReconnectms, q.MaxReconnectms = p.NConnds, p.MinReconnectms, p.MaxReconnectms
	q.TypedConns, q.MinBulk = p.TypedConns, int(p.MinBulk)
	q.TxBufferSize, q.RxBufferSize = int(p.TxBufferSize), int(p.RxBufferSize)
	q.Nagle, q.RoundRobin = p.Nagle, p.RoundRobin
	q.Keepalive, q.KeepaliveIdle = int(p.Keepalive.WholeSeconds()), int(p.KeepaliveIdle.WholeSeconds())
	q.KeepaliveCount, q.KeepaliveIntvl = p.KeepaliveCount, int(p.KeepaliveIntvl.WholeSeconds())
	q.NonblkZcack, q.ZcMinPayload, q.ConnsPerPeer, q.TOS = p.NonblkZcack, int(p.ZcMinPayload), p.ConnsPerPeer, p.TOS
	return q
}

// buildEthernet attaches every tcp NI's address to the scenario's Ethernet at its link
// rate, latency, MTU and port buffer (a host per member with tcp NIs, in member order): to
// one switch, or to the leaves of a leaf-spine fabric, hosts_per_leaf hosts a leaf with all
// of a host's interfaces on its leaf, every leaf trunked to every spine at the uplink rate
// and latency. It creates the socklnd serving every tcp net with its module parameters, and
// returns nil when no member has a tcp NI.
func buildEthernet(k *sim.Kernel, s *scenarios.Scenario) (*ethernet, error) {
	if s.Ethernet == nil {
		return nil, nil
	}
	e := s.Ethernet
	tn := tcp.New(k, tcp.Config{SwitchLatency: e.SwitchLatency})
	eth := &ethernet{n: tn, lnd: socklnd.New(tn), hosts: map[string]*tcp.Host{}, links: map[lnet.NID]*tcp.Link{}}
	if err := setNetParams(s.SockLND, sockParams, eth.lnd.SetParams); err != nil {
		return nil, err
	}
	eth.lnd.SetAcceptPorts(s.LNet.AcceptPorts())
	spec := tcp.LinkSpec{Rate: int64(e.LinkRate), Latency: e.LinkLatency, MTU: e.MTU, BufferBytes: int64(e.PortBuffer)}
	var switchOf func(host int) *tcp.Switch
	switch e.Topology {
	case "":
		sw := tn.AddSwitch("eth-sw0")
		switchOf = func(int) *tcp.Switch { return sw }
	case "leaf-spine":
		up := spec
		up.Rate, up.Latency = int64(e.UplinkRate), e.UplinkLatency
		ls, err := tn.AddLeafSpine(scenarios.EthernetLeaves(s), e.Spines, up)
		if err != nil {
			return nil, err
		}
		eth.fabric = ls
		switchOf = func(host int) *tcp.Switch { return ls.Leaves[host/e.HostsPerLeaf] }
	default:
		return nil, fmt.Errorf("unknown Ethernet topology %q", e.Topology)
	}
	for i := range s.Members {
		m := &s.Members[i]
		var h *tcp.Host
		for _, ni := range m.NIs {
			if !scenarios.IsTCPNet(ni.Net) {
				continue
			}
			if h == nil {
				h = tn.AddHost(m.Name)
				eth.hosts[m.Name] = h
			}
			nid, err := toNID(ni.NID)
			if err != nil {
				return nil, err
			}
			l, err := tn.Attach(h, ni.NID.Addr, switchOf(len(eth.hosts)-1), spec)
			if err != nil {
				return nil, fmt.Errorf("node %s NI %s: %w", m.Name, nid, err)
			}
			eth.links[nid] = l
			eth.lnd.SetProfile(nid, scenarios.SockLNDProfile(m.Global.Release)) // the node's release's ksocklnd
		}
	}
	return eth, nil
}

// trunk returns the leaf-spine trunk a fault's switch_link names (leaf<i>-spine<j>, checked
// by Load), or nil.
func (e *ethernet) trunk(name string) *tcp.Link {
	if e == nil || e.fabric == nil {
		return nil
	}
	var l, s int
	if _, err := fmt.Sscanf(name, "leaf%d-spine%d", &l, &s); err != nil {
		return nil
	}
	return e.fabric.Uplink(l, s)
}

// linkOf returns a tcp NI's Ethernet link (nil for other NIs, or without Ethernet).
func (e *ethernet) linkOf(nid lnet.NID) *tcp.Link {
	if e == nil {
		return nil
	}
	return e.links[nid]
}

// host returns a member's Ethernet host (nil if it has no tcp NI, or without Ethernet).
func (e *ethernet) host(name string) *tcp.Host {
	if e == nil {
		return nil
	}
	return e.hosts[name]
}
