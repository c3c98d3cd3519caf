package socklnd

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/model/tcp"
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

// TestReservedPorts models lnet_connect's walk of the reserved ports (1023 down to 512)
// over sockets that share their port (SO_REUSEPORT; SO_REUSEADDR up to 2.12): n1 sends a
// 1 MiB PUT to each of 200 peers, and its 600 conns (CONTROL, BULK_IN, BULK_OUT to each: conns_per_peer 1 at 1 Gb/s)
// take ports 1023, 1022 and 1021 to every peer, more conns than there are reserved ports;
// before, ports were taken in turn and the 171st peer found none free (the run spun for
// ever). A listener on n1's port 1023 takes that port from a 2.12 node's dials
// (BindReuseAddr: the bind fails and the walk goes on at 1022), not from a later
// release's.
func TestReservedPorts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      Profile
		listen bool
		ports  string // n1's local ports to each peer
	}{
		{"master", Profile{}, false, "[1021 1022 1023]"},
		{"master, 1023 listened on", Profile{}, true, "[1021 1022 1023]"},
		{"2.12, 1023 listened on", Profile{BindReuseAddr: true}, true, "[1020 1021 1022]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const peers = 200
			c := newClusterWith(t, clusterOpt{nodes: peers + 1, noTrace: true, rate: 1000 * 1000 * 1000}, func(l *LND) {
				l.SetProfile(nidOf(1), tc.p)
			})
			if tc.listen {
				c.hosts[0].Listen(1023, tcp.Options{}, func(*tcp.Conn) {})
			}
			for b := 2; b <= peers+1; b++ {
				c.put(t, 1, b, 1<<20)
			}
			c.run(t, 5*sim.Second) // 200 MiB over n1's 1 Gb/s link
			if got := len(c.src[0].evs); got != 2*peers {
				t.Fatalf("n1 saw %d events, want a SEND and an ACK of each of %d PUTs", got, peers)
			}
			for _, ev := range c.src[0].evs {
				if ev.Status != 0 {
					t.Fatalf("event %v status %d", ev.Type, ev.Status)
				}
			}
			byPeer := map[netip.Addr][]int{}
			for _, s := range c.hosts[0].Established() {
				byPeer[s[1].Addr()] = append(byPeer[s[1].Addr()], int(s[0].Port()))
			}
			if len(byPeer) != peers {
				t.Fatalf("n1 has conns to %d peers, want %d", len(byPeer), peers)
			}
			for a, ports := range byPeer {
				slices.Sort(ports)
				if got := fmt.Sprint(ports); got != tc.ports {
					t.Fatalf("n1's conns to %v from ports %s, want %s", a, got, tc.ports)
				}
			}
		})
	}
}
