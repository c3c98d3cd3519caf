package tcp

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// burstPair: hosts a and b each send one 10-segment chunk (their initial window) to srv
// at the same instant; srv's port has a buffer of six full frames.
func burstPair(t *testing.T) (n *Network, ca, cb *Conn, got *[]string) {
	k := sim.New(1)
	n = New(k, Config{})
	sw := n.AddSwitch("sw")
	var hs []*Host
	for i, name := range []string{"a", "b", "srv"} {
		h := n.AddHost(name)
		spec := LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond}
		if name == "srv" {
			spec.BufferBytes = 6 * 1538
		}
		if _, err := n.Attach(h, netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), sw, spec); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	var log []string
	hs[2].Listen(988, Options{}, func(c *Conn) {
		c.SetHandler(&rec{k: k, onData: func(c *Conn, r Record) {
			log = append(log, k.Now().String()+" "+r.Payload.(string))
		}})
	})
	var cs [2]*Conn
	for i := range 2 {
		hs[i].Dial(netip.AddrPortFrom(hs[i].Addrs()[0], 0), netip.AddrPortFrom(hs[2].Addrs()[0], 988), Options{}, func(c *Conn, err error) {
			c.SetHandler(&rec{k: k})
			cs[i] = c
		})
	}
	k.RunUntil(sim.Millisecond)
	for i, c := range cs {
		c.Write(Record{Bytes: 10 * 1448, Payload: string(rune('a' + i))})
	}
	k.RunUntil(2 * sim.Second)
	return n, cs[0], cs[1], &log
}

// Two chunks of ten frames reach a switch port at once; its buffer holds six frames. Their
// frames interleave: the buffer grows a frame per frame time (two in, one out), fills, and
// the last frames of both meet it full. Five frames are lost: five frames of each chunk
// arrive from the first drop on, so each loses its share, two from a's and three from b's
// (the remainder to the chunk being admitted), the last of its frames. Each connection
// sends a tail loss probe 2 SRTT + 2 ms after its chunk, whose SACK reveals the rest lost,
// and retransmits it: two retransmissions and one fast recovery each, and both records
// are delivered about 2 ms late. The old rule took a's whole chunk from the buffer at its
// head, leaving b no room: 15 of the 20 frames lost, b's ten among them.
func TestOverflowSharedByChunksArrivingTogether(t *testing.T) {
	n, ca, cb, log := burstPair(t)
	same(t, "segments dropped", n.Counters().DropOverflow, 5)
	ia, ib := ca.Info(), cb.Info()
	same(t, "a's retransmits and fast recoveries", [2]uint64{ia.Retransmits, ia.FastRetrans}, [2]uint64{2, 1})
	same(t, "b's retransmits and fast recoveries", [2]uint64{ib.Retransmits, ib.FastRetrans}, [2]uint64{2, 1})
	same(t, "loss probes", n.Counters().LossProbes, 2)
	same(t, "delivered", strings.Join(*log, ", "), "3.049448ms a, 3.055744ms b")
}
