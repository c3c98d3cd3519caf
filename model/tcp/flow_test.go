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

// share is what two flows into one link did between 0.5 and 4.5 s.
type share struct {
	a, b     uint64 // stream bytes each delivered
	aFR, bFR uint64 // fast recoveries each entered
	dropped  uint64 // segments the switch output dropped for want of buffer
}

// jain is Jain's fairness index of the two flows' bytes: 1 when equal, 0.5 when one has
// everything.
func (s share) jain() float64 {
	a, b := float64(s.a), float64(s.b)
	return (a + b) * (a + b) / (2 * (a*a + b*b))
}

// twoFlows runs two bulk flows from hosts a and b into one server for 5 s and returns what
// they did between 0.5 and 4.5 s. All links are 10 Gb/s with 1us of latency, b's plus
// bExtra.
func twoFlows(t *testing.T, seed uint64, cfg Config, bExtra sim.Time) share {
	k := sim.New(seed)
	n := New(k, cfg)
	hs, err := n.SingleSwitch([]string{"a", "b", "srv"}, LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond}, netip.MustParseAddr("10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	srv := hs[2]
	n.Links()[1].SetExtraDelay(bExtra)
	var sc, cc [2]*Conn
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
			cc[i] = c
			stream(k, c, r, 1<<20, stop)
		})
	}
	k.RunUntil(500 * sim.Millisecond)
	a0, b0 := sc[0].Info().BytesRecv, sc[1].Info().BytesRecv
	af0, bf0 := cc[0].Info().FastRetrans, cc[1].Info().FastRetrans
	d0 := n.Counters().DropOverflow
	k.RunUntil(4500 * sim.Millisecond)
	s := share{
		a: sc[0].Info().BytesRecv - a0, b: sc[1].Info().BytesRecv - b0,
		aFR: cc[0].Info().FastRetrans - af0, bFR: cc[1].Info().FastRetrans - bf0,
		dropped: n.Counters().DropOverflow - d0,
	}
	fa, fb := float64(s.a), float64(s.b)
	t.Logf("seed %d: a %d b %d: %.4f Gb/s in all, a/b %.4f, Jain %.4f; fast recoveries %d, %d; %d dropped",
		seed, s.a, s.b, (fa+fb)*8/4e9, fa/fb, s.jain(), s.aFR, s.bFR, s.dropped)
	return s
}

// Two flows from two hosts into one server's link share it in every run. The switch
// output's 1 MiB buffer overflows when chunks of both flows arrive together; their frames
// interleave, so both meet the full buffer and both lose segments (overflow shares the
// drops in proportion to the frames arriving), both flows enter fast recovery in every
// episode (20 or 21 times in 4 s, the same count for both) and CUBIC's multiplicative
// decrease (717/1024) of two synchronised AIMD flows pulls their windows together (Chiu
// and Jain). 4.707 GB in 4 s: 9.4148 Gb/s, the framing-limited rate. a/b with seeds 1-10:
// 0.9879, 0.9916, 1.0222, 1.0061, 0.9908, 0.9849, 0.9882, 1.0023, 1.0277, 1.0039 (Jain's
// index 0.9998 at worst). Before, the output took a chunk's whole size from the buffer
// when its head arrived, and a chunk that found the buffer full lost everything beyond it
// while the chunk arriving with it lost nothing: one flow backed off per episode, which
// one was a coin toss, and the split wandered from run to run (0.78, 0.84, 1.15, 0.85,
// 1.22 with seeds 1-5: fair on average, not per run).
func TestTwoFlowsShare(t *testing.T) {
	want := []share{
		{2339439480, 2367979560, 20, 20, 988},
		{2343805200, 2363548680, 20, 20, 1079},
		{2379578040, 2327841000, 20, 20, 901},
		{2360877120, 2346541920, 21, 21, 1111},
		{2342827800, 2364591240, 20, 20, 948},
		{2335790520, 2371563360, 20, 20, 947},
		{2339700120, 2367718920, 20, 20, 942},
		{2356381080, 2351037960, 21, 21, 1161},
		{2385410584, 2321039744, 21, 21, 981},
		{2358335880, 2349083160, 21, 21, 1160},
	}
	for i, w := range want {
		seed := uint64(i + 1)
		got := twoFlows(t, seed, Config{}, 0)
		if got != w {
			t.Errorf("seed %d: got %+v, want %+v", seed, got, w)
		}
		if got.jain() < 0.99 {
			t.Errorf("seed %d: Jain's index %.4f", seed, got.jain())
		}
	}
}

// Without host jitter the two flows share the link as well (a/b 1.0303): the drops of
// chunks arriving together are shared, so there is no phase lock in which one flow's chunks
// are always the ones to find the buffer full (2.29:1 over 4 s before).
func TestTwoFlowsWithoutJitter(t *testing.T) {
	got := twoFlows(t, 1, Config{HostJitter: -1}, 0)
	same(t, "split", got, share{2388765600, 2318588280, 21, 21, 1029})
}

// Flows of different round trips: b's link has 100us of latency, a's 1us. Both flows are
// in CUBIC's TCP-friendly (Reno) region at these round trips, where the window grows by a
// segment per 15/8 round trips whatever the RTT: with losses synchronised, windows go in
// inverse proportion to RTT and rates, window over RTT, to its square. Over the 4 s a's
// SRTT averages 730us and b's 908us (1.24:1: the shared 1 MiB queue dominates both, b's
// links add 198us), their windows 398 and 295 segments (1.35:1; b also backs off once
// more, 21 times to 20), and a/b is 1.7218, within 3% of 1.35 x 1.24 (1.55, RTT squared,
// for windows exactly in the RTT ratio). CUBIC's own curve grows with wall time, not round
// trips, and would give both the same window and a/b 1.24, but it stays below the Reno
// estimate here (see ARCHITECTURE.md), as in Linux.
func TestTwoFlowsDifferentRTT(t *testing.T) {
	got := twoFlows(t, 1, Config{}, 99*sim.Microsecond)
	same(t, "split", got, share{2977877160, 1729541880, 20, 21, 294})
}
