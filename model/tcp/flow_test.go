package tcp

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// The handshake and a small record on an idle 10 Gb/s star (1us links, 1us switch): a
// control frame (96 bytes, 76 ns) takes 2 x (76 ns + 1us) + 1us = 3.152us one way, so the
// dial completes at one round trip and the server accepts at one and a half.
func TestHandshakeAndSmallRecord(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	c.Write(Record{Bytes: 100, Payload: "hello"})
	p.k.Run()
	sameLog(t, p.crec, "6.304us cli: dial <nil>")
	// The record leaves at 1ms (dial returns on a 1ms step): 190 wire bytes (152 ns) on
	// each link, store-and-forward at the switch: 1ms + 2 x (152 ns + 1us) + 1us.
	sameLog(t, p.srec, "9.456us srv: accept 10.0.0.1:1023", "1.003304ms srv: data 100 hello")
	i := c.Info()
	// SRTT: the handshake's 6.304us, then 7/8 of it and 1/8 of the record's 6.456us.
	same(t, "SRTT", i.RTT, 6323*sim.Nanosecond)
	same(t, "RTO", i.RTO, 200*sim.Millisecond+6323*sim.Nanosecond) // SRTT + max(4 RTTVAR, 200ms)
	same(t, "cwnd", i.Cwnd, 10*1448)
}

// One flow on an idle link runs at the link's rate less framing: 10 Gb/s x 1448 / 1538
// (MSS over the wire bytes of a full frame: 52 bytes of IP/TCP headers with timestamps,
// 38 of Ethernet framing) = 9.41482 Gb/s.
func TestOneFlowLinkRate(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	p.srec.onData = func(*Conn, Record) {}
	start := p.k.Now()
	stream(p.k, c, p.crec, 1<<20, start+sim.Second)
	p.k.RunUntil(start + 100*sim.Millisecond)
	b0 := p.sconn.Info().BytesRecv
	p.k.RunUntil(start + 200*sim.Millisecond)
	b1 := p.sconn.Info().BytesRecv
	got := float64(b1-b0) * 8 / 0.1
	t.Logf("%.0f b/s (%.5f of the framing-limited rate)", got, got/(10e9*1448/1538))
	same(t, "bytes in 100ms of steady state", b1-b0, 117678960) // 0.99995 of the rate
	i := c.Info()
	same(t, "retransmits", i.Retransmits, 0)
	same(t, "drops", p.n.Counters().DropOverflow, 0)
}

// twoFlows runs two bulk flows from hosts a and b into one server for 5 s and returns the
// bytes each delivered between 0.5 and 4.5 s.
func twoFlows(t *testing.T, seed uint64, cfg Config) (a, b uint64, n *Network) {
	k := sim.New(seed)
	n = New(k, cfg)
	hs, err := n.SingleSwitch([]string{"a", "b", "srv"}, LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond}, netip.MustParseAddr("10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	srv := hs[2]
	var sc [2]*Conn
	srv.Listen(988, Options{}, func(c *Conn) {
		i := 0
		if c.RemoteAddr().Addr() == hs[1].Addrs()[0] {
			i = 1
		}
		sc[i] = c
		c.SetHandler(&rec{k: k, onData: func(*Conn, Record) {}})
	})
	stop := 5 * sim.Second
	for i := range 2 {
		h := hs[i]
		h.Dial(netip.AddrPortFrom(h.Addrs()[0], 0), netip.AddrPortFrom(srv.Addrs()[0], 988), Options{}, func(c *Conn, err error) {
			r := &rec{k: k}
			c.SetHandler(r)
			stream(k, c, r, 1<<20, stop)
		})
	}
	k.RunUntil(500 * sim.Millisecond)
	a0, b0 := sc[0].Info().BytesRecv, sc[1].Info().BytesRecv
	k.RunUntil(4500 * sim.Millisecond)
	a, b = sc[0].Info().BytesRecv-a0, sc[1].Info().BytesRecv-b0
	t.Logf("a %d b %d: %.4f Gb/s in all, a/b %.4f; %+v", a, b, float64(a+b)*8/4e9, float64(a)/float64(b), n.Counters())
	return a, b, n
}

// Two flows from two hosts into one server's link share it: the switch output's 1 MiB
// buffer overflows, both flows lose segments, recover (SACK, RACK) and back off by CUBIC's
// beta.
func TestTwoFlowsShare(t *testing.T) {
	a, b, n := twoFlows(t, 1, Config{})
	// 4.7 GB in 4 s: 9.4148 Gb/s, the framing-limited rate; a/b 0.78 (Jain's index
	// 0.985). Other seeds give 0.84, 1.15, 0.85, 1.22: drop-tail AIMD's share varies
	// around one half from one loss cycle to the next.
	same(t, "a's bytes in 4s", a, 2067396480)
	same(t, "b's bytes in 4s", b, 2640022560)
	same(t, "segments dropped", n.Counters().DropOverflow, 2841)
}

// Without host jitter the two flows phase-lock at the drop-tail queue: b's chunks are the
// ones that find it full, and a gets 2.3 times b's share.
func TestTwoFlowsPhaseLockWithoutJitter(t *testing.T) {
	a, b, _ := twoFlows(t, 1, Config{HostJitter: -1})
	same(t, "a's bytes in 4s", a, 3276114480)
	same(t, "b's bytes in 4s", b, 1431304560)
}
