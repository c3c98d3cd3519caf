package scenarios

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// Releases per node: each group takes its own release, else lnet.release, and that release's
// defaults for the tunables nobody wrote (a written one wins, in lnet or the group's lnetctl
// global section); the o2ib timeout default is the release's (0: LNet's lnd_timeout, up to
// 2.16) unless written.
func TestReleasePerNode(t *testing.T) {
	src := `
duration: 10s
nodes:
  old: {nis: [o2ib0], release: "2.12"}
  first: {nis: [o2ib0], release: 2.12.0}
  mid: {nis: [o2ib0]}
  new: {nis: [o2ib0], release: "2.16"}
  cur: {nis: [o2ib0], release: master}
  fixed:
    nis: [o2ib0]
    release: "2.16"
    lnetctl: {global: {retry_count: 1}}
lnet:
  release: "2.15"
  health_sensitivity: 50
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		node, rel   string
		tt          sim.Time
		retry, sens int
		o2ibTimeout sim.Time
	}{
		{"old", "2.12", 50, 2, 50, 0},
		{"first", "2.12.0", 50, 0, 50, 0}, // 2.12.0 ships retry_count 0
		{"mid", "2.15", 50, 2, 50, 0},
		{"new", "2.16", 150, 2, 50, 0},
		{"cur", "", 150, 2, 50, 50}, // master: no release recorded
		{"fixed", "2.16", 150, 1, 50, 0},
	} {
		m := s.Member(c.node)
		g := m.Global
		if g.Release != c.rel || g.TransactionTimeout != c.tt*sim.Second || g.RetryCount != c.retry ||
			g.HealthSensitivity != c.sens || m.NIs[0].LND.Timeout != c.o2ibTimeout*sim.Second {
			t.Errorf("%s: release %q, transaction_timeout %v, retry_count %d, health_sensitivity %d, o2ib timeout %v; want %+v",
				c.node, g.Release, g.TransactionTimeout, g.RetryCount, g.HealthSensitivity, m.NIs[0].LND.Timeout, c)
		}
	}
}
