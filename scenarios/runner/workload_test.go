package runner

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

const opEventsScenario = `
name: op-events
seed: 1
duration: 1s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: io, type: brw, op: write, from: client, to: server, size: 4KiB}
expect:
  - {name: nothing lost, check: nothing_lost}
`

// newTestOp builds the scenario's cluster and workloads as Run does (without running) and
// returns a fresh operation of the first stream. It has no MD: the test plays LNet's events
// itself (a real MD would also deliver the UNLINK of finish's MDUnlink).
func newTestOp(t *testing.T) *op {
	t.Helper()
	s := load(t, opEventsScenario)
	p, err := prepare(s, s.Seed, "ideal")
	if err != nil {
		t.Fatal(err)
	}
	ws := p.ws
	st := ws.list[0].streams[0]
	o := &op{stream: st, target: st.targets[0], size: 4096}
	st.cur = o
	st.workload.started++
	return o
}

// TestOpEndsOnceOnLaterEvents feeds an operation the event sequences LNet delivers and checks
// that each ends it exactly once, with the first terminal event's outcome, and that the
// sequences LNet cannot deliver are counted (nothing_lost) rather than hidden.
func TestOpEndsOnceOnLaterEvents(t *testing.T) {
	ev := func(typ lnet.EventType, status int, unlinked bool) *lnet.Event {
		return &lnet.Event{Type: typ, Status: status, Unlinked: unlinked}
	}
	cases := []struct {
		name              string
		events            []*lnet.Event
		completed, failed int
		bad               int
	}{
		{"SEND then ACK", []*lnet.Event{ev(lnet.EventSEND, 0, false), ev(lnet.EventACK, 0, true)}, 1, 0, 0},
		// link-loss-finalize: the target's ACK overtakes the PUT's send completion (an RC
		// retransmission delays it); the operation ended on the ACK unlinked the MD, so the
		// late SEND reports -ETIMEDOUT (lnet_msg_detach_md on an aborted MD).
		{"ACK before the PUT's SEND completes", []*lnet.Event{ev(lnet.EventACK, 0, false), ev(lnet.EventSEND, -lnet.ETIMEDOUT, true)}, 1, 0, 0},
		{"ACK, then the PUT's SEND fails", []*lnet.Event{ev(lnet.EventACK, 0, false), ev(lnet.EventSEND, -lnet.EIO, true)}, 1, 0, 0},
		// get-target-hca-fatal: kiblnd_tx_done finalizes the optimized GET's REPLY with the
		// error while the GET itself is queued for resend; the resend then finds the MD unlinked.
		{"failed REPLY, then the GET's cancelled resend", []*lnet.Event{ev(lnet.EventREPLY, -lnet.EIO, false), ev(lnet.EventSEND, -lnet.ECANCELED, true)}, 0, 1, 0},
		{"failed SEND, then our unlink", []*lnet.Event{ev(lnet.EventSEND, -lnet.EIO, false), ev(lnet.EventUNLINK, 0, true)}, 0, 1, 0},
		{"response timeout", []*lnet.Event{ev(lnet.EventSEND, 0, false), {Type: lnet.EventUNLINK, Unlinked: true, RspTimeout: true}}, 0, 1, 0},
		{"two ACKs", []*lnet.Event{ev(lnet.EventSEND, 0, false), ev(lnet.EventACK, 0, false), ev(lnet.EventACK, 0, true)}, 1, 0, 1},
		{"two SENDs", []*lnet.Event{ev(lnet.EventSEND, -lnet.EIO, false), ev(lnet.EventSEND, -lnet.EIO, true)}, 0, 1, 1},
		{"an event after the unlinked one", []*lnet.Event{ev(lnet.EventSEND, 0, false), ev(lnet.EventACK, 0, true), ev(lnet.EventSEND, 0, false), ev(lnet.EventACK, 0, false)}, 1, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOp(t)
			w := o.stream.workload
			for _, e := range tc.events {
				o.OnEvent(e)
			}
			if !o.done || w.completed != tc.completed || w.failed != tc.failed || w.dup != tc.bad {
				t.Fatalf("done %v, completed %d failed %d bad %d; want completed %d failed %d bad %d",
					o.done, w.completed, w.failed, w.dup, tc.completed, tc.failed, tc.bad)
			}
			if o.status != tc.events[0].Status && tc.events[0].Type != lnet.EventSEND {
				t.Fatalf("status %d, want the first terminal event's %d", o.status, tc.events[0].Status)
			}
		})
	}
}

// TestRPCServerBulkMovesOnOnce feeds a server bulk MD's handler the event sequences LNet
// delivers: its request slot must be released (or answered) once, or a later request would
// share it.
func TestRPCServerBulkMovesOnOnce(t *testing.T) {
	o := newTestOp(t)
	w := o.stream.workload
	s := &rpcServer{workload: w, node: o.target}
	ev := func(typ lnet.EventType, status int, unlinked bool) *lnet.Event {
		return &lnet.Event{Type: typ, Status: status, Unlinked: unlinked}
	}
	// An RDMA GET of the client's data fails: the REPLY o2iblnd finalizes with the GET, then
	// the GET's SEND once its resend is refused.
	slot := s.alloc(rpcReq{client: o.stream.src.nids[0], xid: 1})
	h := &rpcServerEvent{s: s, slot: slot, kind: 1}
	h.OnEvent(ev(lnet.EventREPLY, -lnet.EIO, false))
	h.OnEvent(ev(lnet.EventSEND, -lnet.EIO, true))
	if len(s.free) != 1 {
		t.Fatalf("slot released %d times", len(s.free))
	}
	// A bulk PUT's ACK arrives before its SEND completes in error: the reply goes, the slot
	// stays in use until the reply's SEND.
	slot = s.alloc(rpcReq{client: o.stream.src.nids[0], xid: 2})
	h = &rpcServerEvent{s: s, slot: slot, kind: 1}
	h.OnEvent(ev(lnet.EventACK, 0, false))
	h.OnEvent(ev(lnet.EventSEND, -lnet.EIO, true))
	if len(s.free) != 0 {
		t.Fatalf("slot released while its reply is being sent")
	}
}

// A ping workload's timeout works as lnetctl ping's (lnet_ping): a ping whose GET is dropped
// at the target gets no REPLY, its MD is unlinked at the timeout and it fails there (-EIO),
// instead of waiting for the response tracker (transaction_timeout). Pings start at 1 s,
// 4 s and 7 s (timeout 2 s, then the 1 s interval) and fail at 3 s, 6 s and 9 s; a second
// workload without timeout gets lnetctl's 1 s.
func TestPingTimeout(t *testing.T) {
	src := `
name: ping-timeout
duration: 20s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
lnet: {retry_count: 0}
workload:
  - {name: p, type: ping, from: client, to: server, count: 3, timeout: 2s, start: 1s}
  - {name: d, type: ping, from: server, to: client, count: 1, start: 1s}
faults:
  - {at: 0s, action: drop_rule_add, node: server, name: gets, rule: {src: client, dst: "*", rate: 1, message: [get]}}
  - {at: 0s, action: drop_rule_add, node: client, name: gets2, rule: {src: server, dst: "*", rate: 1, message: [get]}}
expect:
  - {name: first at 3s, check: operations, workload: p, status: failed, from: 3s, at: 3s, eq: 1}
  - {name: second at 6s, check: operations, workload: p, status: failed, from: 6s, at: 6s, eq: 1}
  - {name: third at 9s, check: operations, workload: p, status: failed, from: 9s, at: 9s, eq: 1}
  - {name: none completes, check: operations, workload: p, status: ok, eq: 0}
  - {name: default 1s, check: operations, workload: d, status: failed, from: 2s, at: 2s, eq: 1}
  - {name: nothing lost, check: nothing_lost}
`
	res := runPassing(t, src)
	if m := res.Summary.Metrics; m["p.ops_failed"] != 3 || m["d.ops_failed"] != 1 {
		t.Fatalf("failed pings %v and %v, want 3 and 1", m["p.ops_failed"], m["d.ops_failed"])
	}
}

// A workload's count is per source (REFERENCE.md), shared by the source's concurrent
// streams: two clients, count 5 with concurrency 4, make 10 writes, not 2 x 4 x 5.
func TestCountPerSource(t *testing.T) {
	src := `
name: count-per-source
duration: 5s
nodes:
  client: {count: 2, nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 4KiB, count: 5, concurrency: 4}
`
	res := runPassing(t, src)
	if m := res.Summary.Metrics; m["w.ops_completed"] != 10 || m["w.ops_failed"] != 0 {
		t.Fatalf("completed %v, failed %v, want 10 and 0", m["w.ops_completed"], m["w.ops_failed"])
	}
}
