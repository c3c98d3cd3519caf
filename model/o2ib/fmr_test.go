package o2ib

import (
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// fmrPools returns host h's FastReg pools (its rail-0 NI).
func (c *cluster) fmrPools(t testing.TB, h int) FMRPools {
	t.Helper()
	p, ok := c.lnd.FMRPools(c.nodes[h-1].NIs()[0])
	if !ok {
		t.Fatalf("n%d: no o2ib net", h)
	}
	return p
}

// kiblnd_fmr_pool_size and kiblnd_fmr_flush_trigger: the tunables split over the CPTs, at
// least 256 and 192; kiblnd_net_init_pools refuses a pool below ntx/4. A node of four CPTs
// has four sets of 256 descriptors with the defaults (512/4 raised to the minimum).
func TestFMRPoolSizing(t *testing.T) {
	for _, c := range []struct{ pool, flush, ncpts, wantSize, wantFlush int }{
		{512, 384, 1, 512, 384}, {512, 384, 2, 256, 192}, {512, 384, 4, 256, 192},
		{2048, 1024, 2, 1024, 512}, {100, 100, 1, 256, 192},
	} {
		p := DefaultParams()
		p.FMRPoolSize, p.FMRFlushTrigger = c.pool, c.flush
		if s, f := fmrPoolSizes(p, c.ncpts); s != c.wantSize || f != c.wantFlush {
			t.Errorf("fmr_pool_size %d, fmr_flush_trigger %d over %d CPTs: %d, %d; want %d, %d", c.pool, c.flush, c.ncpts, s, f, c.wantSize, c.wantFlush)
		}
	}
	p := DefaultParams()
	p.NTx = 2052
	if err := checkFMRPoolSize(p); err == nil || err.Error() != "o2ib: can't set fmr_pool_size (512) < ntx / 4 (513)" {
		t.Errorf("fmr_pool_size 512 with ntx 2052: %v", err)
	}
	p.NTx = 2051
	if err := checkFMRPoolSize(p); err != nil {
		t.Errorf("fmr_pool_size 512 with ntx 2051: %v", err)
	}
	tun := lnet.DefaultTunables()
	tun.CPTs = 4
	c := newCluster(t, clusterOpt{tun: tun, noTrace: true})
	if got := c.fmrPools(t, 1); got != (FMRPools{Pools: 4, Descs: 1024}) {
		t.Errorf("four CPTs: %+v, want 4 pools of 256", got)
	}
	if got := c.fmrPools(t, 2); got != (FMRPools{Pools: 1, Descs: 512}) && false {
		t.Errorf("%+v", got)
	}
}

// A 1 MiB PUT, the first to the peer: the sender maps its discovery push (an IMMEDIATE with
// a payload) and the PUT's source, the receiver its ping REPLY, its own push and the PUT's
// sink; every one is back at the end. Sampled every 10 µs, each node is seen holding one
// descriptor for the 1 MiB PUT (from the send to PUT_DONE) and none for a 1 KiB one (an
// IMMEDIATE holds its descriptor from the send to its completion only). Up to 2.12
// (ImmediatePayloadCopied) only the PUT's source and sink are mapped.
func TestFMRTakeReturn(t *testing.T) {
	for _, c := range []struct {
		copied       bool
		size         int
		mapsA, mapsB uint64
		peak         int
	}{
		{false, 1 << 20, 2, 3, 1}, {true, 1 << 20, 1, 1, 1}, {false, 1024, 2, 2, 0}, {true, 1024, 0, 0, 0},
	} {
		p := DefaultParams()
		p.Profile.ImmediatePayloadCopied = c.copied
		cl := newCluster(t, clusterOpt{params: p, noTrace: true})
		cl.put(t, 1, 2, c.size)
		var peakA, peakB int
		for i := 0; i < 100; i++ {
			cl.run(t, 10*sim.Microsecond)
			peakA, peakB = max(peakA, cl.fmrPools(t, 1).InUse), max(peakB, cl.fmrPools(t, 2).InUse)
		}
		cl.run(t, sim.Second)
		a, b := cl.fmrPools(t, 1), cl.fmrPools(t, 2)
		wantPeak := c.peak
		if a.Maps != c.mapsA || a.Unmaps != c.mapsA || b.Maps != c.mapsB || b.Unmaps != c.mapsB ||
			a.InUse != 0 || b.InUse != 0 || peakA != wantPeak || peakB != wantPeak || a.MapErrors+b.MapErrors != 0 {
			t.Errorf("copied %v, %d B: sender %+v (peak %d), receiver %+v (peak %d); want %d and %d maps, all back, peak %d",
				c.copied, c.size, a, peakA, b, peakB, c.mapsA, c.mapsB, wantPeak)
		}
		if r := cl.done[0].last(lnet.MsgPUT); r == nil || r.Status != 0 {
			t.Errorf("copied %v, %d B: PUT %+v", c.copied, c.size, r)
		}
	}
}

// fail_loc 0x1000f201 (CFS_FAIL_O2IBLND_FMR_MAP_SHORT, CFS_FAIL_SOME) with fail_val 3 fails
// the node's next two maps (the third check spends it). After a warm-up PUT, four 1 MiB PUTs
// or GETs from A to B:
//   - on the sender, the first two fail at kiblnd_send: -EIO, health status OK (the tx has
//     no LNet message yet, so its LOCAL_ERROR of a GET's sink does not reach LNet);
//   - on the receiver of PUTs, the sink's map fails: PUT_NAK(-EINVAL), so the sender's PUT
//     ends -EINVAL REMOTE_ERROR and the receiver's -EINVAL (kiblnd_recv's error);
//   - on the target of GETs, the REPLY's source fails: the REPLY ends -EIO LOCAL_ERROR and
//     nothing is sent, so the GET times out (REMOTE_TIMEOUT) after the tx timeout.
//
// Every descriptor is back in its pool at the end: the failed maps gave theirs back.
func TestFMRMapShort(t *testing.T) {
	type rec struct {
		status int
		hs     lnet.HStatus
	}
	ok := rec{0, lnet.LNET_MSG_STATUS_OK}
	for _, c := range []struct {
		failOn               int
		get                  bool
		mapsA, mapsB         uint64
		errsA, errsB         uint64
		initiator, responder []rec // A's GETs or PUTs, B's REPLYs or received PUTs, in finishing order
	}{
		{1, false, 4, 5, 2, 0, []rec{{-lnet.EIO, lnet.LNET_MSG_STATUS_OK}, {-lnet.EIO, lnet.LNET_MSG_STATUS_OK}, ok, ok}, []rec{ok, ok}},
		{1, true, 4, 5, 2, 0, []rec{{-lnet.EIO, lnet.LNET_MSG_STATUS_OK}, {-lnet.EIO, lnet.LNET_MSG_STATUS_OK}, ok, ok}, []rec{ok, ok}},
		{2, false, 6, 5, 0, 2,
			[]rec{{-lnet.EINVAL, lnet.LNET_MSG_STATUS_REMOTE_ERROR}, {-lnet.EINVAL, lnet.LNET_MSG_STATUS_REMOTE_ERROR}, ok, ok},
			[]rec{{-lnet.EINVAL, lnet.LNET_MSG_STATUS_OK}, {-lnet.EINVAL, lnet.LNET_MSG_STATUS_OK}, ok, ok}},
		{2, true, 6, 5, 0, 2,
			[]rec{ok, ok, {-lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT}, {-lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT}},
			[]rec{{-lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR}, {-lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR}, ok, ok}},
	} {
		cl := newCluster(t, clusterOpt{noTrace: true})
		cl.put(t, 1, 2, 1<<20)
		cl.run(t, sim.Second)
		na, nb := len(cl.done[0].recs), len(cl.done[1].recs)
		cl.nodes[c.failOn-1].SetFailLoc(0x1000f201, 3)
		for i := 0; i < 4; i++ {
			if c.get {
				cl.get(t, 1, 2, 1<<20)
			} else {
				cl.put(t, 1, 2, 1<<20)
			}
		}
		cl.run(t, 200*sim.Second)
		a, b := cl.fmrPools(t, 1), cl.fmrPools(t, 2)
		if a.Maps != c.mapsA || b.Maps != c.mapsB || a.MapErrors != c.errsA || b.MapErrors != c.errsB ||
			a.Unmaps != a.Maps || b.Unmaps != b.Maps || a.InUse != 0 || b.InUse != 0 || a.Pools != 1 || b.Pools != 1 {
			t.Errorf("fail on n%d, get %v: A %+v, B %+v; want %d/%d maps, %d/%d errors, all back", c.failOn, c.get, a, b, c.mapsA, c.mapsB, c.errsA, c.errsB)
		}
		reqType, rspType := lnet.MsgPUT, lnet.MsgPUT
		if c.get {
			reqType, rspType = lnet.MsgGET, lnet.MsgREPLY
		}
		var gotA, gotB []rec
		for _, r := range cl.done[0].recs[na:] {
			if r.Type == reqType && !r.Received {
				gotA = append(gotA, rec{r.Status, r.HStatus})
			}
		}
		for _, r := range cl.done[1].recs[nb:] {
			if r.Type == rspType && r.Received != c.get {
				gotB = append(gotB, rec{r.Status, r.HStatus})
			}
		}
		if !slices.Equal(gotA, c.initiator) || !slices.Equal(gotB, c.responder) {
			t.Errorf("fail on n%d, get %v: A's %v %v, B's %v %v; want %v and %v", c.failOn, c.get, reqType, gotA, rspType, gotB, c.initiator, c.responder)
		}
	}
}

// Up to 2.17 (NoFailO2IBFMRMapShort) o2iblnd has no CFS_FAIL_O2IBLND_FMR_MAP_SHORT check:
// the same fail_loc fails no map and is never checked (no CFS_FAILED, no count spent);
// master's is spent after the two failures (CFS_FAILED and CFS_FAIL_ONCE added).
func TestFMRMapShortRelease(t *testing.T) {
	for _, name := range []string{"2.12", "2.15", "2.16", "2.17", "master"} {
		rel, err := lnet.LookupRelease(name)
		if err != nil {
			t.Fatal(err)
		}
		cl := newCluster(t, clusterOpt{tun: rel.Tunables(), noTrace: true})
		cl.put(t, 1, 2, 1<<20)
		cl.run(t, sim.Second)
		cl.nodes[0].SetFailLoc(0x1000f201, 3)
		for i := 0; i < 4; i++ {
			cl.put(t, 1, 2, 1<<20)
		}
		cl.run(t, 10*sim.Second)
		wantErrs, wantLoc := uint64(0), uint32(0x1000f201)
		if name == "master" {
			wantErrs, wantLoc = 2, 0xd000f201
		}
		a := cl.fmrPools(t, 1)
		loc, _ := cl.nodes[0].FailLoc()
		if a.Maps != 6-wantErrs || a.MapErrors != wantErrs || a.InUse != 0 || loc != wantLoc {
			t.Errorf("%s sender: %+v, fail_loc %#x after; want %d maps, %d errors, fail_loc %#x", name, a, loc, 6-wantErrs, wantErrs, wantLoc)
		}
	}
}

// kiblnd_fmr_pool_map grows the set by a pool of the set's size when every descriptor is
// taken; kiblnd_fmr_pool_unmap frees a grown pool once nothing holds it and its deadline
// (300 s after its last map) has passed, never the first.
func TestFMRPoolGrowth(t *testing.T) {
	cl := newCluster(t, clusterOpt{noTrace: true})
	n := cl.nodes[0].NIs()[0].LNDData.(*kibNet)
	l := cl.lnd
	var txs []*tx
	for i := 0; i < 513; i++ {
		tx := l.getIdleTx(n)
		if err := l.fmrMap(n, tx, 0); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	if got := cl.fmrPools(t, 1); got != (FMRPools{Pools: 2, Descs: 1024, InUse: 513, FMRStats: FMRStats{Maps: 513, Grown: 1}}) {
		t.Fatalf("513 maps: %+v", got)
	}
	for _, tx := range txs[:512] {
		l.txDone(tx)
	}
	if got := cl.fmrPools(t, 1); got.Pools != 2 || got.InUse != 1 || got.Freed != 0 {
		t.Fatalf("512 back at once: %+v, want the grown pool kept (held, and before its deadline)", got)
	}
	cl.run(t, 299*sim.Second)
	tx := l.getIdleTx(n)
	if err := l.fmrMap(n, tx, 0); err != nil { // from the first pool, which had one free
		t.Fatal(err)
	}
	l.txDone(txs[512])
	if got := cl.fmrPools(t, 1); got.Pools != 2 || got.InUse != 1 || got.Freed != 0 {
		t.Fatalf("at 299 s: %+v, want the idle grown pool kept (deadline 300 s)", got)
	}
	cl.run(t, sim.Second)
	l.txDone(tx)
	if got := cl.fmrPools(t, 1); got != (FMRPools{Pools: 1, Descs: 512, FMRStats: FMRStats{Maps: 514, Unmaps: 514, Grown: 1, Freed: 1}}) {
		t.Fatalf("at 300 s: %+v, want the grown pool freed", got)
	}
}
