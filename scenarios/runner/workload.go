package runner

import (
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// Event kinds of stream handlers.
const (
	evStart       = iota + 1 // start (or continue) a stream: issue its next operation
	evPingTimeout            // a ping's timeout (arg: the stream's operation number)
)

// Ping timeouts as lnetctl ping has them: 1 s unless given, at most DEFAULT_PEER_TIMEOUT.
const (
	pingTimeoutDefault = sim.Second
	pingTimeoutMax     = 180 * sim.Second
)

// op is one workload operation: a PUT with ACK (brw write), a GET (brw read) or an LNet ping.
type op struct {
	stream *stream
	target *node
	start  sim.Time
	end    sim.Time
	size   int
	status int // 0 or a negative errno from the completing event
	sent   bool
	done   bool // the outcome is recorded (finish ran); it never changes after
	gaveUp bool // a ping whose timeout passed: its MD is unlinked, its UNLINK ends it
	md     lnet.MDHandle
	rpc    *rpcOp // the RPC state of an rpc workload's operation

	// The LNet events seen on the operation's MD (see OnEvent): SEND events, ACK or REPLY
	// events, whether one carried Unlinked (the MD's last), and whether an event arrived
	// that LNet cannot deliver (counted once in the workload's dup).
	sends, responses int
	unlinked, bad    bool
}

// stream is one of a source's concurrent operation streams.
type stream struct {
	workload *workload
	src      *node
	targets  []*node
	next     int // round-robin position in targets
	hid      sim.HandlerID
	cur      *op
	ops      int  // operations this stream issued
	issued   *int // operations its source issued, over all its streams (the `count` limit)
}

// workload is a running scenario workload.
type workload struct {
	idx       int
	workloads *workloads
	spec      *scenarios.Workload
	end       sim.Time // no operation starts after this
	from      map[string]bool
	to        map[string]bool
	msgType   lnet.MsgType // the request type: PUT (write) or GET (read, ping)
	streams   []*stream
	// Outcome counters: operations started, completed (ok), failed, and bad (an event LNet
	// cannot deliver, see op.OnEvent: reported by nothing_lost as finalized twice); the
	// latency of completed ones; payload bytes completed in all and since the last sample.
	started, completed, failed, dup int
	latency                         hist
	bytes, sampleBytes              int64
	xid                             uint64 // rpc: last xid used
	rpcResends                      int    // rpc: requests resent after a timeout
}

// workloads are all the run's workloads.
type workloads struct {
	cluster *cluster
	checker *checker
	list    []*workload
}

const brwPortal = 52 // SRPC_RDMA_PORTAL: lnet_selftest's bulk portal; Workload.Portal overrides it

// newWorkloads prepares every workload of s: targets, streams and the sink MEs on targets.
func newWorkloads(c *cluster, s *scenarios.Scenario) (*workloads, error) {
	ws := &workloads{cluster: c}
	for i := range s.Workload {
		spec := &s.Workload[i]
		w := &workload{idx: i, spec: spec, workloads: ws, from: map[string]bool{}, to: map[string]bool{}}
		switch spec.Type {
		case "brw":
			w.msgType = lnet.MsgPUT
			if spec.Op == "read" {
				w.msgType = lnet.MsgGET
			}
		case "ping":
			w.msgType = lnet.MsgGET
		case "rpc":
			w.msgType = lnet.MsgPUT
		default:
			return nil, fmt.Errorf("%w: workload %s: type %q (ping, brw and rpc are)", ErrUnsupported, spec.Name, spec.Type)
		}
		w.end = s.Duration
		if spec.Duration > 0 {
			w.end = min(w.end, spec.Start+spec.Duration)
		}
		srcs, dsts := c.members(spec.From), c.members(spec.To)
		if len(srcs) == 0 || len(dsts) == 0 {
			return nil, fmt.Errorf("workload %s: no sources or targets", spec.Name)
		}
		for _, n := range srcs {
			w.from[n.name] = true
		}
		for _, n := range dsts {
			w.to[n.name] = true
		}
		for si, src := range srcs {
			var targets []*node
			switch spec.Distribution {
			case "1:1":
				targets = []*node{dsts[si%len(dsts)]}
			default: // 1:n and all-to-all: every target, round robin
				targets = dsts
			}
			issued := new(int)
			for range max(1, spec.Concurrency) {
				st := &stream{workload: w, src: src, targets: targets, issued: issued}
				st.hid = c.k.Register(st)
				w.streams = append(w.streams, st)
			}
		}
		ws.list = append(ws.list, w)
		for _, n := range dsts {
			w.attachTarget(n)
		}
	}
	return ws, nil
}

// attachTarget posts what target n needs to serve w: the brw sink, or the rpc server's request
// buffer. A restarted node's fresh LNet gets them again.
func (w *workload) attachTarget(n *node) {
	switch w.spec.Type {
	case "rpc":
		n.targets = append(n.targets, attachRPCServer(w, n))
	case "brw":
		n.targets = append(n.targets, n.ln.MEAttach(lnet.MatchSpec{Portal: w.portal(), Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
			lnet.MDSpec{Length: int(w.spec.Size), Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_OP_GET | lnet.MD_TRUNCATE}))
	}
}

// nodeCrashed ends the operations in flight from n (its LNet is gone: they will never
// complete) as failed; n's streams pause until it restarts.
func (ws *workloads) nodeCrashed(n *node) {
	for _, w := range ws.list {
		for _, st := range w.streams {
			if st.src == n && st.cur != nil && !st.cur.done {
				o := st.cur
				o.done = true
				o.end, o.status = st.src.ln.Kernel().Now(), -lnet.ECONNABORTED
				w.failed++
				st.cur = nil
			}
		}
	}
}

// abortFrom ends the operations in flight from n as failed with ECONNABORTED (lustre_stop:
// the upper layer that issued them is gone while LNet still runs, so their MDs are unlinked).
func (ws *workloads) abortFrom(n *node) {
	for _, w := range ws.list {
		for _, st := range w.streams {
			if st.src == n && st.cur != nil {
				st.cur.finish(-lnet.ECONNABORTED)
			}
		}
	}
}

// nodeRestarted re-posts n's target buffers on its new LNet and resumes its streams.
func (ws *workloads) nodeRestarted(n *node) {
	n.targets = n.targets[:0]
	for _, w := range ws.list {
		if w.to[n.name] {
			w.attachTarget(n)
		}
		for _, st := range w.streams {
			if st.src == n && st.cur == nil {
				ws.cluster.k.After(0, st.hid, evStart, 0)
			}
		}
	}
}

func (w *workload) portal() uint32 {
	if w.spec.Portal >= 0 {
		return uint32(w.spec.Portal)
	}
	if w.spec.Type == "ping" {
		return lnet.ReservedPortal
	}
	return brwPortal
}

// start schedules every stream's first operation.
func (ws *workloads) start() {
	for _, w := range ws.list {
		for _, st := range w.streams {
			ws.cluster.k.Schedule(w.spec.Start, st.hid, evStart, 0)
		}
	}
}

// Handle starts the stream's next operation, or handles a ping or RPC timeout.
func (st *stream) Handle(kind int, arg uint64) {
	switch kind {
	case evStart:
		st.issue()
	case evPingTimeout:
		st.pingTimedOut(arg)
	case evRPCTimeout:
		st.rpcTimeout()
	}
}

// issue starts one operation, unless the workload's time or its source's count (shared by
// the source's concurrent streams) is used up.
func (st *stream) issue() {
	w := st.workload
	k := st.src.ln.Kernel()
	if st.src.down || st.src.stopped || st.cur != nil || k.Now() >= w.end || (w.spec.Count > 0 && *st.issued >= w.spec.Count) {
		return // a crashed or stopped source pauses; nodeRestarted resumes it
	}
	st.ops++
	*st.issued++
	o := &op{stream: st, target: st.targets[st.next%len(st.targets)], start: k.Now(), size: int(w.spec.Size)}
	st.next++
	switch w.spec.Type {
	case "ping":
		o.size = 0
	case "rpc":
		o.size = int(w.spec.BulkSize)
		if w.spec.Bulk == "" || w.spec.Bulk == "none" {
			o.size = int(w.spec.RequestSize)
		}
	}
	w.started++
	st.cur = o
	if w.spec.Type == "rpc" {
		st.issueRPC(o)
		return
	}
	ln := st.src.ln
	// Threshold 2: the request and its ACK or REPLY, as ptlrpc sizes its MDs, so that a
	// duplicate response (a resent request that had in fact arrived) finds no MD.
	o.md = ln.MDBind(lnet.MDSpec{Length: o.size, Threshold: 2, Handler: o, Options: lnet.MD_TRUNCATE})
	target := o.target.nids[0]
	var err error
	switch {
	case w.spec.Type == "ping":
		err = ln.Get(lnet.AnyNID, o.md, target, lnet.ReservedPortal, lnet.PingMatchBits, 0)
		k.After(w.pingTimeout(), st.hid, evPingTimeout, uint64(st.ops))
	case w.msgType == lnet.MsgPUT:
		err = ln.Put(lnet.AnyNID, o.md, lnet.AckReqAck, target, w.portal(), uint64(w.started), 0, 0)
	default:
		err = ln.Get(lnet.AnyNID, o.md, target, w.portal(), uint64(w.started), 0)
	}
	if err != nil {
		o.finish(-lnet.EIO)
	}
}

// pingTimeout is the ping's timeout as lnetctl ping applies it: `timeout`, 1 s when not
// given (lnetctl's default), at most 180 s (the kernel's cap in the ping ioctl).
func (w *workload) pingTimeout() sim.Time {
	if w.spec.Timeout <= 0 {
		return pingTimeoutDefault
	}
	return min(w.spec.Timeout, pingTimeoutMax)
}

// pingTimedOut models the end of lnet_ping's wait: without a REPLY by the timeout the MD is
// unlinked, and the ping ends with its UNLINK (at once if no message holds the MD, else when
// the GET finalizes): -EIO, or the error an earlier event carried. n is the operation's
// number in its stream: a ping that ended already is left alone.
func (st *stream) pingTimedOut(n uint64) {
	o := st.cur
	if o == nil || o.done || uint64(st.ops) != n {
		return
	}
	o.gaveUp = true
	_ = st.src.ln.MDUnlink(o.md)
}

// OnEvent records one LNet event on the operation's MD. The first terminal event decides
// the outcome: a failed SEND, the ACK (write) or REPLY (read, ping), or the response
// tracker's expiry (an UNLINK flagged RspTimeout). Later events on the same MD are LNet
// delivering the rest of its operations, as the kernel does (lnet_msg_detach_md: every
// message attached to the MD reports one event, and the one that leaves it unlinkable carries
// unlinked): the PUT's own SEND completing after its ACK (the target's ACK can overtake the
// initiator's send completion when an RC retransmission delays it), the GET's SEND after the
// failed REPLY that o2iblnd finalizes with it (kiblnd_tx_done), or the SEND of a message whose
// MD the operation's end unlinked (-ETIMEDOUT, -ECANCELED). They do not end the operation
// again. What LNet cannot deliver is an event after the unlinked one, a second SEND (a message
// reports SEND once, however often it is resent) or a second ACK/REPLY (the MD's threshold of
// 2 admits one response): those mark the operation bad, which nothing_lost reports as
// finalized twice, so that a model bug is not hidden.
func (o *op) OnEvent(ev *lnet.Event) {
	if o.unlinked {
		o.markBad()
		return
	}
	o.unlinked = ev.Unlinked
	switch ev.Type {
	case lnet.EventSEND:
		if o.sends++; o.sends > 1 {
			o.markBad()
			return
		}
		o.sent = true
		if ev.Status != 0 {
			o.finish(ev.Status)
		}
	case lnet.EventACK, lnet.EventREPLY:
		if o.responses++; o.responses > 1 {
			o.markBad()
			return
		}
		o.finish(ev.Status)
	case lnet.EventUNLINK:
		// The response tracker expired (no ACK or REPLY within transaction_timeout): LNet
		// unlinks the MD; the operation is over, timed out. (Other UNLINKs follow our own
		// MDUnlink of a finished operation.)
		if ev.RspTimeout {
			o.finish(-lnet.ETIMEDOUT)
		}
	}
	if ev.Unlinked && o.gaveUp {
		o.finish(-lnet.EIO) // lnet_ping: not replied, no error seen
	}
}

// markBad counts an operation that saw an event LNet cannot deliver (once per operation).
func (o *op) markBad() {
	if !o.bad {
		o.bad = true
		o.stream.workload.dup++
	}
}

// finish records the outcome and starts the stream's next operation after its interval. An
// operation ends exactly once: a later call (a later terminal event, see OnEvent) changes
// nothing.
func (o *op) finish(status int) {
	if o.done {
		return
	}
	st := o.stream
	w := st.workload
	o.done = true
	k := st.src.ln.Kernel()
	o.end, o.status = k.Now(), status
	if !o.md.IsZero() {
		_ = st.src.ln.MDUnlink(o.md)
	}
	if status == 0 {
		w.completed++
		w.latency.add(int64(o.end - o.start))
		w.bytes += int64(o.size)
		w.sampleBytes += int64(o.size)
	} else {
		w.failed++
	}
	st.workload.workloads.checker.onOp(o)
	if st.cur == o {
		st.cur = nil
		if !st.src.down {
			next := st.workload.interval()
			if status != 0 && o.end == o.start {
				// Failed at the instant it started (LNet or the LND refused it at once,
				// e.g. no route, or socklnd's reconnect backoff): the model has no CPU
				// time, so a closed loop would reissue at the same virtual instant forever.
				next = max(next, failedAtOncePause)
			}
			k.After(next, st.hid, evStart, 0)
		}
	}
}

// failedAtOncePause is how long a stream waits before its next operation after one that
// failed at the instant it started: a real tool spends CPU time on each try, the model none.
const failedAtOncePause = sim.Millisecond

func (w *workload) interval() sim.Time {
	if w.spec.Interval > 0 {
		return w.spec.Interval
	}
	if w.spec.Type == "ping" {
		return sim.Second
	}
	return 0
}

// attribute returns the workload a finalized message belongs to, or -1 (see the package doc).
func (ws *workloads) attribute(r *lnet.MsgRecord) int {
	dst := ws.cluster.owner[r.Dst]
	if dst == nil {
		return -1
	}
	for _, w := range ws.list {
		if w.spec.Type == "rpc" { // requests, bulk and replies flow both ways
			if (w.from[r.Node] && w.to[dst.name]) || (w.to[r.Node] && w.from[dst.name]) {
				return w.idx
			}
			continue
		}
		switch r.Type {
		case w.msgType:
			if w.from[r.Node] && w.to[dst.name] {
				return w.idx
			}
		case lnet.MsgACK, lnet.MsgREPLY:
			if (r.Type == lnet.MsgACK) == (w.msgType == lnet.MsgPUT) && w.to[r.Node] && w.from[dst.name] {
				return w.idx
			}
		}
	}
	return -1
}
