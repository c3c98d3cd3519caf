package o2ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// This file is o2iblnd's fast memory registration: the FastReg descriptors a tx takes to map
// the pages an RDMA reads or writes (kib_fmr_poolset, kib_fmr_pool and
// kib_fast_reg_descriptor in the kernel). The model's HCA is a FastReg device on a kernel
// without global memory regions, so every mapping goes through these pools whatever
// map_on_demand says (the kernel reads 0 as 1 there). Descriptors are counted, not kept:
// the model maps no pages and posts no LOCAL_INV or REG_MR work request (the region of the
// device, dev.mr, still stands for every key), so the pools add no virtual time and change
// no message; what they model is the accounting a map, its failure and the unmap at
// kiblnd_tx_done do.

// Pool constants (o2iblnd.h).
const (
	fmrPoolMin      = 256              // IBLND_FMR_POOL: the smallest pool per CPT
	fmrPoolFlushMin = 192              // IBLND_FMR_POOL_FLUSH: the smallest flush trigger per CPT
	poolDeadline    = 300 * sim.Second // IBLND_POOL_DEADLINE: an idle grown pool is freed after it
	poolDeadlineSec = poolDeadline / sim.Second
)

// errMapShort is the error of a map whose scatterlist came up short (ib_map_mr_sg mapping
// fewer fragments than asked): -EINVAL, which kiblnd_recv returns to LNet.
var errMapShort = fmt.Errorf("o2ib: FastReg map came up short: %w", lnet.Errno(-lnet.EINVAL))

// fmrPool is a kib_fmr_pool of FastReg descriptors: size of them, free on its list,
// mapCount maps holding the pool (fpo_map_count) and the deadline past which an idle pool
// other than its set's first is freed (fpo_deadline, whole seconds as ktime_get_seconds).
type fmrPool struct {
	set      *fmrPoolset
	size     int
	free     int
	mapCount int
	deadline int64
}

// fmrPoolset is a kib_fmr_poolset: one CPT's pools of a net (its first one kept for the
// life of the net), their size and flush trigger (the tunables over the CPTs, at least the
// kernel's minimums; the flush trigger and fmr_cache are FMR's, not FastReg's, so kept
// only), and version, bumped whenever a pool comes or goes (fps_version).
type fmrPoolset struct {
	cpt          int
	poolSize     int
	flushTrigger int
	cache        int
	pools        []*fmrPool
	version      uint64
}

// fmrNet is a net's FastReg state (kib_net's ibn_fmr_ps) with its counters.
type fmrNet struct {
	sets []fmrPoolset
	FMRStats
}

// FMRStats are a net's FastReg counters: no lnetctl command prints them, so they are the
// model's (tests and scenario expectations).
type FMRStats struct {
	Maps      uint64 // descriptors taken by a successful map
	MapErrors uint64 // maps that failed (the descriptor went back to its pool)
	Unmaps    uint64 // descriptors given back at kiblnd_tx_done (kiblnd_fmr_pool_unmap)
	Grown     uint64 // pools added to a set whose pools were all in use
	Freed     uint64 // idle grown pools freed by an unmap
}

// FMRPools is a net's FastReg pools as counted at one moment: pools, descriptors in them,
// descriptors taken (mapped and not yet given back) and the counters.
type FMRPools struct {
	Pools, Descs, InUse int
	FMRStats
}

// fmrPoolSizes are kiblnd_fmr_pool_size and kiblnd_fmr_flush_trigger: the tunable split over
// the NI's CPTs, at least the kernel's minimum.
func fmrPoolSizes(p Params, ncpts int) (size, flush int) {
	return max(fmrPoolMin, p.FMRPoolSize/ncpts), max(fmrPoolFlushMin, p.FMRFlushTrigger/ncpts)
}

// checkFMRPoolSize is kiblnd_net_init_pools' refusal: a pool smaller than a quarter of ntx.
func checkFMRPoolSize(p Params) error {
	if p.FMRPoolSize < p.NTx/4 {
		return fmt.Errorf("o2ib: can't set fmr_pool_size (%d) < ntx / 4 (%d)", p.FMRPoolSize, p.NTx/4)
	}
	return nil
}

// initFMR models kiblnd_net_init_pools' FastReg half (kiblnd_init_fmr_poolset for each CPT
// of the NI, each with its first pool, kiblnd_create_fmr_pool).
func (n *kibNet) initFMR(ncpts int) {
	size, flush := fmrPoolSizes(n.tun.Params, ncpts)
	f := &fmrNet{sets: make([]fmrPoolset, ncpts)}
	for c := range f.sets {
		ps := &f.sets[c]
		*ps = fmrPoolset{cpt: c, poolSize: size, flushTrigger: flush, cache: n.tun.FMRCache}
		ps.pools = append(ps.pools, ps.newPool(n.l.nowSec()))
	}
	n.fmr = f
}

// nowSec is ktime_get_seconds: virtual time in whole seconds.
func (l *LND) nowSec() int64 { return int64(l.k.Now() / sim.Second) }

// newPool models kiblnd_create_fmr_pool with kiblnd_alloc_freg_pool: poolSize descriptors,
// all free, the pool's deadline IBLND_POOL_DEADLINE away. The model's allocation never
// fails, so fps_next_retry's back-off is never armed.
func (ps *fmrPoolset) newPool(now int64) *fmrPool {
	return &fmrPool{set: ps, size: ps.poolSize, free: ps.poolSize, deadline: now + int64(poolDeadlineSec)}
}

// fmrMap models kiblnd_fmr_map_tx and kiblnd_fmr_pool_map for a FastReg device: the tx takes
// a descriptor from the first pool of its CPT's set that has one, each pool tried getting a
// new deadline; when every pool is in use a new one joins the set and the search starts
// again. Then ib_map_mr_sg maps the pages; the model's always map whole, unless fail_loc
// CFS_FAIL_O2IBLND_FMR_MAP_SHORT makes it come up short, which fails the map with -EINVAL
// after giving the descriptor back to its pool and dropping the pool's map count (LU-20400:
// before it the descriptor and the count leaked, but there was no check point to make a
// model map fail either). cpt is the CPT of the tx's pool, chosen by the peer's NID.
func (l *LND) fmrMap(n *kibNet, t *tx, cpt int) error {
	ps := &n.fmr.sets[cpt]
	now := l.nowSec()
	for {
		for _, p := range ps.pools {
			p.deadline = now + int64(poolDeadlineSec)
			if p.free == 0 {
				continue // the kernel counts a map on it and takes it back: -EAGAIN, next pool
			}
			p.free--
			p.mapCount++
			if n.node.FailCheck(lnet.FailO2IBFMRMapShort) {
				p.free++
				p.mapCount--
				n.fmr.MapErrors++
				return errMapShort
			}
			t.fmr = p
			n.fmr.Maps++
			return nil
		}
		ps.pools = append(ps.pools, ps.newPool(now))
		ps.version++
		n.fmr.Grown++
	}
}

// fmrUnmap models kiblnd_unmap_tx's FastReg part, kiblnd_fmr_pool_unmap: the tx's descriptor
// goes back to its pool, whose map count drops, and every pool of the set but the first
// that nothing holds and whose deadline has passed is freed.
func (l *LND) fmrUnmap(t *tx) {
	p := t.fmr
	t.fmr = nil
	p.free++
	p.mapCount--
	ps := p.set
	f := t.net.fmr
	f.Unmaps++
	now := l.nowSec()
	keep := ps.pools[:1]
	for _, q := range ps.pools[1:] {
		if q.mapCount == 0 && now >= q.deadline {
			ps.version++
			f.Freed++
			continue
		}
		keep = append(keep, q)
	}
	clear(ps.pools[len(keep):])
	ps.pools = keep
}

// FMRPools returns the FastReg pools of ni's net (false when o2iblnd does not run ni).
func (l *LND) FMRPools(ni *lnet.NI) (FMRPools, bool) {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.l != l || n.fmr == nil {
		return FMRPools{}, false
	}
	return n.fmr.pools(), true
}

// pools counts the net's pools and descriptors.
func (f *fmrNet) pools() FMRPools {
	out := FMRPools{FMRStats: f.FMRStats}
	for i := range f.sets {
		for _, p := range f.sets[i].pools {
			out.Pools++
			out.Descs += p.size
			out.InUse += p.size - p.free
		}
	}
	return out
}
