package tcp

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// rtoFirings records the times of the retransmission timer's firings.
func rtoFirings(k *sim.Kernel) *[]sim.Time {
	var ts []sim.Time
	k.SetObserver(func(ev sim.Fired) {
		if ev.Kind == evRTO {
			ts = append(ts, ev.Time)
		}
	})
	return &ts
}

func sameTimes(t *testing.T, what string, got []sim.Time, want ...sim.Time) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// A SYN to a port nobody listens on is answered with RST: ECONNREFUSED after one round
// trip.
func TestConnRefused(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	p.cli.Dial(netip.AddrPortFrom(p.ca, 0), netip.AddrPortFrom(p.sa, 999), Options{}, func(c *Conn, err error) {
		p.crec.logf("dial %v", err)
	})
	p.k.Run()
	sameLog(t, p.crec, "6.304us cli: dial connection refused (ECONNREFUSED)")
	same(t, "RSTs", p.n.Counters().RSTs, 1)
}

// SYNs to a dead host: tcp_syn_retries 6 retransmissions at 1, 3, 7, 15, 31 and 63 s
// (initial RTO 1 s, doubling), ETIMEDOUT at 127 s.
func TestSynRetriesDeadHost(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	p.srv.Crash()
	ts := rtoFirings(p.k)
	p.cli.Dial(netip.AddrPortFrom(p.ca, 0), netip.AddrPortFrom(p.sa, 988), Options{}, func(c *Conn, err error) {
		p.crec.logf("dial %v", err)
	})
	p.k.Run()
	sameLog(t, p.crec, "127s cli: dial connection timed out (ETIMEDOUT)")
	sameTimes(t, "RTO firings", *ts, 1*sim.Second, 3*sim.Second, 7*sim.Second, 15*sim.Second, 31*sim.Second, 63*sim.Second, 127*sim.Second)
	same(t, "SYNs", p.n.Counters().SYNs, 7)
}

// A peer that crashed and restarted answers a segment of the old connection with RST.
func TestRebootedPeerRST(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	c.Write(Record{Bytes: 1000, Payload: "a"})
	p.k.RunUntil(p.k.Now() + sim.Millisecond)
	p.srv.Crash()
	p.k.RunUntil(p.k.Now() + sim.Second)
	p.srv.Restart()
	p.k.RunUntil(p.k.Now() + sim.Second)
	c.Write(Record{Bytes: 1000, Payload: "b"}) // at 2.002s
	p.k.Run()
	// 1090 wire bytes (872 ns) per link: 2 x 1.872us + 1us there, 3.152us back.
	sameLog(t, p.crec, "6.304us cli: dial <nil>", "2.002007896s cli: closed connection reset by peer (ECONNRESET)")
	sameLog(t, p.srec, "9.456us srv: accept 10.0.0.1:1023", "1.004744ms srv: data 1000 a")
	same(t, "RSTs", p.n.Counters().RSTs, 1)
	same(t, "error", c.Err(), ErrConnReset)
}

// Keepalive as socklnd sets it (idle 30 s, interval 5 s, count 5, its defaults): probes
// answered while the peer lives; once it is dead, the connection fails idle + 5 x 5 s after
// the last segment received, with RST.
func TestKeepaliveDeadPeer(t *testing.T) {
	opt := Options{KeepIdle: 30 * sim.Second, KeepIntvl: 5 * sim.Second, KeepCnt: 5}
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, opt)
	c := p.dial(t, opt)
	c.Write(Record{Bytes: 1000, Payload: "a"})
	p.k.RunUntil(p.k.Now() + 100*sim.Second) // probes at 30, 60 and 90 s are answered
	p.srv.Crash()                            // at 100.001 s
	var lastRcv sim.Time
	p.k.Run()
	lastRcv = c.lastRcv
	// The last answer reached the client at 90.001s + one round trip; the probes at 120,
	// 125, 130, 135 and 140 s go unanswered; at 145 s the fifth has expired.
	same(t, "last segment received", lastRcv, 90*sim.Second+1026808*sim.Nanosecond)
	sameLog(t, p.crec, "6.304us cli: dial <nil>", "145.001026808s cli: closed connection timed out (ETIMEDOUT)")
	same(t, "detected after", p.crec.closedAt-lastRcv, 30*sim.Second+5*5*sim.Second)
	ctr := p.n.Counters()
	same(t, "keepalive probes", ctr.KeepaliveProbes, 3+5+3) // the server probes too
	same(t, "RSTs", ctr.RSTs, 1)
}

// A bulk flow whose path starts losing everything: the RTO fires at SRTT + 200 ms, then
// backs off, doubling each time (401.8, 803.5, 1607.1, 3214.2 ms); when the loss ends the
// flow recovers.
func TestLossyLinkRTOBackoff(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	p.srec.onData = func(*Conn, Record) {}
	start := p.k.Now()
	stream(p.k, c, p.crec, 1<<20, start+10*sim.Second)
	p.k.RunUntil(start + 10*sim.Millisecond)
	ts := rtoFirings(p.k)
	l := p.srv.Links()[0]
	l.SetLoss(1)
	p.k.RunUntil(start + 5*sim.Second)
	lost := p.n.Counters().DropLoss
	l.SetLoss(0)
	p.k.RunUntil(start + 10*sim.Second)
	const ms = sim.Millisecond
	sameTimes(t, "RTO firings", *ts, 215616499*sim.Nanosecond, 617388261*sim.Nanosecond, 1420931785*sim.Nanosecond,
		3028018833*sim.Nanosecond, 6242192929*sim.Nanosecond)
	for i := 2; i < len(*ts); i++ {
		if d0, d1 := (*ts)[i-1]-(*ts)[i-2], (*ts)[i]-(*ts)[i-1]; d1 < 2*d0-ms || d1 > 2*d0+ms {
			t.Errorf("RTO %d: interval %s after %s: not a doubling", i, d1, d0)
		}
	}
	same(t, "segments lost", lost, 681)
	i := c.Info()
	same(t, "RTOs", i.RTOs, 5)
	same(t, "delivered by 10s", p.sconn.Info().BytesRecv, 4435268888)
}

// tcp_retries2 (15): with the peer unreachable, retransmissions back off from RTO
// (200 ms + SRTT) to 120 s; the connection gives up at the first expiry 924.6 s (the time
// 15 retries take from the 200 ms minimum) after the data was first sent.
func TestRetries2GiveUp(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	p.k.RunUntil(p.k.Now() + sim.Second)
	p.srv.Links()[0].Down()
	sent := p.k.Now()
	c.Write(Record{Bytes: 1000, Payload: "a"})
	ts := rtoFirings(p.k)
	p.k.Run()
	same(t, "budget", p.n.budget(200*sim.Millisecond, 15), 924600*sim.Millisecond)
	same(t, "SYN budget", p.n.budget(sim.Second, 6), 127*sim.Second)
	same(t, "RTO firings", len(*ts), 16)
	last := (*ts)[len(*ts)-1]
	same(t, "given up after", last-sent, 924606448992*sim.Nanosecond)
	sameLog(t, p.crec, "6.304us cli: dial <nil>", "925.607448992s cli: closed connection timed out (ETIMEDOUT)")
	same(t, "retransmissions", p.n.Counters().Retransmits, 15)
}

// Close sends FIN after the data: the peer reads the data, then EOF; the closer is gone
// once its FIN is acknowledged (socklnd's linger2 -1).
func TestCloseEOF(t *testing.T) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	c.Write(Record{Bytes: 100000, Payload: "a"})
	c.Close()
	p.k.Run()
	sameLog(t, p.srec, "9.456us srv: accept 10.0.0.1:1023", "1.104034ms srv: data 100000 a", "1.104034ms srv: closed EOF")
	same(t, "client conns", len(p.cli.conns), 0)
	same(t, "server conns", len(p.srv.conns), 1) // until the server closes too
	p.sconn.Close()
	p.k.Run()
	same(t, "server conns after its close", len(p.srv.conns), 0)
	same(t, "RSTs", p.n.Counters().RSTs, 1) // the client, gone, answers the server's FIN
}

// A receiver that stops reading fills its buffer (1 MiB): the window closes, the sender's
// buffer (1 MiB) fills and Write refuses; a window probe keeps asking. When reading
// resumes, the window update restarts the flow and Writable follows.
func TestReadPauseBlocksSender(t *testing.T) {
	p := newPair(t, Config{SendBuffer: 1 << 20, RecvBuffer: 1 << 20}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	p.sconn.SetReading(false)
	p.srec.onData = func(*Conn, Record) {}
	written := 0
	fill := func(c *Conn) {
		for written < 4<<20 && c.Write(Record{Bytes: 64 << 10}) {
			written += 64 << 10
		}
		p.crec.logf("wrote %d", written)
	}
	p.crec.onWr = fill
	fill(c)
	p.k.RunUntil(p.k.Now() + 500*sim.Millisecond)
	same(t, "received while paused", p.sconn.Info().BytesRecv, 1<<20)
	same(t, "delivered while paused", p.srec.bytes, 0)
	same(t, "peer window", c.Info().PeerWindow, 0)
	same(t, "window probes", p.n.Counters().WindowProbes, 1)
	p.sconn.SetReading(true)
	p.k.RunUntil(p.k.Now() + 500*sim.Millisecond)
	sameLog(t, p.crec, "6.304us cli: dial <nil>", "1ms cli: wrote 1048576", "1.380192ms cli: wrote 1507328",
		"1.767768ms cli: wrote 1966080", "501.232006ms cli: wrote 2359296", "501.564214ms cli: wrote 2752512",
		"501.901294ms cli: wrote 3145728", "502.235523ms cli: wrote 3538944", "502.569896ms cli: wrote 3932160",
		"502.904341ms cli: wrote 4194304")
	same(t, "delivered", p.srec.bytes, 4<<20)
	same(t, "retransmits", p.n.Counters().Retransmits, 0)
}
