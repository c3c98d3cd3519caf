package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// TestSharedInterface: NIs of two nets on one interface, as sanity-lnet sets up multi-rail
// (10.0.0.1@o2ib and 10.0.0.1@o2ib1 on ib0), share its HCA port; the same interface named
// without a NID gets the interface's address on its own net. What one port cannot be is
// refused, located.
func TestSharedInterface(t *testing.T) {
	s, err := Load("s.yaml", []byte(`duration: 1s
nodes:
  a:
    nis:
      - {net: o2ib, nid: 10.0.0.1@o2ib}
      - {net: o2ib1, nid: 10.0.0.1@o2ib1}
  b:
    nis:
      - {net: o2ib}
      - {net: o2ib1, interface: ib0}
      - {net: o2ib2}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Members {
		for _, ni := range m.NIs {
			got = append(got, fmt.Sprintf("%s %s %s %d:%d", m.Name, ni.NID, ni.Interface, ni.HCA, ni.Port))
		}
	}
	want := "a 10.0.0.1@o2ib ib0 0:1|a 10.0.0.1@o2ib1 ib0 0:1|b 10.0.0.2@o2ib ib0 0:1|b 10.0.0.2@o2ib1 ib0 0:1|b 10.2.0.1@o2ib2 ib2 2:1"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	_, err = Load("bad.yaml", []byte(`duration: 1s
nodes:
  a:
    nis:
      - {net: o2ib, nid: 10.0.0.1@o2ib}
      - {net: o2ib5, hca: 5, interface: ib5}
      - {net: o2ib, hca: 0}
      - {net: o2ib1, nid: 10.0.0.1@o2ib1, hca: 1}
      - {net: o2ib2, hca: 0, interface: eth0}
      - {net: o2ib3, hca: 0, nid: 10.0.0.9@o2ib3}
`))
	for _, w := range []string{
		"bad.yaml:7:9: nodes.a.nis[2]: NI 2 uses HCA 0 port 1, like NI 0 of the same net o2ib0 (give each NI of a net its own hca or port)",
		"bad.yaml:8:9: nodes.a.nis[3]: address 10.0.0.1 is NI 0's, on HCA 0 port 1",
		"bad.yaml:9:41: nodes.a.nis[4].interface: HCA 0 port 1 is NI 0's interface ib0, not eth0 (a port is one IPoIB interface)",
		"bad.yaml:10:35: nodes.a.nis[5].nid: interface ib0 has NI 0's address 10.0.0.1, not 10.0.0.9 (NIs sharing an interface use its address)",
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in\n%v", w, err)
		}
	}
}
