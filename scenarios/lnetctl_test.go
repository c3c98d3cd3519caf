package scenarios

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// withExport builds a scenario whose client is configured by the export at path, indented
// under nodes.client.lnetctl as a user would paste it.
func withExport(t *testing.T, path string) []byte {
	t.Helper()
	exp, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`duration: 60s
nodes:
  mds:
    nis:
      - {net: o2ib, nid: 192.168.10.21@o2ib}
      - {net: o2ib, nid: 192.168.10.22@o2ib}
  rtr:
    routing: true
    nis:
      - {net: o2ib0, nid: 192.168.10.250@o2ib}
      - o2ib1
  oss:
    nis: [o2ib1]
  client:
    lnetctl:
`)
	for _, line := range strings.Split(string(exp), "\n") {
		if line != "" {
			b.WriteString("      " + line)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func TestLnetctlImport(t *testing.T) {
	s, err := Load("import.yaml", withExport(t, "testdata/lnetctl/client-export.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Member("client")
	if len(c.NIs) != 2 {
		t.Fatalf("client NIs: %+v", c.NIs)
	}
	ni := c.NIs[1]
	if ni.NID.String() != "192.168.10.12@o2ib" || ni.Interface != "ib1" || ni.HCA != 1 || ni.Net != "o2ib0" {
		t.Errorf("NI 1: %+v", ni)
	}
	if ni.Tunables.PeerCredits != 32 || ni.Tunables.Credits != 512 {
		t.Errorf("tunables %+v", *ni.Tunables)
	}
	if l := ni.LND; l.PeerCreditsHiw != 16 || l.ConcurrentSends != 64 || l.NTX != 1024 || l.ConnsPerPeer != 2 || l.Timeout != 30*sim.Second || l.Keepalive != 100*sim.Second {
		t.Errorf("lnd tunables %+v", *l)
	}
	g := c.Global
	if g.RetryCount != 3 || g.TransactionTimeout != 100*sim.Second || g.MaxInterfaces != 200 || !g.Discovery {
		t.Errorf("global %+v", *g)
	}
	if s.LNet.RetryCount != 2 || s.Member("mds").Global.RetryCount != 2 {
		t.Errorf("the client's globals leaked to other nodes")
	}
	if len(c.Routes) != 1 || c.Routes[0].Gateway.String() != "192.168.10.250@o2ib" || c.Routes[0].Net != "o2ib1" || c.Routes[0].Hop != -1 {
		t.Errorf("routes %+v", c.Routes)
	}
	if len(c.Peers) != 1 || len(c.Peers[0].NIDs) != 2 || !c.Peers[0].MultiRail || c.Peers[0].PrimaryNID.String() != "192.168.10.21@o2ib" {
		t.Errorf("peers %+v", c.Peers)
	}
	if c.Routing {
		t.Error("routing enabled")
	}
	wantU := []ResolvedUDSP{{Src: "o2ib", Priority: 1, Idx: 0}, {Dst: "o2ib1", Rte: "192.168.10.250@o2ib", Priority: -1, Idx: 1}}
	if !reflect.DeepEqual(c.UDSP, wantU) {
		t.Errorf("udsp %+v, want %+v", c.UDSP, wantU)
	}
	if len(s.Member("mds").UDSP) != 0 {
		t.Error("the client's udsp leaked to other nodes")
	}
}

func TestLnetctlImportErrors(t *testing.T) {
	data := withExport(t, "testdata/lnetctl/client-export.yaml")
	// A gateway no node has is accepted, as the kernel does; one on no net of the node is not.
	data = []byte(strings.Replace(string(data), "gateway: 192.168.10.250@o2ib", "gateway: 192.168.10.99@o2ib7", 1))
	data = []byte(strings.Replace(string(data), "peer_credits: 32", "peer_credits: 300", 1))
	_, err := Load("import.yaml", data)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"import.yaml:124:22: nodes.client.lnetctl.route[0].gateway: gateway 192.168.10.99@o2ib7 is not on a net of client",
		"nodes.client.lnetctl.net[1].local NI(s)[0].tunables.peer_credits: must be from 1 to 255, got 300",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}

func TestLnetctlImportBlockText(t *testing.T) {
	data := withExport(t, "testdata/lnetctl/client-export.yaml")
	block := strings.Replace(string(data), "    lnetctl:\n", "    lnetctl: |\n", 1)
	a, err := Load("block.yaml", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("import.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash != b.Hash {
		t.Fatal("a pasted block and inline YAML differ")
	}
	bad := strings.Replace(block, "peer_credits: 32", "peer_credits: 300", 1)
	_, err = Load("block.yaml", []byte(bad))
	want := "block.yaml:86:35: nodes.client.lnetctl.net[1].local NI(s)[0].tunables.peer_credits: must be from 1 to 255, got 300"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %q", err, want)
	}
}

// TestLnetctlCheckErrors: an lnetctl check without node, with an unknown command, a bad
// which_nid NID, no comparison, or a comparison that is not a mapping is refused, located.
func TestLnetctlCheckErrors(t *testing.T) {
	src := `duration: 5s
nodes:
  a: {nis: [o2ib]}
expect:
  - {check: lnetctl, command: route list}
  - {check: lnetctl, node: a, command: which_nid 10.0.0.1@foo, equal: {peer: []}}
  - {check: lnetctl, node: a, command: net show -v}
  - check: lnetctl
    node: a
    command: export
    present: "- a list"
`
	_, err := Load("c.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"c.yaml:5:5: expect[0].node: an lnetctl check needs node",
		`c.yaml:5:31: expect[0].command: unknown command "route list"`,
		`c.yaml:6:40: expect[1].command: invalid NID "10.0.0.1@foo"`,
		"c.yaml:7:5: expect[2]: give present, absent or equal",
		"c.yaml:11:14: expect[3].present: expected a mapping of lnetctl's top-level keys",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}

// TestLnetctlImportReleases: the export of the same two-rail o2ib client as 2.10, 2.12
// (LND tunables inside tunables:, lnd tunables: empty, dev cpt, tcp bonding), 2.15 and
// master print it loads to the same NIs, routes and peers; what each version prints that
// the model has no use for is listed once.
func TestLnetctlImportReleases(t *testing.T) {
	common := "available_rtr_credits, available_tx_credits, dev cpt, "
	tail := "max_ni_tx_credits, min_rtr_credits, min_tx_credits, "
	for _, c := range []struct {
		version    string
		timeout    sim.Time
		maxIntf    int
		txTimeout  sim.Time
		udsp       int
		ignoredKey string
	}{
		{"2.10", 50 * sim.Second, 4096, 150 * sim.Second, 0, common + tail + "refcount, routing cpt[N], state, statistics, tcp bonding, tx_q_num_of_buf"},
		{"2.12", 50 * sim.Second, 200, 150 * sim.Second, 0, common + tail + "refcount, routing cpt[N], state, statistics, tcp bonding, tx_q_num_of_buf"},
		{"2.15", 50 * sim.Second, 200, 50 * sim.Second, 1, common + "dropped_stats, health stats, health_sensitivity, lnd_timeout, " + tail + "received_stats, refcount, routing cpt[N], sent_stats, state, statistics, tx_q_num_of_buf, type"},
		{"master", 0, 200, 50 * sim.Second, 1, common + "dropped_stats, health stats, lnd_timeout, " + tail + "received_stats, refcount, routing cpt[N], sent_stats, state, statistics, tx_q_num_of_buf, type, udsp info"},
	} {
		s, err := Load(c.version+".yaml", withExport(t, "testdata/lnetctl-export/"+c.version+".yaml"))
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		m := s.Member("client")
		if len(m.NIs) != 2 {
			t.Fatalf("%s: NIs %+v", c.version, m.NIs)
		}
		for i, ni := range m.NIs {
			if want := fmt.Sprintf("192.168.10.1%d@o2ib", i+1); ni.NID.String() != want || ni.Interface != fmt.Sprintf("ib%d", i) {
				t.Errorf("%s: NI %d is %s on %s", c.version, i, ni.NID, ni.Interface)
			}
			if *ni.Tunables != (NetTunables{PeerTimeout: 180 * sim.Second, PeerCredits: 16, Credits: 256}) {
				t.Errorf("%s: NI %d tunables %+v", c.version, i, *ni.Tunables)
			}
			if l := ni.LND; l.PeerCreditsHiw != 8 || l.ConcurrentSends != 16 || l.NTX != 512 || l.ConnsPerPeer != 1 || l.MapOnDemand != 0 || l.Timeout != c.timeout {
				t.Errorf("%s: NI %d lnd tunables %+v", c.version, i, *l)
			}
		}
		if len(m.Routes) != 1 || m.Routes[0] != (ResolvedRoute{Net: "o2ib1", Gateway: m.Routes[0].Gateway, Hop: -1}) || m.Routes[0].Gateway.String() != "192.168.10.250@o2ib" {
			t.Errorf("%s: routes %+v", c.version, m.Routes)
		}
		if len(m.Peers) != 1 || !m.Peers[0].MultiRail || len(m.Peers[0].NIDs) != 2 {
			t.Errorf("%s: peers %+v", c.version, m.Peers)
		}
		if g := m.Global; g.MaxInterfaces != c.maxIntf || g.TransactionTimeout != c.txTimeout || !g.Discovery || m.Routing || len(m.UDSP) != c.udsp {
			t.Errorf("%s: global %+v routing %v udsp %+v", c.version, *g, m.Routing, m.UDSP)
		}
		if want := []string{"nodes.client.lnetctl: " + c.ignoredKey}; !reflect.DeepEqual(s.Ignored, want) {
			t.Errorf("%s: ignored\n%q\nwant\n%q", c.version, s.Ignored, want)
		}
	}
}

// TestLnetctlImportModuleValues: -1 for an LNet tunable means the module's value (the
// net's o2ib peer_timeout and peer_credits), o2ib timeout 0 the global LND timeout; a
// negative o2ib timeout is refused.
func TestLnetctlImportModuleValues(t *testing.T) {
	data := string(withExport(t, "testdata/lnetctl-export/master.yaml"))
	data = strings.Replace(data, "peer_timeout: 180", "peer_timeout: -1", 2)
	data = strings.Replace(data, "peer_credits: 16", "peer_credits: -1", 1)
	s, err := Load("m.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	nis := s.Member("client").NIs
	if *nis[0].Tunables != (NetTunables{PeerTimeout: 180 * sim.Second, PeerCredits: 8, Credits: 256}) || nis[0].LND.Timeout != 0 {
		t.Errorf("NI 0: %+v, timeout %v", *nis[0].Tunables, nis[0].LND.Timeout)
	}
	if nis[1].Tunables.PeerCredits != 16 {
		t.Errorf("NI 1: %+v", *nis[1].Tunables)
	}
	_, err = Load("m.yaml", []byte(strings.Replace(data, " timeout: 0\n", " timeout: -5\n", 1)))
	want := "m.yaml:90:30: nodes.client.lnetctl.net[1].local NI(s)[0].lnd tunables.timeout: must be positive, got -5"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestLnetctlCheckAliasBomb: a comparison document whose aliases multiply it past the
// decoder's bound is refused, located, instead of expanding without end.
func TestLnetctlCheckAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("duration: 1s\nnodes:\n  a: {nis: [o2ib]}\nexpect:\n  - check: lnetctl\n    node: a\n    command: export\n    present:\n      x0: &x0 [1, 1, 1, 1, 1, 1, 1, 1]\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&b, "      x%d: &x%d [*x%d, *x%d, *x%d, *x%d, *x%d, *x%d, *x%d, *x%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	_, err := Load("bomb.yaml", []byte(b.String()))
	want := "bomb.yaml:9:7: expect[0].present: the document is too large (more than 200000 values)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestLnetctlImportRoutingList: export's `routing:` list (per-CPT pools, then enable) sets
// routing from its enable item, as export --backup's mapping does.
func TestLnetctlImportRoutingList(t *testing.T) {
	data := strings.Replace(string(withExport(t, "testdata/lnetctl-export/2.10.yaml")), "- enable: 0", "- enable: 1", 1)
	s, err := Load("r.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Member("client").Routing {
		t.Fatal("routing: [..., {enable: 1}] did not enable routing")
	}
	_, err = Load("r.yaml", []byte(strings.Replace(data, "- enable: 1", "- enabled: 1", 1)))
	want := "r.yaml:128:13: nodes.client.lnetctl.routing[2]: expected cpt[N]: or enable:, got a mapping (paste lnetctl's routing section)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
