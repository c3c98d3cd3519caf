package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// crawl is a 1 MiB PUT from n1 to n2 over n2's link losing 13% of its segments: with
// sock_timeout 10 s the transfer takes about twice that, and bytes move at least every
// 2 s. Connections are set up first, without loss. zcMin and txBuf are zc_min_payload and
// tx_buffer_size (0: the defaults).
func crawl(t *testing.T, zcMin, txBuf int) *cluster {
	t.Helper()
	p := DefaultParams()
	p.SockTimeout = 10
	if zcMin > 0 {
		p.ZcMinPayload = zcMin
	}
	p.TxBufferSize = txBuf
	c := newCluster(t, clusterOpt{params: p})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	c.log = nil
	c.hosts[1].Links()[0].SetLoss(0.13)
	c.put(t, 1, 2, 1<<20)
	return c
}

// bulkRead is what n2's conns have read, and when they last read.
func (c *cluster) bulkRead() (uint64, sim.Time) {
	var n uint64
	var at sim.Time
	for _, cn := range c.lnd.conns {
		if cn.sock.Host() == c.hosts[1] && !cn.dead && cn.typ == ConnBulkIn {
			p := cn.sock.Progress()
			n += p.Read
			at = max(at, p.ReadAt)
		}
	}
	return n, at
}

func same[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestCrawlNotTimedOut: the 1 MiB PUT takes 20.4 s, twice sock_timeout, but bytes keep
// arriving; the receiver's deadline moves with every read (ksocknal_recv_iter) and the
// sender's with every ACK that frees space in its full 256 KiB send buffer
// (ksocknal_transmit's tx_bufnob test), so neither side times out: PUT and ACK complete.
// Zero-copy is off (zc_min_payload 2 MiB): a zero-copy PUT has a ZC_REQ deadline no progress
// moves (TestCrawlZeroCopyTimesOut). Before progress was seen, the sender's deadline ran
// from the write of the whole record and it closed the conns at 11 s (the receiver's ran
// from the PUT's header).
func TestCrawlNotTimedOut(t *testing.T) {
	c := crawl(t, 2<<20, 256<<10)
	c.run(t, 30*sim.Second)
	put := c.sink[1].last(lnet.EventPUT)
	ack := c.src[0].last(lnet.EventACK)
	if put == nil || ack == nil {
		t.Fatalf("PUT %v ACK %v\n%s", put, ack, c.log)
	}
	same(t, "PUT status", put.Status, 0)
	same(t, "ACK status", ack.Status, 0)
	same(t, "timed-out conns", c.lnd.stats.TimedOutConns, 0)
	golden(t, "crawl", c.log)
}

// TestStallTimedOutAfterLastRead: the same crawl, and n2's link goes down at 12 s with
// 491,419 of the 1,048,672 bytes read, the last at 11.663914042 s. n2's receive deadline
// is that read + sock_timeout, 21.66 s, 22 s in the kernel's whole seconds; the reaper,
// visiting 51 of the 128 buckets a second (ReaperChunk(10)), reaches n1's bucket at 23 s
// (its granularity: up to ReaperScanPeriod, 3 s, late): the conns close -ETIMEDOUT and the
// PUT being received completes -EIO with REMOTE_ERROR (ksocknal_destroy_conn; n2's
// remote_error_count 1). n1's send deadline ran from its last ACK that freed buffer space
// and expires at the same visit. Before, n1 closed the conns at 11 s (as in
// TestCrawlNotTimedOut), before the stall.
func TestStallTimedOutAfterLastRead(t *testing.T) {
	c := crawl(t, 2<<20, 256<<10)
	c.run(t, 11*sim.Second)
	c.hosts[1].Links()[0].Down()
	read, at := c.bulkRead()
	same(t, "read at the stall", read, 491419)
	same(t, "last read", at, 11663914042*sim.Nanosecond)
	c.run(t, 30*sim.Second)
	put := c.sink[1].last(lnet.EventPUT)
	if put == nil {
		t.Fatalf("no PUT event\n%s", c.log)
	}
	same(t, "PUT status", put.Status, -EIO)
	same(t, "n2 remote_error_count", c.nodes[1].Stats().RemoteErrorCount, 1)
	golden(t, "crawl_stall", c.log)
}

// TestCrawlZeroCopyTimesOut: with the defaults the 1 MiB PUT is sent zero-copy
// (zc_min_payload 16 KiB) and waits on the peer's ZC_REQ list with a deadline set when its
// first byte is written (ksocknal_check_zc_req: 1 s + sock_timeout) that no progress moves
// (ksocknal_check_peer_timeouts): the sender closes the conns at the reaper's next visit
// after 11 s although bytes are moving, the PUT's send completes -EIO; the receiver sees
// the reset.
func TestCrawlZeroCopyTimesOut(t *testing.T) {
	c := crawl(t, 0, 0)
	c.run(t, 10500*sim.Millisecond)
	golden(t, "crawl_zc", c.log)
}
