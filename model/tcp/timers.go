package tcp

import "github.com/lnetsim/lnetsim/sim"

// orphanRetries is tcp_orphan_retries' effective default (0 means 8): how long a closed
// socket retransmits its FIN or data.
const orphanRetries = 8

// onRTO handles the retransmission timer (tcp_retransmit_timer, tcp_write_timeout): SYN and
// SYN-ACK retries, the give-up of an established connection per tcp_retries2 (time since
// the oldest unacknowledged data was first sent, against the budget those retries would
// take from MinRTO), and otherwise a retransmission from the oldest unacknowledged byte
// with the window collapsed to one segment and the timer backed off. With nothing in flight
// and the peer's window closed it is the persist timer and sends a window probe.
func (n *Network) onRTO(c *Conn) {
	if !c.live() {
		return
	}
	now := n.k.Now()
	switch c.state {
	case StateSynSent:
		if c.synTries >= n.cfg.SynRetries {
			n.fail(c, ErrTimedOut)
			return
		}
		c.synTries++
		c.backoff++
		c.nRTOs++
		n.ctr.RTOs++
		n.sendSyn(c)
		return
	case StateSynRcvd:
		if c.synTries >= n.cfg.SynAckRetries {
			n.remove(c)
			return
		}
		c.synTries++
		c.backoff++
		n.emit(n.ctl(c, pkSynAck))
		n.k.ArmAfter(&c.rtoT, n.rto(c))
		return
	}
	finOut := c.finSent && !c.finAcked
	if len(c.flights) == 0 && !finOut {
		if c.sndNxt < c.writeEnd && c.rwnd < c.mss {
			c.backoff++
			n.ctr.WindowProbes++
			pi := n.ctl(c, pkProbe)
			n.pkts[pi].seq = c.sndUna - 1
			n.emit(pi)
			n.k.ArmAfter(&c.rtoT, n.rto(c))
		}
		return
	}
	if c.retransStamp < 0 {
		if len(c.flights) > 0 {
			c.retransStamp = c.flights[0].at
		} else {
			c.retransStamp = c.finAt
		}
	}
	retries := n.cfg.Retries2
	if c.appClosed {
		retries = orphanRetries
	}
	if now-c.retransStamp >= n.budget(n.cfg.MinRTO, retries) {
		n.fail(c, ErrTimedOut)
		return
	}
	c.nRTOs++
	n.ctr.RTOs++
	if c.backoff == 0 {
		c.ssthresh = c.lossThresh()
	}
	c.cwnd = c.mss
	c.caAcc = 0
	c.recovery = false
	c.backoff++
	for i := range c.flights {
		f := &c.flights[i]
		if !f.sacked && !f.lost {
			n.unflight(c, f)
			f.lost = true
			c.nLost++
		}
	}
	if len(c.flights) == 0 && finOut {
		n.sendFin(c)
	} else {
		n.trySend(c)
	}
	n.k.ArmAfter(&c.rtoT, n.rto(c))
}

// onKeepalive handles the keepalive timer (tcp_keepalive_timer): nothing while data is in
// flight or queued (the retransmission timer covers it); after KeepIdle without anything
// received, a probe every KeepIntvl; when KeepCnt probes have gone unanswered, RST and
// ErrTimedOut.
func (n *Network) onKeepalive(c *Conn) {
	if !c.live() || c.state != StateEstablished || c.appClosed {
		return
	}
	now := n.k.Now()
	o := c.opt
	if len(c.flights) > 0 || c.sndNxt < c.writeEnd {
		n.k.ArmAfter(&c.kaT, o.KeepIdle)
		return
	}
	if now-c.lastRcv < o.KeepIdle {
		n.k.Arm(&c.kaT, c.lastRcv+o.KeepIdle)
		return
	}
	if c.probesOut >= o.KeepCnt {
		n.emit(n.ctl(c, pkRst))
		n.fail(c, ErrTimedOut)
		return
	}
	pi := n.ctl(c, pkProbe)
	n.pkts[pi].seq = c.sndUna - 1
	n.emit(pi)
	n.ctr.KeepaliveProbes++
	c.probesOut++
	n.k.ArmAfter(&c.kaT, o.KeepIntvl)
}

// close implements Conn.Close and Conn.Abort (tcp_close): an abort, a connection not yet
// established or one with unread data sends RST and is gone at once; otherwise FIN follows
// the data written, and the connection is gone when its FIN is acknowledged (socklnd sets
// linger2 -1: no FIN_WAIT2).
func (n *Network) close(c *Conn, abort bool) {
	if c.appClosed || !c.live() {
		c.appClosed = true
		return
	}
	c.appClosed = true
	if abort || c.state != StateEstablished || len(c.held) > 0 {
		if c.state != StateSynSent {
			n.emit(n.ctl(c, pkRst))
		}
		n.remove(c)
		return
	}
	c.finPending = true
	n.k.Disarm(&c.kaT)
	n.trySend(c)
}

// setReading implements Conn.SetReading.
func (n *Network) setReading(c *Conn, on bool) {
	if c.paused != on {
		return
	}
	c.paused = !on
	if !on {
		c.consumed = c.rcvNxt
		return
	}
	if !c.live() {
		return
	}
	recs := c.held
	c.held = nil
	if c.consumed < c.rcvNxt {
		c.readAt = n.k.Now() // what arrived while paused is read now
	}
	c.consumed = c.rcvNxt
	n.hand(c, recs)
	if !c.live() {
		return
	}
	n.checkEOF(c)
	if c.live() {
		n.emit(n.ctl(c, pkAck)) // window update
	}
}

// info implements Conn.Info.
func (n *Network) info(c *Conn) Info {
	return Info{
		State:        c.state,
		RTT:          c.srtt,
		RTTVar:       c.rttvar,
		RTO:          n.rto(c),
		Cwnd:         int(c.cwnd),
		Ssthresh:     int(min(c.ssthresh, 1<<31-1)),
		MSS:          int(c.mss),
		Unacked:      int(c.sndNxt - c.sndUna),
		Queued:       int(c.writeEnd - c.sndUna),
		BytesAcked:   c.bytesAcked,
		BytesRecv:    c.bytesRecv,
		Retransmits:  c.nRetrans,
		RTOs:         c.nRTOs,
		FastRetrans:  c.nFastRetx,
		PeerWindow:   int(min(c.rwnd, 1<<31-1)),
		ReadingPause: c.paused,
	}
}

// armTLP schedules the tail loss probe (tcp_schedule_loss_probe): 2 x SRTT plus 2 ms
// (TCP_TIMEOUT_MIN) after the last transmission, plus MinRTO when a single segment is out,
// and never later than the RTO; only in the open state (no recovery, no RTO backoff).
func (n *Network) armTLP(c *Conn) {
	if c.recovery || c.backoff > 0 || c.srtt == 0 || c.nLost > 0 || c.tlpOut {
		n.k.Disarm(&c.tlpT)
		return
	}
	pto := 2*c.srtt + tlpMin
	if len(c.flights) == 1 && c.flights[0].end-c.flights[0].seq <= c.mss {
		pto += n.cfg.MinRTO
	}
	at := n.k.Now() + pto
	if rto, ok := n.k.Deadline(&c.rtoT); ok && rto <= at {
		n.k.Disarm(&c.tlpT)
		return
	}
	n.k.Arm(&c.tlpT, at)
}

// tlpMin is TCP_TIMEOUT_MIN, the slack a loss probe waits beyond two round trips.
const tlpMin = 2 * sim.Millisecond

// onTLP sends the tail loss probe (tcp_send_loss_probe): one new segment if the windows
// allow, else the last segment sent again, so that the peer's SACK reveals what was lost.
// No other probe goes until an ACK advances (tlp_high_seq).
func (n *Network) onTLP(c *Conn) {
	if !c.live() || c.state != StateEstablished || len(c.flights) == 0 || c.recovery {
		return
	}
	n.ctr.LossProbes++
	c.tlpOut = true
	if c.sndNxt < c.writeEnd && c.sndNxt+c.mss <= c.sndUna+c.rwnd {
		sz := min(c.mss, c.writeEnd-c.sndNxt)
		n.sendChunk(c, c.sndNxt, c.sndNxt+sz)
		c.flights = append(c.flights, flight{seq: c.sndNxt, end: c.sndNxt + sz, at: n.k.Now()})
		c.pipe += sz
		c.sndNxt += sz
		c.sndMax = max(c.sndMax, c.sndNxt)
	} else {
		i := len(c.flights) - 1
		f := &c.flights[i]
		if f.sacked {
			return
		}
		if f.end-f.seq > c.mss {
			n.split(c, i, f.end-c.mss)
			f = &c.flights[i+1]
		}
		if c.retransStamp < 0 {
			c.retransStamp = f.at
		}
		f.retx = true
		f.at = n.k.Now()
		c.nRetrans++
		n.ctr.Retransmits++
		n.sendChunk(c, f.seq, f.end)
	}
	n.k.ArmAfter(&c.rtoT, n.rto(c))
}
