package runner

import (
	"fmt"
	"maps"
	"slices"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// Backends.
const (
	BackendO2IB  = "o2ib"  // o2iblnd over the InfiniBand model: the faithful one (default)
	BackendIdeal = "ideal" // LNet's ideal LND: fast, LNet-only studies
)

// fabric is the o2ib backend's InfiniBand model of the cluster.
type fabric struct {
	ib    *ib.Fabric
	lnd   *o2ib.LND
	nodes map[string]*ib.Node   // member name -> node (lookups only)
	ports map[lnet.NID]*ib.Port // NI -> the HCA port its NID is the IPoIB address of
}

// setNetParams hands each net's module parameters, converted by conv, to set in sorted net
// order (no map order reaches the run).
func setNetParams[S, P any](byNet map[string]S, conv func(S) P, set func(lnet.NetID, P) error) error {
	for _, name := range slices.Sorted(maps.Keys(byNet)) {
		netID, err := lnet.ParseNet(name)
		if err != nil {
			return err
		}
		if err := set(netID, conv(byNet[name])); err != nil {
			return err
		}
	}
	return nil
}

// o2ibParams converts a scenario's ko2iblnd parameters to model/o2ib's.
func o2ibParams(p *scenarios.O2IBParams) o2ib.Params {
	return o2ib.Params{
		Service: p.Service, Timeout: int(p.Timeout.WholeSeconds()), Keepalive: int(p.Keepalive.WholeSeconds()),
		NTx: p.NTX, Credits: p.Credits, PeerCredits: p.PeerCredits, PeerCreditsHiw: p.PeerCreditsHiw,
		PeerBufferCredits: p.PeerBufferCredits, PeerTimeout: int(p.PeerTimeout.WholeSeconds()),
		ConcurrentSends: p.ConcurrentSends, ConnsPerPeer: p.ConnsPerPeer, RetryCount: p.RetryCount,
		RNRRetryCount: p.RNRRetryCount, MapOnDemand: p.MapOnDemand, FMRPoolSize: p.FMRPoolSize,
		FMRFlushTrigger: p.FMRFlushTrigger, FMRCache: p.FMRCache, DevFailover: p.DevFailover,
		IBMTU: p.IBMTU, WrqSGE: p.WRQSGE, TOS: p.TOS, Cksum: p.Cksum, UsePrivilegedPort: p.UsePrivilegedPort,
		Bulk: p.Bulk, ReadDepth: p.ReadDepth,
	}
}

// switchFor returns, for the i-th host port, the switch it is cabled to: the single switch,
// or in a two- or three-level fat tree the leaf holding it (leaves filled in order; the
// three-level tree is ib.AddFatTree3's). A leaf of radix R
// with oversubscription down:up has up = R*up/(down+up) uplinks, one to each spine, and the
// remaining ports for hosts; there are as many spines as uplinks per leaf.
func switchFor(f *ib.Fabric, s *scenarios.Scenario, hostPorts int) (func(i int) *ib.Switch, error) {
	fab := &s.Fabric
	switch fab.Topology {
	case "single-switch":
		sw := f.AddSwitch("sw0")
		return func(int) *ib.Switch { return sw }, nil
	case "fat-tree":
		r := fab.Radix
		up := r * fab.Oversubscription.Up / (fab.Oversubscription.Down + fab.Oversubscription.Up)
		down := r - up
		if up < 1 || down < 1 {
			return nil, fmt.Errorf("fat tree: radix %d with oversubscription %d:%d leaves no up or down ports", r, fab.Oversubscription.Down, fab.Oversubscription.Up)
		}
		leaves := max(1, (hostPorts+down-1)/down)
		if leaves > r {
			return nil, fmt.Errorf("fat tree: %d host ports need %d leaves of %d down ports, more than a spine's %d ports (use a larger radix)", hostPorts, leaves, down, r)
		}
		link := ib.LinkSpec{Rate: ib.Rate{Mbps: int64(fab.LinkRate) / 1_000_000}, Latency: fab.LinkLatency, MTU: fab.MTU}
		spines := make([]*ib.Switch, up)
		for i := range spines {
			spines[i] = f.AddSwitch(fmt.Sprintf("spine%d", i))
		}
		leafSw := make([]*ib.Switch, leaves)
		for l := range leafSw {
			leafSw[l] = f.AddSwitch(fmt.Sprintf("leaf%d", l))
			for _, sp := range spines {
				f.Connect(leafSw[l], sp, link)
			}
		}
		return func(i int) *ib.Switch { return leafSw[i/down] }, nil
	case "fat-tree-3":
		r := fab.Radix
		up := r * fab.Oversubscription.Up / (fab.Oversubscription.Down + fab.Oversubscription.Up)
		link := ib.LinkSpec{Rate: ib.Rate{Mbps: int64(fab.LinkRate) / 1_000_000}, Latency: fab.LinkLatency, MTU: fab.MTU}
		t, err := f.AddFatTree3(r, up, hostPorts, link)
		if err != nil {
			return nil, fmt.Errorf("fat tree: %w", err)
		}
		return func(i int) *ib.Switch { return t.Leaves[i/t.Down] }, nil
	}
	return nil, fmt.Errorf("unknown fabric topology %q", fab.Topology)
}

// buildFabric cables every member's HCA ports to the scenario's topology (one switch, or the
// leaves of a two-level fat tree, in member order) at its link rate, latency and MTU, gives
// each port its NI's address as IPoIB address, and creates the o2iblnd serving every o2ib net
// with the scenario's module parameters.
func buildFabric(k *sim.Kernel, s *scenarios.Scenario) (*fabric, error) {
	gran := ib.GranularityFixed
	if s.Fabric.Granularity == "adaptive" {
		gran = ib.GranularityAdaptive
	}
	arb := ib.ArbitrationFIFO
	if s.Fabric.SwitchArbitration == "round-robin" {
		arb = ib.ArbitrationRoundRobin
	}
	fb := &fabric{ib: ib.New(k, ib.Config{SwitchLatency: s.Fabric.SwitchLatency, Granularity: gran, Arbitration: arb,
		ChunkPackets: s.Fabric.ChunkPackets, BufferBytes: int64(s.Fabric.SwitchBuffer)}), nodes: map[string]*ib.Node{}, ports: map[lnet.NID]*ib.Port{}}
	fb.lnd = o2ib.New(fb.ib)
	if err := setNetParams(s.O2IB, o2ibParams, fb.lnd.SetParams); err != nil {
		return nil, err
	}
	hostPorts := 0
	for i := range s.Members {
		hostPorts += s.Members[i].HostPorts()
	}
	attach, err := switchFor(fb.ib, s, hostPorts)
	if err != nil {
		return nil, err
	}
	portIdx := 0
	spec := ib.LinkSpec{Rate: ib.Rate{Mbps: int64(s.Fabric.LinkRate) / 1_000_000}, Latency: s.Fabric.LinkLatency, MTU: s.Fabric.MTU}
	for i := range s.Members {
		m := &s.Members[i]
		n := fb.ib.AddNode(m.Name)
		fb.nodes[m.Name] = n
		nports := map[int]int{} // HCA index -> ports it needs
		maxHCA := -1
		for _, ni := range m.NIs {
			if scenarios.IsTCPNet(ni.Net) {
				continue // on the Ethernet network
			}
			nports[ni.HCA] = max(nports[ni.HCA], ni.Port)
			maxHCA = max(maxHCA, ni.HCA)
		}
		hcas := make([]*ib.HCA, maxHCA+1)
		for h := 0; h <= maxHCA; h++ {
			if nports[h] == 0 {
				continue
			}
			hcas[h] = n.AddHCA(fmt.Sprintf("mlx5_%d", h), nports[h])
			for p := 1; p <= nports[h]; p++ {
				fb.ib.Connect(hcas[h].Port(p), attach(portIdx), spec)
				portIdx++
			}
		}
		rules := scenarios.O2IBProfile(m.Global.Release)
		for _, ni := range m.NIs {
			if scenarios.IsTCPNet(ni.Net) {
				continue
			}
			nid, err := toNID(ni.NID)
			if err != nil {
				return nil, err
			}
			port := hcas[ni.HCA].Port(ni.Port)
			port.AddIP(ni.NID.Addr)
			fb.ports[nid] = port
			if ni.LND == nil && rules == (o2ib.Profile{}) {
				continue
			}
			p := fb.lnd.Params(nid.Net())
			if ni.LND != nil {
				p = o2ibParams(ni.LND)
			}
			p.Profile = rules // the node's release's o2iblnd
			if err := fb.lnd.SetNIParams(nid, p); err != nil {
				return nil, err
			}
		}
	}
	return fb, nil
}

// linkOf returns the cable of an NI's port.
func (fb *fabric) linkOf(nid lnet.NID) *ib.Link {
	if p := fb.ports[nid]; p != nil {
		return p.Link()
	}
	return nil
}

// cmRejectReasons maps scenario reason names to o2iblnd's reject reasons.
var cmRejectReasons = map[string]int{
	"conn_race": o2ib.RejectConnRace, "no_resources": o2ib.RejectNoResources, "fatal": o2ib.RejectFatal,
	"conn_uncompat": o2ib.RejectConnUncompat, "conn_stale": o2ib.RejectConnStale, "rdma_frags": o2ib.RejectRDMAFrags,
	"msg_queue_size": o2ib.RejectMsgQueueSize, "invalid_srv_id": o2ib.RejectInvalidSrvID, "early": o2ib.RejectEarly,
}
