package lnet

import "github.com/lnetsim/lnetsim/sim"

// rspRef names a response tracker (a sequence number; 0 = none).
type rspRef uint64

// rspEntry is one response tracker (struct lnet_rsp_tracker).
type rspEntry struct {
	ref      rspRef
	deadline sim.Time
	mdIdx    uint32
	mdGen    uint32
	nextHop  NID
}

// rspList is the tracker list in append order (deadlines are monotone), a ring over a slice.
type rspList struct {
	buf  []rspEntry
	head int
	seq  rspRef
}

func (l *rspList) add(md *MD, deadline sim.Time) rspRef {
	if l.head > 0 && l.head == len(l.buf) {
		l.buf = l.buf[:0]
		l.head = 0
	} else if l.head > 1024 && l.head*2 > len(l.buf) {
		k := copy(l.buf, l.buf[l.head:])
		l.buf = l.buf[:k]
		l.head = 0
	}
	l.seq++
	l.buf = append(l.buf, rspEntry{ref: l.seq, deadline: deadline, mdIdx: md.idx, mdGen: md.gen})
	return l.seq
}

// setNextHop records the hop a tracked message was sent to (rspt_next_hop_nid). Trackers are
// found by a scan from the newest, where a just-sent message's tracker lives.
func (l *rspList) setNextHop(ref rspRef, nid NID) {
	for i := len(l.buf) - 1; i >= l.head; i-- {
		if l.buf[i].ref == ref {
			l.buf[i].nextHop = nid
			return
		}
		if l.buf[i].ref < ref {
			return
		}
	}
}

// Len returns the number of trackers not yet expired or swept (live or invalidated).
func (l *rspList) len() int { return len(l.buf) - l.head }

// attachRspTracker models lnet_attach_rsp_tracker: deadline = now + transaction_timeout, not
// re-armed by resends; the same instant starts the round trip (rspt_start).
func (n *Node) attachRspTracker(md *MD) {
	if l := &n.rsp; l.len() >= 4096 && l.len() > 4*n.rspLive {
		n.compactRsp()
	}
	n.rspLive++
	n.stats.RstAlloc++
	now := n.k.Now()
	md.rspt = n.rsp.add(md, now+sim.Time(n.tun.TransactionTimeout)*sim.Second)
	if !md.rspTimed { // the kernel stamps rspt_start only on a tracker new to the MD
		md.rspStart, md.rspTimed = now, true
	}
}

// detachRspTracker models lnet_detach_rsp_tracker: the response arrived (or the send failed);
// the list entry is dropped lazily.
func (n *Node) detachRspTracker(md *MD) {
	if md.rspt != 0 {
		md.rspt = 0
		n.rspLive--
		n.stats.RstAlloc--
	}
}

// dropRspTracker detaches md's tracker when its operation failed, expired or was unlinked:
// no round trip is recorded for it.
func (n *Node) dropRspTracker(md *MD) {
	n.detachRspTracker(md)
	md.rspTimed = false
}

// expireResponses models lnet_finalize_expired_responses: walk the trackers in append order
// up to the first unexpired one; for each whose MD still waits for its response, unlink the MD
// (LNetMDUnlink: its handler sees UNLINK with status 0, or the pending message's event with
// -ETIMEDOUT; the model flags that event with RspTimeout), count
// response_timeout_count and charge the recorded next hop as a remote failure.
func (n *Node) expireResponses() {
	now := n.k.Now()
	l := &n.rsp
	for l.head < len(l.buf) {
		e := l.buf[l.head]
		if e.deadline > now {
			break
		}
		l.head++
		md := n.lookupMD(e.mdIdx, e.mdGen)
		if md == nil || md.rspt != e.ref {
			continue
		}
		n.dropRspTracker(md)
		n.stats.ResponseTimeoutCount++
		n.rspExpiring = true
		n.mdUnlink(md, 0)
		n.rspExpiring = false
		if e.nextHop != AnyNID {
			if lpni := n.findPeerNI(e.nextHop); lpni != nil {
				n.handleRemoteFailure(lpni, CauseResponseTimeout)
			}
		}
	}
	if l.head == len(l.buf) {
		l.buf = l.buf[:0]
		l.head = 0
	}
}

// compactRsp drops trackers whose response already arrived (the kernel frees them lazily in
// the monitor; the model also sweeps when they outnumber live ones 4:1, bounding memory).
func (n *Node) compactRsp() {
	l := &n.rsp
	k := 0
	for i := l.head; i < len(l.buf); i++ {
		e := l.buf[i]
		if md := n.lookupMD(e.mdIdx, e.mdGen); md != nil && md.rspt == e.ref {
			l.buf[k] = e
			k++
		}
	}
	l.buf = l.buf[:k]
	l.head = 0
}
