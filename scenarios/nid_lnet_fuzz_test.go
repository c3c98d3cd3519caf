package scenarios

import (
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
