package o2ib

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// recSummary is a finished message as the failure tests compare it.
func recSummary(r *lnet.MsgRecord) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%s status=%d hstatus=%s resends=%d end=%s", r.Type, r.Status, r.HStatus, r.Resends, r.End)
}

// receivedPut returns the first PUT of size bytes node h received (discovery's pushes, PUTs
// of a ping buffer, are not the test's).
func (c *cluster) receivedPut(h, size int) *lnet.MsgRecord {
	for i := range c.done[h-1].recs {
		if r := &c.done[h-1].recs[i]; r.Type == lnet.MsgPUT && r.Received && r.Size == size {
			return r
		}
	}
	return nil
}

// linkDownMid runs a 1 MiB PUT from node 1 to node 2 whose bulk transfer (the WRITE or the
// READ) loses node `link+1`'s link 20us after it is posted.
func linkDownMid(t *testing.T, p Params, link int) *cluster {
	c := newCluster(t, clusterOpt{params: p})
	h := &hookObs{traceObs: c.obs}
	h.rdma = func(*RDMAEvent) {
		c.k.AfterFunc(20*sim.Microsecond, func() { c.f.Links()[link].LinkDown() })
	}
	c.lnd.SetObserver(h)
	c.put(t, 1, 2, 1<<20)
	c.run(t, 200*sim.Second)
	return c
}

// TestBulkReadLinkDownMidRead: a link dies in the middle of the bulk of a 1 MiB PUT.
// Write: whichever link, the sender's WRITE fails RETRY_EXC_ERR at 402.8 ms and the PUT
// fails -EIO REMOTE_DROPPED (single rail: nothing to resend on); with the sender's port down
// the receiver waits for PUT_DONE until its tx times out (REMOTE_TIMEOUT at 61 s); with its
// own port down, the receiver pushes its dead NI to the sender at once (the sender pushed to
// it at first contact, so it is a multi-rail peer to push to), that push fails 21 us after the
// WRITE and the conn's close aborts the received PUT (-ECONNABORTED). Read: the roles swap: the
// receiver's READ fails RETRY_EXC_ERR at 402.8 ms (its received PUT -EIO REMOTE_DROPPED,
// readFailure) and it closes the conn; the sender hears of it only when something of its
// own fails: with its own port down, the discovery push it sends at once (21 us later,
// -ECONNABORTED REMOTE_DROPPED, abortActive); with the receiver's port down, nothing, and
// its PUT_RDREQ waits for PUT_RDDONE until the connd check past its deadline (REMOTE_TIMEOUT at
// 53 s, not resent). Pulling moves the fast failure detection from the sender to the receiver.
func TestBulkReadLinkDownMidRead(t *testing.T) {
	got := ""
	for link := 0; link < 2; link++ {
		w := linkDownMid(t, DefaultParams(), link)
		r := linkDownMid(t, readParams(0), link)
		got += fmt.Sprintf("n%d's link: write: sent %s; received %s\nn%d's link: read: sent %s; received %s\n",
			link+1, recSummary(w.done[0].last(lnet.MsgPUT)), recSummary(w.receivedPut(2, 1<<20)),
			link+1, recSummary(r.done[0].last(lnet.MsgPUT)), recSummary(r.receivedPut(2, 1<<20)))
	}
	want := `n1's link: write: sent PUT status=-5 hstatus=remote_dropped resends=0 end=402.825077ms; received PUT status=-103 hstatus=remote_timeout resends=0 end=61s
n1's link: read: sent PUT status=-103 hstatus=remote_dropped resends=0 end=402.846171ms; received PUT status=-5 hstatus=remote_dropped resends=0 end=402.824764ms
n2's link: write: sent PUT status=-5 hstatus=remote_dropped resends=0 end=402.825077ms; received PUT status=-103 hstatus=ok resends=0 end=402.845071ms
n2's link: read: sent PUT status=-103 hstatus=remote_timeout resends=0 end=53s; received PUT status=-5 hstatus=remote_dropped resends=0 end=402.824764ms
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestBulkReadRemoteAccessError: the receiver gets a PUT_RDREQ whose rkey is wrong (the
// test corrupts the first one in flight): its READ completes REM_ACCESS_ERR, the received
// PUT ends -EIO REMOTE_ERROR at 172.185us (readFailure; discovery's push and its ACK went first) and the conn closes; the sender's
// PUT_RDREQ, aborted when the disconnect reaches it 10 us later, gets -ECONNABORTED
// REMOTE_DROPPED (abortActive), charged to the peer NI; a single-NI peer gets no resend,
// as for a failed WRITE.
func TestBulkReadRemoteAccessError(t *testing.T) {
	c := newCluster(t, clusterOpt{params: readParams(0)})
	h := &hookObs{traceObs: c.obs}
	corrupted := false
	h.fn = func(ev *MsgEvent) {
		if ev.Type != MsgPUT_RDREQ || corrupted {
			return
		}
		corrupted = true
		for _, cn := range c.lnd.conns {
			if cn.peer.net.ni.NID() == nidOf(2, 0) && cn.rxWire.size > 0 {
				cn.rxWire.last().rd.key ^= 0x5a5a
			}
		}
	}
	c.lnd.SetObserver(h)
	c.put(t, 1, 2, 1<<20)
	c.run(t, 10*sim.Second)
	got := fmt.Sprintf("sent %s; received %s; closed %d", recSummary(c.done[0].last(lnet.MsgPUT)),
		recSummary(c.receivedPut(2, 1<<20)), c.lnd.Stats().ConnsClosed)
	want := "sent PUT status=-103 hstatus=remote_dropped resends=0 end=182.185us; received PUT status=-5 hstatus=remote_error resends=0 end=172.185us; closed 2"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
