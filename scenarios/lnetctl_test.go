package scenarios

import (
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
	data = []byte(strings.Replace(string(data), "gateway: 192.168.10.250@o2ib", "gateway: 192.168.10.99@o2ib", 1))
	data = []byte(strings.Replace(string(data), "peer_credits: 32", "peer_credits: 300", 1))
	_, err := Load("import.yaml", data)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"import.yaml:124:22: nodes.client.lnetctl.route[0].gateway: no node has NID 192.168.10.99@o2ib",
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
  - {check: lnetctl, command: route show}
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
		`c.yaml:5:31: expect[0].command: unknown command "route show"`,
		`c.yaml:6:40: expect[1].command: invalid NID "10.0.0.1@foo"`,
		"c.yaml:7:5: expect[2]: give present, absent or equal",
		"c.yaml:11:14: expect[3].present: expected a mapping of lnetctl's top-level keys",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}
