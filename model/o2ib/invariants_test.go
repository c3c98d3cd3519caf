package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestInvariantsCatchConnFaults breaks one thing at a time on an established conn and
// expects the exact violation LND.checkInvariants reports.
func TestInvariantsCatchConnFaults(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(c *cluster)
		want   string
	}{
		{"none", func(*cluster) {}, ""},
		{"CQ destroyed under a live conn", func(c *cluster) { c.lnd.conns[0].cq.Destroy() },
			"o2ib conn 0 to 10.0.0.2@o2ib (state 3): destroyed false but its CQ dead true: CQ and conn counts unbalanced"},
		{"credit returned twice", func(c *cluster) { c.lnd.conns[0].credits = c.lnd.conns[0].queueDepth + 1 },
			"o2ib conn 0 to 10.0.0.2@o2ib (state 3): credits 9 of 8, outstanding credits 2"},
		{"conn lost from the table", func(c *cluster) { c.lnd.stats.ConnsCreated++ },
			"o2ib: 3 conns created, 2 in the table: conn count unbalanced"},
		{"FastReg descriptor leaked (a failed map before LU-20400)", func(c *cluster) {
			p := c.nodes[0].NIs()[0].LNDData.(*kibNet).fmr.sets[0].pools[0]
			p.free--
			p.mapCount++
		}, "o2ib net 10.0.0.1@o2ib: 1 FastReg descriptors out of its pools, 0 held by its txs: descriptors leaked"},
		{"FastReg map count off", func(c *cluster) { c.nodes[1].NIs()[0].LNDData.(*kibNet).fmr.sets[0].pools[0].mapCount-- },
			"o2ib net 10.0.0.2@o2ib: FastReg pool 0 of CPT 0 has 512 of 512 descriptors free and map count -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, clusterOpt{noTrace: true})
			c.put(t, 1, 2, 8)
			c.run(t, sim.Second)
			tc.mutate(c)
			got := ""
			if err := c.lnd.checkInvariants(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
