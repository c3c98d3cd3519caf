package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// TestLeafSpineWiring: hosts (members with a tcp NI, in member order; the o2ib-only router
// between them takes no place) fill the leaves hosts_per_leaf at a time, every leaf has an
// uplink to every spine at uplink_rate and, by default, link_latency; switch_link names
// resolve to those trunks.
func TestLeafSpineWiring(t *testing.T) {
	s := load(t, `
duration: 1s
nodes:
  client: {count: 3, nis: [tcp0]}
  ib: {nis: [o2ib0]}
  server: {count: 2, nis: [tcp0]}
ethernet: {topology: leaf-spine, hosts_per_leaf: 2, spines: 3, uplink_rate: 100Gbps}
`)
	eth, err := buildEthernet(sim.New(1), s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, name := range []string{"client0", "client1", "client2", "server0", "server1"} {
		got = append(got, eth.host(name).Links()[0].Name())
	}
	same(t, "host links", strings.Join(got, " "), "client0-leaf0 client1-leaf0 client2-leaf1 server0-leaf1 server1-leaf2")
	same(t, "leaves", len(eth.fabric.Leaves), 3)
	same(t, "spines", len(eth.fabric.Spines), 3)
	up := eth.trunk("leaf2-spine1")
	same(t, "trunk", up.Name(), "leaf2-spine1")
	same(t, "uplink rate", up.Spec().Rate, 100*tcp.Gbps)
	same(t, "uplink latency", up.Spec().Latency, 500*sim.Nanosecond)
	same(t, "host link rate", eth.host("client0").Links()[0].Spec().Rate, 25*tcp.Gbps)
	same(t, "no such trunk", eth.trunk("leaf3-spine0") == nil, true)
}

// TestSingleSwitchHashUnchanged: topology: single-switch written out is the default, stored
// empty, so the scenario hashes as one written before topologies existed (every tcp golden
// keeps its hash).
func TestSingleSwitchHashUnchanged(t *testing.T) {
	base := "duration: 1s\nnodes: {a: {nis: [tcp0]}, b: {nis: [tcp0]}}\n"
	a := load(t, base)
	b := load(t, base+"ethernet: {topology: single-switch}\n")
	same(t, "hash", b.Hash, a.Hash)
	same(t, "topology", b.Ethernet.Topology, "")
}

// leafSpineFaults: two clients on leaf0 write to two servers on leaf1 across two spines;
// leaf0-spine0 goes down at 1s for 1s, leaf0-spine1 gets 1ms of extra delay from 3s to 4s,
// and loss 0.5 from 5s to 5.5s.
const leafSpineFaults = `
name: leaf-spine-faults
duration: 7s
nodes:
  client: {count: 2, nis: [tcp0]}
  server: {count: 2, nis: [tcp0]}
ethernet: {topology: leaf-spine, hosts_per_leaf: 2}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, interval: 10ms}
faults:
  - {at: 1s, action: link_down, switch_link: leaf0-spine0, for: 1s}
  - {at: 3s, action: link_delay, switch_link: leaf0-spine1, delay: 1ms, for: 1s}
  - {at: 5s, action: link_loss, switch_link: leaf0-spine1, loss: 0.5, for: 500ms}
expect:
  - {name: no write fails, check: operations, workload: w, status: failed, eq: 0}
  # how many complete in the 50% loss period follows which packets the seed's stream loses
  - {name: writes completed, check: operations, workload: w, status: ok, eq: 1180}
`

// TestSwitchLinkFaults: link_down, link_delay and link_loss on leaf-spine trunks happen at
// their times and are undone by for:, recorded under the trunk's name; TCP carries every
// write through them (the connections on a trunk that goes down move to the other spine; a
// trunk carries no NI, so LNet sees no failure). The ideal backend has no Ethernet model:
// the run reports switch_link unsupported.
func TestSwitchLinkFaults(t *testing.T) {
	csv := runExpecting(t, leafSpineFaults, BackendO2IB, "faults.csv")
	want := "time_ns,kind,target,detail,hits\n" +
		"1000000000,link_down,leaf0-spine0,,1\n2000000000,link_up,leaf0-spine0,,1\n" +
		"3000000000,link_delay,leaf0-spine1,1ms,1\n4000000000,link_delay,leaf0-spine1,0,1\n" +
		"5000000000,link_loss,leaf0-spine1,0.5,1\n5500000000,link_loss,leaf0-spine1,0,1\n"
	same(t, "faults.csv", string(csv), want)
	_, err := Run(load(t, leafSpineFaults), Options{Backend: BackendIdeal})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "switch_link leaf0-spine0 needs the o2ib backend") {
		t.Errorf("ideal backend: %v", err)
	}
}

// same fails t unless got equals want.
func same[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}
