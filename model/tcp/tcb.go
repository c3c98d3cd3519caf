package tcp

import (
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
)

// tcb is a connection's transmission control block.
type tcb struct {
	peerID       int32 // the peer connection's id, -1 until the handshake tells it
	srcIf, dstIf int32
	mss          int64
	appClosed    bool // Close or Abort called: no more upcalls
	done         func(*Conn, error)
	accept       func(*Conn)

	// Sending.
	sndUna, sndNxt, sndMax int64 // oldest unacknowledged, next to send, highest sent
	writeEnd               int64 // bytes written so far
	recs                   []sendRec
	recHead                int
	sndBuf                 int64
	wantWritable           bool
	cwnd, ssthresh         int64
	caAcc                  int64 // congestion avoidance: acknowledged bytes x 8 not yet turned into window
	cwndLimited            bool
	rwnd                   int64
	flights                []flight // chunks sent and not cumulatively acknowledged, by sequence
	nSacked, nLost         int      // flights marked SACKed, and lost and not yet sent again
	pipe                   int64    // bytes in the network: flights neither SACKed nor lost
	rackAt                 sim.Time // latest send time among flights known delivered (RACK)
	srtt, rttvar           sim.Time
	rtoBase                sim.Time // RTO before backoff
	backoff                uint
	retransStamp           sim.Time // original send time of the oldest data being retransmitted; -1 if none
	recovery               bool
	recoverPt              int64
	synTries               int
	synAt                  sim.Time // when the connection was created (its first SYN or SYN-ACK)
	finPending, finSent    bool
	finAcked               bool
	finAt                  sim.Time
	rtoT, kaT, tlpT        sim.Timer

	// Receiving.
	rcvNxt     int64
	lastRecEnd int64 // stream offset just past the last record taken in
	ooo        []oooSeg
	oooBytes   int64
	held       []Record // records arrived while reading is paused
	consumed   int64    // stream offset the application has read to (rcvNxt unless paused)
	paused     bool
	rcvBuf     int64
	peerFin    bool
	peerFinAt  int64
	eofSent    bool
	lastRcv    sim.Time
	probesOut  int
	tlpOut     bool // a loss probe is out and no ACK has advanced since

	bytesAcked, bytesRecv      uint64
	readAt, ackedAt            sim.Time // when the application last read bytes; when bytes were last acknowledged
	ackedFullAt                sim.Time // when bytes were last acknowledged with more than sndBuf queued
	nRetrans, nRTOs, nFastRetx uint64
}

type sendRec struct {
	end int64
	rec Record
}

type flight struct {
	seq, end int64
	at       sim.Time // last (re)transmission
	retx     bool     // sent more than once: no RTT sample (Karn)
	sacked   bool
	lost     bool
}

type oooSeg struct {
	seq, end int64
	recs     []Record
	recEnds  []int64
}

// budget is how long retransmissions may go on before a connection gives up, given the
// RTO they start from and the number of retries: tcp_model_timeout's rule (the time
// boundary retries would take doubling from base, each capped at MaxRTO).
func (n *Network) budget(base sim.Time, retries int) sim.Time {
	thresh := 0
	for base<<(thresh+1) <= n.cfg.MaxRTO {
		thresh++
	}
	if retries <= thresh {
		return sim.Time((2<<retries)-1) * base
	}
	return sim.Time((2<<thresh)-1)*base + sim.Time(retries-thresh)*n.cfg.MaxRTO
}

// newConn creates a connection on host h.
func (n *Network) newConn(h *Host, srcIf, dstIf int32, local, peer netip.AddrPort, opt Options) *Conn {
	if opt.SendBuffer <= 0 {
		opt.SendBuffer = n.cfg.SendBuffer
	}
	if opt.RecvBuffer <= 0 {
		opt.RecvBuffer = n.cfg.RecvBuffer
	}
	c := &Conn{n: n, id: int32(len(n.conns)), host: h, boots: h.boots, opt: opt, local: local, peer: peer}
	c.peerID = -1
	c.srcIf, c.dstIf = srcIf, dstIf
	mtu := min(n.ifaces[srcIf].link.spec.MTU, n.ifaces[dstIf].link.spec.MTU)
	c.mss = int64(mtu - ipTCPHeader)
	c.sndBuf = int64(opt.SendBuffer)
	c.rcvBuf = int64(opt.RecvBuffer)
	c.cwnd = int64(n.cfg.InitCwnd) * c.mss
	c.ssthresh = 1 << 62
	c.rwnd = c.mss // until the peer advertises its window
	c.rtoBase = n.cfg.InitialRTO
	c.retransStamp = -1
	c.rtoT = sim.Timer{H: n.hid, Kind: evRTO, Arg: uint64(c.id)}
	c.kaT = sim.Timer{H: n.hid, Kind: evKeepalive, Arg: uint64(c.id)}
	c.tlpT = sim.Timer{H: n.hid, Kind: evTLP, Arg: uint64(c.id)}
	c.lastRcv = n.k.Now()
	c.synAt = c.lastRcv
	n.conns = append(n.conns, c)
	h.conns = append(h.conns, c.id)
	return c
}

// live reports whether c is open on a running host.
func (c *Conn) live() bool {
	return c.state != StateClosed && !c.host.crashed && c.host.boots == c.boots
}

// rto is the current retransmission timeout with backoff.
func (n *Network) rto(c *Conn) sim.Time {
	r := c.rtoBase
	for i := uint(0); i < c.backoff && r < n.cfg.MaxRTO; i++ {
		r *= 2
	}
	return min(r, n.cfg.MaxRTO)
}

// ackVal is the acknowledgement c sends: the next byte expected, one more once the peer's
// FIN is in sequence.
func (c *Conn) ackVal() int64 {
	if c.peerFin && c.rcvNxt >= c.peerFinAt {
		return c.peerFinAt + 1
	}
	return c.rcvNxt
}

// rcvWnd is the receive window c advertises: its buffer less what it holds (in order and
// not yet read, or out of order). The application reads everything in order at once,
// parts of records included (socklnd reads headers and payload as they come), unless
// reading is paused; so the window's right edge never moves left.
func (c *Conn) rcvWnd() int64 {
	if !c.paused {
		c.consumed = c.rcvNxt
	}
	return max(c.rcvBuf-(c.rcvNxt-c.consumed)-c.oooBytes, 0)
}

// dial implements Host.Dial: tcp_v4_connect, then the SYN and its retransmissions.
func (n *Network) dial(h *Host, src, dst netip.AddrPort, opt Options, done func(*Conn, error)) {
	fail := func(err error) { n.k.AfterFunc(0, func() { done(nil, err) }) }
	if h.crashed {
		return
	}
	srcIf := int32(-1)
	for _, ii := range h.ifaces {
		if n.ifaces[ii].addr == src.Addr() {
			srcIf = ii
		}
	}
	if srcIf < 0 {
		fail(ErrAddrNotAvail)
		return
	}
	port := src.Port()
	if port == 0 {
		if port = h.ephemeral(src.Addr()); port == 0 { // every ephemeral port taken
			fail(ErrAddrNotAvail)
			return
		}
	} else if err := h.CheckBind(src, dst, opt); err != nil {
		fail(err)
		return
	}
	dstIf, ok := n.addrs[dst.Addr()]
	mtuIf := dstIf
	if !ok {
		mtuIf = srcIf
	}
	c := n.newConn(h, srcIf, mtuIf, netip.AddrPortFrom(src.Addr(), port), dst, opt)
	if !ok {
		c.dstIf = -1 // no such address: the SYNs go nowhere
	}
	c.state = StateSynSent
	c.done = done
	n.sendSyn(c)
}

// ephemeral picks the next free local port from the ephemeral range, or 0 when every one is
// taken (the connect's EADDRNOTAVAIL).
func (h *Host) ephemeral(a netip.Addr) uint16 {
	for range ephemeralHigh - ephemeralLow + 1 {
		p := h.nextPort
		h.nextPort++
		if h.nextPort > ephemeralHigh {
			h.nextPort = ephemeralLow
		}
		if !h.portInUse(a, p) {
			return p
		}
	}
	return 0
}

// portInUse reports whether a live connection or a listener holds local port p on a.
func (h *Host) portInUse(a netip.Addr, p uint16) bool {
	if h.listening(a, p) {
		return true
	}
	for _, id := range h.conns {
		if c := h.n.conns[id]; c.local == netip.AddrPortFrom(a, p) {
			return true
		}
	}
	return false
}

// listening reports whether a listener holds local port p on a (bound to a or to every
// address).
func (h *Host) listening(a netip.Addr, p uint16) bool {
	for _, l := range h.listeners {
		if l.port == p && (!l.addr.IsValid() || l.addr == a) {
			return true
		}
	}
	return false
}

// ctl builds a control packet from c to its peer.
func (n *Network) ctl(c *Conn, kind pktKind) int32 {
	pi := n.newPkt()
	p := &n.pkts[pi]
	p.kind = kind
	p.from, p.to = c.id, c.peerID
	p.srcIf, p.dstIf = c.srcIf, c.dstIf
	p.srcPort, p.dstPort = c.local.Port(), c.peer.Port()
	p.ack = c.ackVal()
	p.wnd = c.rcvWnd()
	return pi
}

// emit sends control packet pi along its path (nowhere if there is none).
func (n *Network) emit(pi int32) {
	p := &n.pkts[pi]
	if p.dstIf < 0 {
		n.freePacket(pi)
		return
	}
	p.path = n.path(p.srcIf, p.dstIf, p.srcPort, p.dstPort)
	if p.path == nil {
		n.freePacket(pi)
		return
	}
	switch p.kind {
	case pkRst:
		n.ctr.RSTs++
	case pkSyn:
		n.ctr.SYNs++
	}
	n.sendCtl(pi)
}

func (n *Network) sendSyn(c *Conn) {
	n.emit(n.ctl(c, pkSyn))
	n.k.ArmAfter(&c.rtoT, n.rto(c))
}

// remove detaches c from its host and stops its timers.
func (n *Network) remove(c *Conn) {
	c.state = StateClosed
	n.k.Disarm(&c.rtoT)
	n.k.Disarm(&c.kaT)
	n.k.Disarm(&c.tlpT)
	h := c.host
	for i, id := range h.conns {
		if id == c.id {
			h.conns = append(h.conns[:i], h.conns[i+1:]...)
			break
		}
	}
}

// fail ends c with err and tells the application (unless it closed c itself).
func (n *Network) fail(c *Conn, err error) {
	if c.state == StateClosed {
		return
	}
	st := c.state
	n.remove(c)
	c.err = err
	if c.appClosed {
		return
	}
	switch st {
	case StateSynSent:
		if err == ErrConnReset {
			err = ErrConnRefused
		}
		c.err = err
		if c.done != nil {
			c.done(nil, err)
		}
	case StateEstablished:
		if c.h != nil {
			c.h.Closed(c, err)
		}
	}
}

// crash implements Host.Crash.
func (n *Network) crash(h *Host) {
	if h.crashed {
		return
	}
	h.crashed = true
	for len(h.conns) > 0 {
		c := n.conns[h.conns[0]]
		c.appClosed = true
		n.remove(c)
	}
	h.listeners = nil
}

// reset answers packet p, which found no connection, with RST.
func (n *Network) reset(p *packet) {
	if p.kind == pkRst {
		return
	}
	pi := n.newPkt()
	q := &n.pkts[pi]
	q.kind = pkRst
	q.from, q.to = -1, p.from
	q.srcIf, q.dstIf = p.dstIf, p.srcIf
	q.srcPort, q.dstPort = p.dstPort, p.srcPort
	n.emit(pi)
}

// deliver hands packet p, arrived at its destination interface, to its connection: the
// demultiplexing of tcp_v4_rcv. A crashed host drops it; a segment for no live connection
// is answered with RST; a SYN goes to the listener of its port.
func (n *Network) deliver(pi int32) {
	p := &n.pkts[pi]
	h := n.ifaces[p.dstIf].host
	if h.crashed {
		n.ctr.DropDown++
		return
	}
	if p.kind == pkSyn {
		n.onSyn(h, p)
		return
	}
	if p.to < 0 || int(p.to) >= len(n.conns) {
		n.reset(p)
		return
	}
	c := n.conns[p.to]
	if c.host != h || !c.live() || (p.kind != pkRst && c.peerID >= 0 && c.peerID != p.from) {
		n.reset(p)
		return
	}
	if p.kind == pkRst {
		n.fail(c, ErrConnReset)
		return
	}
	c.lastRcv = n.k.Now()
	c.probesOut = 0
	if c.peerID < 0 {
		c.peerID = p.from
	}
	switch p.kind {
	case pkSynAck:
		n.onSynAck(c, p)
	case pkData:
		n.onData(c, p)
	case pkAck:
		n.onAck(c, p)
	case pkFin:
		n.onFin(c, p)
	case pkProbe:
		n.emit(n.ctl(c, pkAck))
	}
}

// onSyn handles a SYN: to a listener it creates a connection in SYN_RECV and answers
// SYN-ACK (again, for a retransmitted SYN); to a closed port it answers RST.
func (n *Network) onSyn(h *Host, p *packet) {
	for _, id := range h.conns {
		if c := n.conns[id]; c.peerID == p.from && c.srcIf == p.dstIf {
			if c.state == StateSynRcvd {
				n.emit(n.ctl(c, pkSynAck))
			}
			return
		}
	}
	dst := n.ifaces[p.dstIf].addr
	li := -1
	for i, l := range h.listeners {
		if l.port == p.dstPort && (l.addr == dst || !l.addr.IsValid() && li < 0) {
			li = i
		}
	}
	if li >= 0 {
		l := h.listeners[li]
		local := netip.AddrPortFrom(dst, p.dstPort)
		peer := netip.AddrPortFrom(n.ifaces[p.srcIf].addr, p.srcPort)
		c := n.newConn(h, p.dstIf, p.srcIf, local, peer, l.opt)
		c.peerID = p.from
		c.state = StateSynRcvd
		c.accept = l.accept
		c.rwnd = p.wnd
		n.emit(n.ctl(c, pkSynAck))
		n.k.ArmAfter(&c.rtoT, n.rto(c))
		return
	}
	n.reset(p)
}

// onSynAck completes an active open: ESTABLISHED, the third ACK, then the dial callback.
func (n *Network) onSynAck(c *Conn, p *packet) {
	if c.state != StateSynSent {
		n.emit(n.ctl(c, pkAck)) // a retransmitted SYN-ACK: ACK again
		return
	}
	c.rwnd = p.wnd
	n.establish(c)
	n.emit(n.ctl(c, pkAck))
	if c.done != nil {
		c.done(c, nil)
	}
}

// establish moves c to ESTABLISHED. A handshake without retransmission gives the first RTT
// sample (the SYN or SYN-ACK's round trip, as tcp_ack_update_rtt takes it from the
// echoed timestamp); after a retransmission the RTO stays at InitialRTO until data gives
// one (Karn).
func (n *Network) establish(c *Conn) {
	if c.synTries == 0 {
		n.rttSample(c, n.k.Now()-c.synAt)
	}
	c.state = StateEstablished
	c.backoff = 0
	c.synTries = 0
	n.k.Disarm(&c.rtoT)
	if c.opt.KeepIdle > 0 && c.opt.KeepIntvl > 0 && c.opt.KeepCnt > 0 {
		n.k.ArmAfter(&c.kaT, c.opt.KeepIdle)
	}
}

// passiveEstablished completes a passive open on the handshake's ACK (or the first data).
func (n *Network) passiveEstablished(c *Conn) bool {
	if c.state != StateSynRcvd {
		return true
	}
	n.establish(c)
	if c.accept != nil {
		c.accept(c)
	}
	return c.live()
}
