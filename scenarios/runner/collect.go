package runner

import (
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// msgKey names a message on its node.
type msgKey struct {
	node string
	id   uint64
}

// attempt is one hand-off of a message to the LND.
type attempt struct {
	t           sim.Time
	txNI, nextH lnet.NID
}

// collector is the run's lnet.Tracer. It streams message and health rows to the results
// directory as they happen and feeds the expectations' accumulators, keeping only what
// messages still in flight need: memory stays bounded however long the run.
//
// Each node reports through its own nodeTracer, so the collector keys a message's attempts
// by the node's index and the message id rather than hashing the node's name on every
// hand-off; one map for the whole cluster keeps its header and directory in cache, and the
// first attempt lives in the map's slot (most messages have no other).
type collector struct {
	cluster   *cluster
	workloads *workloads
	checker   *checker
	out       *record.Run // nil: no results directory
	// pending holds the attempts of messages not yet finalized (lookups only). Attempts are
	// kept only when something reads them (keepAttempts): the message rows of a results
	// directory or a path expectation.
	pending      map[uint64]pendAttempts  // by pendKey.packed (a uint64 key hashes fastest)
	wide         map[pendKey]pendAttempts // keys too wide to pack (never in practice)
	keepAttempts bool
	atts         []attempt   // the finalized message's attempts, reused
	free         [][]attempt // emptied resend slices of finalized messages, for reuse
	hops         []string
	names        nidNames
	msgs         int
	failed       int
	health       []record.HealthChange // kept: few, and the story prints them
}

// pendKey names a message in flight: its node's index and its id on that node.
type pendKey struct {
	id  uint64
	idx int
}

// packed returns k as one uint64 (the node index in the top 20 bits, the id below), and
// false if it does not fit: a node's message ids count its messages, far below 2^44.
func (k pendKey) packed() (uint64, bool) {
	if k.id >= 1<<44 || k.idx < 0 || k.idx >= 1<<20 {
		return 0, false
	}
	return uint64(k.idx)<<44 | k.id, true
}

// take removes and returns the attempts pending for k.
func (col *collector) take(k pendKey) (pendAttempts, bool) {
	if pk, ok := k.packed(); ok {
		p, found := col.pending[pk]
		if found {
			delete(col.pending, pk)
		}
		return p, found
	}
	p, found := col.wide[k]
	if found {
		delete(col.wide, k)
	}
	return p, found
}

// lookup returns the attempts pending for k.
func (col *collector) lookup(k pendKey) (pendAttempts, bool) {
	if pk, ok := k.packed(); ok {
		p, found := col.pending[pk]
		return p, found
	}
	p, found := col.wide[k]
	return p, found
}

// store sets the attempts pending for k.
func (col *collector) store(k pendKey, p pendAttempts) {
	if pk, ok := k.packed(); ok {
		col.pending[pk] = p
		return
	}
	if col.wide == nil {
		col.wide = map[pendKey]pendAttempts{}
	}
	col.wide[k] = p
}

// pendAttempts are a message's attempts so far: the first, then any resends.
type pendAttempts struct {
	first attempt
	more  []attempt
}

func newCollector() *collector {
	return &collector{pending: map[uint64]pendAttempts{}}
}

// setOut makes the collector write message rows to out, which reads every attempt.
func (col *collector) setOut(out *record.Run) {
	col.out = out
	col.keepAttempts = true
}

// nidNames caches the text of NIDs and of hops (txNI>nextHop): a run has a handful of each
// but writes them on every message row, so formatting them once keeps the per-message path
// free of allocation (lookups only: never iterated).
type nidNames struct {
	nids map[lnet.NID]string
	hops map[uint64]hopName     // by hopKey: one 64-bit key hashes fastest
	wide map[[2]lnet.NID]string // pairs whose hopKey another pair took
}

// hopName is a hop's text with the pair it names (hopKey is a hash, not the pair).
type hopName struct {
	tx, next lnet.NID
	s        string
}

func hopKey(tx, next lnet.NID) uint64 { return uint64(tx)*0x9E3779B97F4A7C15 ^ uint64(next) }

func (n *nidNames) nid(id lnet.NID) string {
	s, ok := n.nids[id]
	if !ok {
		if n.nids == nil {
			n.nids = map[lnet.NID]string{}
		}
		s = id.String()
		n.nids[id] = s
	}
	return s
}

func (n *nidNames) hop(tx, next lnet.NID) string {
	k := hopKey(tx, next)
	h, ok := n.hops[k]
	if ok && h.tx == tx && h.next == next {
		return h.s
	}
	if !ok {
		if n.hops == nil {
			n.hops = map[uint64]hopName{}
		}
		h = hopName{tx, next, n.nid(tx) + ">" + n.nid(next)}
		n.hops[k] = h
		return h.s
	}
	w := [2]lnet.NID{tx, next} // another pair has this key
	s, ok := n.wide[w]
	if !ok {
		if n.wide == nil {
			n.wide = map[[2]lnet.NID]string{}
		}
		s = n.nid(tx) + ">" + n.nid(next)
		n.wide[w] = s
	}
	return s
}

// attempt records the NIs chosen for one attempt of message id of node idx.
func (col *collector) attempt(idx int, id uint64, t sim.Time, txNI, nextHop lnet.NID) {
	if !col.keepAttempts {
		return
	}
	a := attempt{t: t, txNI: txNI, nextH: nextHop}
	k := pendKey{id: id, idx: idx}
	p, ok := col.lookup(k)
	if !ok {
		col.store(k, pendAttempts{first: a})
		return
	}
	if p.more == nil && len(col.free) > 0 {
		p.more = col.free[len(col.free)-1]
		col.free = col.free[:len(col.free)-1]
	}
	p.more = append(p.more, a)
	col.store(k, p)
}

// done streams a message node idx finalized and feeds the expectations.
func (col *collector) done(idx int, r *lnet.MsgRecord) {
	if r.Received {
		return
	}
	var atts []attempt
	if col.keepAttempts {
		if p, ok := col.take(pendKey{id: r.ID, idx: idx}); ok {
			atts = append(append(col.atts[:0], p.first), p.more...)
			col.atts = atts
			if p.more != nil {
				col.free = append(col.free, p.more[:0])
			}
		}
	}
	w := -1
	if col.checker.readsWorkloads() {
		w = col.workloads.attribute(r)
	}
	col.msgs++
	if !msgOK(r) {
		col.failed++
	}
	col.checker.onMsg(r, w, atts)
	if col.out != nil {
		col.hops = col.hops[:0]
		for _, a := range atts {
			col.hops = append(col.hops, col.names.hop(a.txNI, a.nextH))
		}
		col.out.Message(record.Message{
			ID: r.ID, Type: r.Type.String(), Src: col.names.nid(r.Src), Dst: col.names.nid(r.Dst), Path: col.hops,
			Size: int64(r.Size), Start: r.Start, End: r.End, Status: strconv.Itoa(r.Status),
			HStatus: hstatusName(r.HStatus), Resends: r.Resends,
		})
	}
}

func msgOK(r *lnet.MsgRecord) bool { return r.HStatus == lnet.LNET_MSG_STATUS_OK && r.Status == 0 }

// HealthChange records a health value change.
func (col *collector) HealthChange(t sim.Time, node string, nid lnet.NID, local bool, old, new int, cause lnet.HealthCause) {
	kind := "peer_ni"
	if local {
		kind = "ni"
	}
	h := record.HealthChange{Time: t, Node: node, Kind: kind, NID: nid.String(), Old: old, New: new, Cause: cause.String()}
	col.health = append(col.health, h)
	if col.out != nil {
		col.out.Health(h)
	}
}

// NIStatusChange records an NI status edge in faults.csv's neighbour, health.csv, as a
// change of kind ni_status (1 up, 0 down).
func (col *collector) NIStatusChange(t sim.Time, node string, nid lnet.NID, old, new lnet.NIStatus) {
	v := func(s lnet.NIStatus) int {
		if s == lnet.NIStatusUp {
			return 1
		}
		return 0
	}
	h := record.HealthChange{Time: t, Node: node, Kind: "ni_status", NID: nid.String(), Old: v(old), New: v(new), Cause: old.String() + "->" + new.String()}
	col.health = append(col.health, h)
	if col.out != nil {
		col.out.Health(h)
	}
}

// hstatusName is the form results files use: OK, LOCAL_TIMEOUT, ... (the kernel's
// LNET_MSG_STATUS_ names without the prefix).
func hstatusName(h lnet.HStatus) string { return hstatusUpper[h] }

// hstatusUpper holds hstatusName of every HStatus value, formatted once.
var hstatusUpper = func() (names [256]string) {
	for i := range names {
		names[i] = strings.ToUpper(lnet.HStatus(i).String())
	}
	return names
}()
