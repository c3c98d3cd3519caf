package scenarios

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// FuzzNIDAgreesWithLNet: every NID and net the scenario schema accepts is read by the model's
// parser (the runner builds the cluster with lnet.ParseNID(nid.String()) and
// lnet.ParseNet(net)) as the same NID and net, written the same way.
func FuzzNIDAgreesWithLNet(f *testing.F) {
	for _, s := range []string{"10.0.0.1@o2ib", "192.168.1.5@o2ib1", "0@lo", "1.2.3.4@o2ib65535", "10.0.0.1@o2ib10",
		"@o2ib1", "o2ib", "o2ib0", "o2ib12", "@o2ib3", "lo", "lo0", "0.0.0.0@o2ib", "255.255.255.255@o2ib100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseNID(s); err == nil {
			m, err := lnet.ParseNID(n.String())
			if err != nil {
				t.Fatalf("scenario NID %q (%s) refused by the model: %v", s, n, err)
			}
			if m.String() != n.String() {
				t.Fatalf("scenario NID %q: schema writes %s, model %s", s, n, m)
			}
			if net, err := lnet.ParseNet(n.Net); err != nil || net != m.Net() {
				t.Fatalf("scenario NID %q: net %s is %v in the model, the NID's net %v (%v)", s, n.Net, net, m.Net(), err)
			}
		}
		if name, num, err := ParseNet(s); err == nil {
			net, err := lnet.ParseNet(name)
			if err != nil || int(net.Num()) != num || net.String() != name && !(name == "lo0" && net.String() == "lo") {
				t.Fatalf("scenario net %q (%s, %d) is %v in the model (%v)", s, name, num, net, err)
			}
		}
	})
}

// TestLoopbackNetHasNoNumber: "lo1" is refused (FuzzNIDAgreesWithLNet found that the schema
// took it as an NI net, which validated and failed at run time with an address error).
func TestLoopbackNetHasNoNumber(t *testing.T) {
	for _, s := range []string{"lo1", "lo00", "lo65535"} {
		if _, _, err := ParseNet(s); err == nil {
			t.Errorf("ParseNet(%q) accepted", s)
		}
	}
	for _, s := range []string{"lo", "lo0", "@lo"} {
		if n, _, err := ParseNet(s); err != nil || n != "lo0" {
			t.Errorf("ParseNet(%q) = %q, %v", s, n, err)
		}
	}
	_, err := Load("lo.yaml", []byte("duration: 1s\nnodes:\n  a: {nis: [lo1]}\n  b: {nis: [o2ib]}\n"))
	if err == nil || !strings.Contains(err.Error(), "loopback net is lo") {
		t.Fatalf("nis: [lo1]: %v", err)
	}
}
