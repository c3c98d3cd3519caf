package socklnd

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestAcceptorSockets: where the acceptor listens and which port each conn is made to, by
// release rules, with accept_port_bulk 989. Master binds the NI's address on 988 and 989
// and makes its bulk conns to 989; AcceptAnyAddress (up to 2.16) listens on 0.0.0.0;
// NoAcceptPortBulk (up to 2.16) ignores 989 entirely. A 1 MiB PUT from n1 to n2 opens a
// control conn and conns_per_peer (1 at 1 Gb/s) BULK_IN and BULK_OUT conns; n2's
// established sockets' local ports show where they were accepted. A master n1 sending to a
// 2.16 n2 makes its bulk conns to 989, where n2 does not listen: refused, only the control
// conn is made that way, and n2 makes the bulk conns itself, from reserved ports 1023 and
// 1022 to n1's 988 (accept_port_bulk is meant to be the same on all nodes).
func TestAcceptorSockets(t *testing.T) {
	rel216 := Profile{AcceptAnyAddress: true, NoAcceptPortBulk: true}
	for _, tc := range []struct {
		name   string
		p, p1  Profile
		listen string
		local  string // n2's established local ports
	}{
		{"master", Profile{}, Profile{}, "[192.168.1.2:988 192.168.1.2:989]", "[988 989 989]"},
		{"2.16", rel216, rel216, "[0.0.0.0:988]", "[988 988 988]"},
		{"master to 2.16", rel216, Profile{}, "[0.0.0.0:988]", "[988 1023 1022]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClusterWith(t, clusterOpt{noTrace: true, rate: 1000 * 1000 * 1000}, func(l *LND) {
				l.SetAcceptPorts(988, 989)
				l.SetProfile(nidOf(1), tc.p1)
				l.SetProfile(nidOf(2), tc.p)
			})
			if got := fmt.Sprint(c.hosts[1].Listening()); got != tc.listen {
				t.Errorf("n2 listens on %s, want %s", got, tc.listen)
			}
			c.put(t, 1, 2, 1<<20)
			c.run(t, sim.Second)
			var ports []uint16
			for _, s := range c.hosts[1].Established() {
				ports = append(ports, s[0].Port())
			}
			if got := fmt.Sprint(ports); got != tc.local {
				t.Errorf("n2's conns accepted on %s, want %s", got, tc.local)
			}
			c.lnd.Shutdown(c.nodes[1].NIs()[0])
			if got := c.hosts[1].Listening(); len(got) != 0 {
				t.Errorf("after its NI's shutdown n2 listens on %v", got)
			}
		})
	}
}
