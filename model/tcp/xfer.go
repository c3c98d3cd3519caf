package tcp

import (
	"io"
	"slices"

	"github.com/lnetsim/lnetsim/sim"
)

// write implements Conn.Write.
func (n *Network) write(c *Conn, rec Record) bool {
	if rec.Bytes < 1 {
		panic("tcp: Conn.Write of a record of fewer than 1 byte")
	}
	if c.state != StateEstablished || c.appClosed || !c.live() {
		return false
	}
	if c.writeEnd-c.sndUna >= c.sndBuf {
		c.wantWritable = true
		return false
	}
	c.writeEnd += int64(rec.Bytes)
	c.recs = append(c.recs, sendRec{end: c.writeEnd, rec: rec})
	n.trySend(c)
	return true
}

// trySend transmits while the congestion window has room over the pipe (bytes in the
// network: RFC 6675's estimate, as Linux's tcp_packets_in_flight): chunks marked lost
// first, then new data within the receive window, in chunks of up to ChunkSegments segments
// (tcp_write_xmit with TSO). With the window closed and nothing in flight it arms the
// persist timer.
func (n *Network) trySend(c *Conn) {
	if c.state != StateEstablished {
		return
	}
	maxChunk := int64(n.cfg.ChunkSegments) * c.mss
	c.cwndLimited = false
	nic := &n.lanes[2*n.ifaces[c.srcIf].link.idx]
	for {
		room := c.cwnd - c.pipe
		if room <= 0 {
			c.cwndLimited = true
			break
		}
		if c.pipe > 0 && nic.backlog(n.k.Now()) >= n.cfg.TSQBytes {
			break // TCP small queues: an ACK will bring the connection back
		}
		if c.nLost > 0 {
			n.resendLost(c, min(room, maxChunk))
			continue
		}
		left := c.writeEnd - c.sndNxt
		if left <= 0 {
			break
		}
		wnd := c.sndUna + c.rwnd - c.sndNxt
		sz := min(maxChunk, left, room, wnd)
		if sz <= 0 || (sz < left && c.pipe > 0 && (sz < c.mss || sz < maxChunk && sz < c.cwnd/3)) {
			if room <= wnd {
				c.cwndLimited = true
			}
			// Window full, silly window avoidance, or TSO deferral (tcp_tso_should_defer,
			// tcp_tso_win_divisor 3): less than a full chunk and less than a third of the
			// window can go, and an ACK is due to open more.
			break
		}
		n.sendChunk(c, c.sndNxt, c.sndNxt+sz)
		c.flights = append(c.flights, flight{seq: c.sndNxt, end: c.sndNxt + sz, at: n.k.Now()})
		c.pipe += sz
		c.sndNxt += sz
		c.sndMax = max(c.sndMax, c.sndNxt)
	}
	if len(c.flights) > 0 {
		if !n.k.Armed(&c.rtoT) {
			n.k.ArmAfter(&c.rtoT, n.rto(c))
		}
		n.armTLP(c)
	} else if c.sndNxt < c.writeEnd && c.rwnd < c.mss && !n.k.Armed(&c.rtoT) {
		n.k.ArmAfter(&c.rtoT, n.rto(c)) // persist: probe the closed window
	}
	if c.finPending && !c.finSent && c.sndNxt == c.writeEnd {
		c.finSent = true
		n.sendFin(c)
	}
}

// resendLost retransmits the first flight marked lost, or its first budget bytes (at least
// one segment) when the window has less room than the flight.
func (n *Network) resendLost(c *Conn, budget int64) {
	i := 0
	for !c.flights[i].lost {
		i++
	}
	f := &c.flights[i]
	if sz := max(budget/c.mss*c.mss, c.mss); sz < f.end-f.seq {
		n.split(c, i, f.seq+sz)
		f = &c.flights[i]
	}
	if c.retransStamp < 0 {
		c.retransStamp = f.at
	}
	f.lost = false
	f.retx = true
	f.at = n.k.Now()
	c.nLost--
	c.pipe += f.end - f.seq
	c.nRetrans++
	n.ctr.Retransmits++
	n.sendChunk(c, f.seq, f.end)
}

// sendChunk puts stream bytes [seq, end) of c on the wire as one chunk, with the records
// that end inside it.
func (n *Network) sendChunk(c *Conn, seq, end int64) {
	if c.dstIf < 0 {
		return
	}
	path := n.path(c.srcIf, c.dstIf, c.local.Port(), c.peer.Port())
	if path == nil {
		return
	}
	pi := n.newPkt()
	p := &n.pkts[pi]
	p.kind = pkData
	p.from, p.to = c.id, c.peerID
	p.srcIf, p.dstIf = c.srcIf, c.dstIf
	p.srcPort, p.dstPort = c.local.Port(), c.peer.Port()
	p.seq, p.end = seq, end
	p.ack = c.rcvNxt
	p.wnd = c.rcvWnd()
	segs := (end - seq + c.mss - 1) / c.mss
	p.segs = int32(segs)
	p.wire = end - seq + segs*(ipTCPHeader+ethOverhead)
	i, _ := slices.BinarySearchFunc(c.recs[c.recHead:], seq+1, func(r sendRec, t int64) int {
		return int(min(max(r.end-t, -1), 1))
	})
	for _, r := range c.recs[c.recHead+i:] {
		if r.end > end {
			break
		}
		p.recs = append(p.recs, r.rec)
		p.recEnds = append(p.recEnds, r.end)
	}
	p.path = path
	p.hop = 0
	n.sendData(pi)
}

// sendFin sends c's FIN (after all written data).
func (n *Network) sendFin(c *Conn) {
	pi := n.ctl(c, pkFin)
	n.pkts[pi].seq = c.writeEnd
	c.finAt = n.k.Now()
	n.emit(pi)
	if !n.k.Armed(&c.rtoT) {
		n.k.ArmAfter(&c.rtoT, n.rto(c))
	}
}

// onData takes in a data chunk (tcp_data_queue) piece by piece (the chunk less the
// segments lost on the way): a piece in order advances rcvNxt, merges what was queued out
// of order and takes in the records now complete; a piece out of order is kept and
// reported in a SACK block; a duplicate is re-ACKed. One ACK answers the chunk.
func (n *Network) onData(c *Conn, p *packet) {
	if c.appClosed {
		// Data for a socket the application has closed: Linux answers with RST.
		n.emit(n.ctl(c, pkRst))
		n.remove(c)
		return
	}
	if !n.passiveEstablished(c) {
		return
	}
	n.ackIn(c, p)
	if !c.live() {
		return
	}
	var sacks [maxSACK][2]int64
	ns := 0
	recs := n.recScratch[:0] // onData is never re-entered: upcalls cannot deliver data
	seq := p.seq
	for h := 0; h <= len(p.holes); h++ {
		end := p.end
		if h < len(p.holes) {
			end = p.holes[h][0]
		}
		if end > seq {
			if n.rcvPiece(c, p, seq, end, &recs) && ns < maxSACK {
				sacks[ns] = [2]int64{seq, end}
				ns++
			}
		}
		if h < len(p.holes) {
			seq = p.holes[h][1]
		}
	}
	pi := n.ctl(c, pkAck)
	q := &n.pkts[pi]
	q.sacks, q.nSack = sacks, uint8(ns)
	n.emit(pi)
	if len(recs) > 0 {
		n.hand(c, recs)
	}
	clear(recs)
	n.recScratch = recs[:0]
	if c.live() {
		n.checkEOF(c)
	}
}

// maxSACK is how many SACK blocks an ACK carries (Linux sends up to 4, 3 with timestamps).
const maxSACK = 3

// rcvPiece takes in stream bytes [seq, end) of chunk p, appending the records it completes
// to recs, and reports whether the piece was queued out of order.
func (n *Network) rcvPiece(c *Conn, p *packet, seq, end int64, recs *[]Record) bool {
	switch {
	case end <= c.rcvNxt:
		return false // a duplicate
	case seq > c.rcvNxt:
		if end-c.rcvNxt > c.rcvWnd()+c.oooBytes {
			return false // beyond the window
		}
		n.queueOOO(c, p, seq, end)
		return true
	case end-c.rcvNxt > c.rcvWnd():
		return false
	}
	*recs = n.take(c, *recs, p.recs, p.recEnds, end)
	c.bytesRecv += uint64(end - c.rcvNxt)
	c.rcvNxt = end
	if !c.paused {
		c.readAt = n.k.Now() // the application reads what arrives in order at once
	}
	for len(c.ooo) > 0 && c.ooo[0].seq <= c.rcvNxt {
		s := c.ooo[0]
		c.ooo = c.ooo[1:]
		c.oooBytes -= s.end - s.seq
		if s.end > c.rcvNxt {
			c.bytesRecv += uint64(s.end - c.rcvNxt)
			c.rcvNxt = s.end
		}
		*recs = n.take(c, *recs, s.recs, s.recEnds, s.end)
	}
	return false
}

// take appends the records whose last byte is in the stream received in order (after
// lastRecEnd, at or before upTo), in stream order.
func (n *Network) take(c *Conn, recs []Record, in []Record, inEnds []int64, upTo int64) []Record {
	for i, e := range inEnds {
		if e <= c.lastRecEnd || e > upTo {
			continue
		}
		c.lastRecEnd = e
		recs = append(recs, in[i])
	}
	return recs
}

// queueOOO keeps piece [seq, end) of chunk p received out of order, with the records
// ending in it (sorted by sequence; overlaps are kept whole).
func (n *Network) queueOOO(c *Conn, p *packet, seq, end int64) {
	i, found := slices.BinarySearchFunc(c.ooo, seq, func(s oooSeg, t int64) int {
		return int(min(max(s.seq-t, -1), 1))
	})
	if found && c.ooo[i].end >= end {
		return
	}
	s := oooSeg{seq: seq, end: end}
	for j, e := range p.recEnds {
		if e > seq && e <= end {
			s.recs = append(s.recs, p.recs[j])
			s.recEnds = append(s.recEnds, e)
		}
	}
	if found { // a longer piece from the same start: it holds every record the old one did
		c.oooBytes -= c.ooo[i].end - c.ooo[i].seq
		c.ooo[i] = s
	} else {
		c.ooo = slices.Insert(c.ooo, i, s)
	}
	c.oooBytes += end - seq
}

// hand gives records to the application, or holds them while reading is paused.
func (n *Network) hand(c *Conn, recs []Record) {
	for i, r := range recs {
		if c.paused || c.appClosed {
			c.held = append(c.held, recs[i:]...)
			return
		}
		if c.h != nil {
			c.h.Data(c, r)
		}
		if !c.live() {
			return
		}
	}
}

// checkEOF reports the peer's FIN once everything before it has been read.
func (n *Network) checkEOF(c *Conn) {
	if c.peerFin && !c.eofSent && c.rcvNxt >= c.peerFinAt && len(c.held) == 0 {
		c.eofSent = true
		if !c.appClosed && c.h != nil {
			c.h.Closed(c, io.EOF)
		}
	}
}

// onFin takes in the peer's FIN: ACKs it and, once the data before it is read, reports
// io.EOF. A FIN answering ours completes an orderly close.
func (n *Network) onFin(c *Conn, p *packet) {
	if !n.passiveEstablished(c) {
		return
	}
	n.ackIn(c, p)
	if !c.live() {
		return
	}
	c.peerFin = true
	c.peerFinAt = p.seq
	n.emit(n.ctl(c, pkAck))
	n.checkEOF(c)
}

// onAck handles a pure ACK.
func (n *Network) onAck(c *Conn, p *packet) {
	if c.state == StateSynRcvd {
		if !n.passiveEstablished(c) {
			return
		}
	}
	n.ackIn(c, p)
}

// ackIn processes the acknowledgement, SACK block and window a segment carries (tcp_ack):
// new data acknowledged releases the send buffer, samples the RTT (not from retransmitted
// chunks: Karn), grows the window (slow start, then CUBIC's TCP-friendly increase while
// the sender is window-limited) and ends recovery; SACKed chunks leave the pipe and mark
// the chunks they reveal as lost (markLost).
func (n *Network) ackIn(c *Conn, p *packet) {
	now := n.k.Now()
	c.rwnd = p.wnd
	ack := min(p.ack, c.sndMax)
	if c.finSent && p.ack > c.writeEnd {
		c.finAcked = true
		ack = c.sndMax
	}
	if ack > c.sndUna {
		acked := ack - c.sndUna
		if c.writeEnd-c.sndUna > c.sndBuf {
			c.ackedFullAt = now
		}
		c.sndUna = ack
		c.tlpOut = false
		c.sndNxt = max(c.sndNxt, ack)
		c.bytesAcked += uint64(acked)
		c.ackedAt = now
		sample := sim.Time(-1)
		k := 0
		for k < len(c.flights) && c.flights[k].end <= ack {
			f := &c.flights[k]
			n.unflight(c, f)
			if !f.retx {
				sample = now - f.at
			}
			c.rackAt = max(c.rackAt, f.at)
			k++
		}
		c.flights = append(c.flights[:0], c.flights[k:]...) // keeps the array: no allocation per window
		if len(c.flights) > 0 && c.flights[0].seq < ack {
			f := &c.flights[0]
			if !f.sacked && !f.lost {
				c.pipe -= ack - f.seq
			}
			f.seq = ack
		}
		if sample >= 0 {
			n.rttSample(c, sample)
		}
		c.backoff = 0
		c.retransStamp = -1
		if c.recovery && ack >= c.recoverPt {
			c.recovery = false
			c.cwnd = max(c.ssthresh, c.mss)
		} else if !c.recovery && c.cwndLimited {
			n.grow(c, acked)
		}
		for c.recHead < len(c.recs) && c.recs[c.recHead].end <= c.sndUna {
			c.recs[c.recHead] = sendRec{}
			c.recHead++
		}
		if c.recHead > 64 && c.recHead*2 > len(c.recs) {
			c.recs = append(c.recs[:0], c.recs[c.recHead:]...)
			c.recHead = 0
		}
		if len(c.flights) > 0 || (c.finSent && !c.finAcked) {
			n.k.ArmAfter(&c.rtoT, n.rto(c))
		} else {
			n.k.Disarm(&c.rtoT)
			n.k.Disarm(&c.tlpT)
		}
	}
	for _, b := range p.sacks[:p.nSack] {
		n.sack(c, b[0], b[1])
	}
	if c.nSacked > 0 {
		n.markLost(c)
	}
	if c.appClosed && c.finAcked {
		n.remove(c)
		return
	}
	n.trySend(c)
	if c.wantWritable && c.live() {
		used := c.writeEnd - c.sndUna
		if c.sndBuf-used >= used/2 {
			c.wantWritable = false
			if c.h != nil {
				c.h.Writable(c)
			}
		}
	}
}

// unflight takes flight f's bytes out of the pipe and its marks out of the counts.
func (n *Network) unflight(c *Conn, f *flight) {
	switch {
	case f.sacked:
		c.nSacked--
	case f.lost:
		c.nLost--
	default:
		c.pipe -= f.end - f.seq
	}
}

// sack marks the stream bytes [seq, end) SACKed, splitting the flights it cuts.
func (n *Network) sack(c *Conn, seq, end int64) {
	i, _ := slices.BinarySearchFunc(c.flights, seq, func(f flight, t int64) int {
		return int(min(max(f.seq-t, -1), 1))
	})
	if i > 0 && c.flights[i-1].end > seq {
		i--
	}
	for ; i < len(c.flights) && c.flights[i].seq < end; i++ {
		if c.flights[i].sacked {
			continue
		}
		if c.flights[i].seq < seq {
			n.split(c, i, seq)
			continue // the right part is next
		}
		if c.flights[i].end > end {
			n.split(c, i, end)
		}
		f := &c.flights[i]
		n.unflight(c, f)
		f.sacked, f.lost = true, false
		c.nSacked++
		c.rackAt = max(c.rackAt, f.at)
	}
}

// split cuts flight i at stream offset at; both parts keep its marks.
func (n *Network) split(c *Conn, i int, at int64) {
	f := c.flights[i]
	right := f
	right.seq = at
	c.flights[i].end = at
	c.flights = slices.Insert(c.flights, i+1, right)
	switch {
	case f.sacked:
		c.nSacked++
	case f.lost:
		c.nLost++
	}
}

// markLost marks as lost every flight neither SACKed nor already lost that was sent once
// and has at least three segments SACKed above it (RFC 6675's IsLost, tcp_reordering 3),
// or that was last sent more than a reordering window (SRTT/4) before a flight known
// delivered (RACK: the rule that also finds lost retransmissions). The first loss
// outside recovery enters fast recovery: ssthresh and cwnd drop to CUBIC's beta (717/1024).
func (n *Network) markLost(c *Conn) {
	var above int64
	reo := c.srtt / 4
	newly := false
	for i := len(c.flights) - 1; i >= 0; i-- {
		f := &c.flights[i]
		switch {
		case f.sacked:
			above += f.end - f.seq
		case f.lost:
		case above >= 3*c.mss && !f.retx || f.at+reo < c.rackAt:
			n.unflight(c, f)
			f.lost = true
			c.nLost++
			newly = true
		}
	}
	if newly && !c.recovery && c.backoff == 0 {
		c.ssthresh = c.lossThresh()
		c.cwnd = c.ssthresh
		c.caAcc = 0
		c.recovery = true
		c.recoverPt = c.sndNxt
		c.nFastRetx++
		n.ctr.FastRetransmits++
	}
}

// grow opens the congestion window by acked bytes: slow start below ssthresh, then CUBIC's
// TCP-friendly rate (one segment per 15/8 windows acknowledged: beta 717/1024).
func (n *Network) grow(c *Conn, acked int64) {
	if c.cwnd < c.ssthresh {
		inc := min(acked, c.ssthresh-c.cwnd)
		c.cwnd += inc
		acked -= inc
	}
	if acked <= 0 {
		return
	}
	c.caAcc += acked * 8
	for c.caAcc >= c.cwnd*15 {
		c.caAcc -= c.cwnd * 15
		c.cwnd += c.mss
	}
}

// lossThresh is CUBIC's multiplicative decrease (beta 717/1024), at least two segments.
func (c *Conn) lossThresh() int64 { return max(c.cwnd*717/1024, 2*c.mss) }

// rttSample updates SRTT, RTTVAR and the RTO (RFC 6298, with Linux's floor: the variance
// term is at least MinRTO, so RTO >= SRTT + MinRTO).
func (n *Network) rttSample(c *Conn, r sim.Time) {
	rt := int64(max(r, 1))
	if c.srtt == 0 {
		c.srtt = simTime(rt)
		c.rttvar = simTime(rt / 2)
	} else {
		d := int64(c.srtt) - rt
		if d < 0 {
			d = -d
		}
		c.rttvar = simTime((3*int64(c.rttvar) + d) / 4)
		c.srtt = simTime((7*int64(c.srtt) + rt) / 8)
	}
	c.rtoBase = min(c.srtt+max(4*c.rttvar, n.cfg.MinRTO), n.cfg.MaxRTO)
}
