package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
	"github.com/lnetsim/lnetsim/trace/chrome"
)

// timeline writes a Chrome trace-event file of a run: one process per node, one thread per
// NI; each LNet message an async span from its first send to its finalize (resends marked
// inside it), health values as counter tracks, NI status changes and faults as instants.
type timeline struct {
	file   *atomicFile
	chrome *chrome.Writer
	where  map[lnet.NID][2]int // NI -> (pid, tid) (lookups only)
	pidOf  map[string]int      // node -> pid (lookups only)
	open   map[msgKey]bool     // spans begun and not ended (lookups only)
	nextID uint64
	ids    map[msgKey]uint64
}

func newTimeline(path string, c *cluster) (*timeline, error) {
	f, err := createAtomic(path, "trace")
	if err != nil {
		return nil, err
	}
	t := &timeline{file: f, chrome: chrome.NewWriter(f), where: map[lnet.NID][2]int{},
		pidOf: map[string]int{}, open: map[msgKey]bool{}, ids: map[msgKey]uint64{}}
	for i, n := range c.nodes {
		pid := i + 1
		t.pidOf[n.name] = pid
		t.chrome.ProcessName(pid, n.name)
		for j, nid := range n.nids {
			t.where[nid] = [2]int{pid, j + 1}
			t.chrome.ThreadName(pid, j+1, nid.String())
		}
	}
	return t, nil
}

func (t *timeline) MsgAttempt(node string, id uint64, attempt int, at sim.Time, txNI, nextHop lnet.NID) {
	k := msgKey{node, id}
	w := t.where[txNI]
	if !t.open[k] {
		t.open[k] = true
		t.nextID++
		t.ids[k] = t.nextID
		t.chrome.Begin(at, w[0], w[1], "lnet", "message", t.nextID, chrome.Args{"via": txNI.String() + ">" + nextHop.String()})
		return
	}
	t.chrome.Instant(at, w[0], w[1], "lnet", "resend", chrome.Args{"attempt": attempt, "via": txNI.String() + ">" + nextHop.String(), "msg": t.ids[k]})
}

func (t *timeline) MsgDone(r *lnet.MsgRecord) {
	k := msgKey{r.Node, r.ID}
	if r.Received || !t.open[k] {
		return
	}
	delete(t.open, k)
	id := t.ids[k]
	delete(t.ids, k)
	pid := t.pidOf[r.Node]
	t.chrome.End(r.End, pid, 0, "lnet", "message", id, chrome.Args{
		"type": r.Type.String(), "src": r.Src.String(), "dst": r.Dst.String(), "size": r.Size,
		"hstatus": hstatusName(r.HStatus), "resends": r.Resends})
}

func (t *timeline) HealthChange(at sim.Time, node string, nid lnet.NID, local bool, _, new int, _ lnet.HealthCause) {
	name := "peer NI health " + nid.String()
	if local {
		name = "NI health " + nid.String()
	}
	t.chrome.Counter(at, t.pidOf[node], name, chrome.Args{"health": new})
}

func (t *timeline) NIStatusChange(at sim.Time, node string, nid lnet.NID, old, new lnet.NIStatus) {
	w := t.where[nid]
	t.chrome.Instant(at, w[0], w[1], "ni", "NI status "+new.String(), chrome.Args{"from": old.String()})
}

// fault marks a fault on the node it concerns (pid 0 = the whole cluster).
func (t *timeline) fault(at sim.Time, kind, target string) {
	t.chrome.Instant(at, 0, 0, "fault", kind, chrome.Args{"target": target})
}

func (t *timeline) close(ok bool, other chrome.Args) error {
	return t.file.finish(ok, t.chrome.Close(other))
}

// tracerSet is what the run's nodes report to: the collector, then further tracers (the
// timeline), which may be added after the nodes got the set. Each node reports through its
// own nodeTracer (forNode).
type tracerSet struct {
	col  *collector
	list []lnet.Tracer
}

// forNode returns the tracer of the node with index idx.
func (ts *tracerSet) forNode(idx int) lnet.Tracer { return &nodeTracer{ts: ts, idx: idx} }

// nodeTracer is one node's lnet.Tracer: it hands the collector the node's index with each
// call, and the other tracers the call as LNet made it.
type nodeTracer struct {
	ts  *tracerSet
	idx int
}

func (nt *nodeTracer) MsgAttempt(node string, id uint64, attempt int, at sim.Time, txNI, nextHop lnet.NID) {
	nt.ts.col.attempt(nt.idx, id, at, txNI, nextHop)
	for _, t := range nt.ts.list {
		t.MsgAttempt(node, id, attempt, at, txNI, nextHop)
	}
}

func (nt *nodeTracer) MsgDone(r *lnet.MsgRecord) {
	nt.ts.col.done(nt.idx, r)
	for _, t := range nt.ts.list {
		t.MsgDone(r)
	}
}

func (nt *nodeTracer) HealthChange(at sim.Time, node string, nid lnet.NID, local bool, old, new int, c lnet.HealthCause) {
	nt.ts.col.HealthChange(at, node, nid, local, old, new, c)
	for _, t := range nt.ts.list {
		t.HealthChange(at, node, nid, local, old, new, c)
	}
}

func (nt *nodeTracer) NIStatusChange(at sim.Time, node string, nid lnet.NID, old, new lnet.NIStatus) {
	nt.ts.col.NIStatusChange(at, node, nid, old, new)
	for _, t := range nt.ts.list {
		t.NIStatusChange(at, node, nid, old, new)
	}
}
