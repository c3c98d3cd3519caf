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
	key         msgKey
	txNI, nextH lnet.NID
}

// msgRow is a finalized message as the run keeps it.
type msgRow struct {
	rec      lnet.MsgRecord
	workload int // index into the scenario's workloads, or -1
	path     []string
}

// collector is the run's lnet.Tracer: it keeps messages, attempts and health changes in
// event order for the results files and the expectations.
type collector struct {
	c        *cluster
	wl       *workloads
	pending  map[msgKey][]string // hops of messages not yet finalized (lookups only)
	attempts []attempt
	msgs     []msgRow
	rxDone   int
	health   []record.HealthChange
	status   []record.HealthChange // NI status edges, kept as 0/1 values
	workOf   map[msgKey]int        // finalized message -> workload (lookups only)
}

func newCollector() *collector {
	return &collector{pending: map[msgKey][]string{}, workOf: map[msgKey]int{}}
}

// MsgAttempt records the NIs chosen for one attempt.
func (col *collector) MsgAttempt(node string, id uint64, _ int, t sim.Time, txNI, nextHop lnet.NID) {
	k := msgKey{node, id}
	col.pending[k] = append(col.pending[k], txNI.String()+">"+nextHop.String())
	col.attempts = append(col.attempts, attempt{t: t, key: k, txNI: txNI, nextH: nextHop})
}

// MsgDone records a finalized message.
func (col *collector) MsgDone(r *lnet.MsgRecord) {
	if r.Received {
		col.rxDone++
		return
	}
	k := msgKey{r.Node, r.ID}
	w := col.wl.attribute(r)
	col.msgs = append(col.msgs, msgRow{rec: *r, workload: w, path: col.pending[k]})
	delete(col.pending, k)
	col.workOf[k] = w
}

// HealthChange records a health value change.
func (col *collector) HealthChange(t sim.Time, node string, nid lnet.NID, local bool, old, new int, cause lnet.HealthCause) {
	kind := "peer_ni"
	if local {
		kind = "ni"
	}
	col.health = append(col.health, record.HealthChange{Time: t, Node: node, Kind: kind, NID: nid.String(), Old: old, New: new, Cause: cause.String()})
}

// NIStatusChange records an NI status edge.
func (col *collector) NIStatusChange(t sim.Time, node string, nid lnet.NID, old, new lnet.NIStatus) {
	col.status = append(col.status, record.HealthChange{Time: t, Node: node, Kind: "ni_status", NID: nid.String(), Cause: old.String() + "->" + new.String()})
}

// writeMessages writes messages.csv rows.
func (col *collector) writeMessages(run *record.Run) {
	for _, m := range col.msgs {
		r := &m.rec
		run.Message(record.Message{
			ID: r.ID, Type: r.Type.String(), Src: r.Src.String(), Dst: r.Dst.String(), Path: m.path,
			Size: int64(r.Size), Start: r.Start, End: r.End, Status: strconv.Itoa(r.Status),
			HStatus: hstatusName(r.HStatus), Resends: r.Resends,
		})
	}
}

// hstatusName is the form results files use: OK, LOCAL_TIMEOUT, ... (the kernel's
// LNET_MSG_STATUS_ names without the prefix).
func hstatusName(h lnet.HStatus) string { return strings.ToUpper(h.String()) }
