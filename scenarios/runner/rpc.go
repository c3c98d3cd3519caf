package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// The rpc workload is a ptlrpc-like exchange above LNet, in lnet_selftest's portals: the
// client PUTs a request (no ACK) to the server's request portal, with the RPC's xid as match
// bits; the server optionally moves the bulk (GETs it from the client: a write, or PUTs it to
// the client: a read), then PUTs the reply to the client's reply buffer. The client resends the
// request with a new xid when no reply came within the workload's timeout, up to max_resends,
// as ptlrpc does (with a fixed timeout: adaptive timeouts are not modelled).
const (
	rpcRequestPortal = 50 // SRPC_REQUEST_PORTAL
	rpcBulkPortal    = 52 // SRPC_RDMA_PORTAL: replies and bulk, told apart by match bits
	xidReply         = uint64(1) << 62
	xidBulk          = uint64(1) << 61
)

// rpcOp is one RPC attempt's client state; the op it serves finishes on the reply.
type rpcOp struct {
	o        *op
	xid      uint64
	replyMD  lnet.MDHandle
	bulkMD   lnet.MDHandle
	timer    sim.Timer
	resends  int
	finished bool
}

// Handlers' event kinds for rpc.
const evRPCTimeout = iota + 10

// issueRPC starts op o as an RPC (first attempt).
func (st *stream) issueRPC(o *op) {
	r := &rpcOp{o: o}
	o.rpc = r
	r.timer = sim.Timer{H: st.hid, Kind: evRPCTimeout}
	st.sendRPC(r)
}

// sendRPC posts the reply (and bulk) buffers and sends the request with a fresh xid.
func (st *stream) sendRPC(r *rpcOp) {
	w := st.workload
	ln := st.src.ln
	w.xid++
	r.xid = w.xid
	target := r.o.target.nids[0]
	r.replyMD = ln.MEAttach(lnet.MatchSpec{Portal: rpcBulkPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, MatchBits: r.xid | xidReply},
		lnet.MDSpec{Length: int(w.spec.ReplySize), Threshold: 1, Options: lnet.MD_OP_PUT | lnet.MD_TRUNCATE, Handler: r})
	switch w.spec.Bulk {
	case "get": // the server pulls the client's data: a write
		r.bulkMD = ln.MEAttach(lnet.MatchSpec{Portal: rpcBulkPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, MatchBits: r.xid | xidBulk},
			lnet.MDSpec{Length: int(w.spec.BulkSize), Threshold: 1, Options: lnet.MD_OP_GET, Handler: r})
	case "put": // the server pushes data into the client's buffer: a read
		r.bulkMD = ln.MEAttach(lnet.MatchSpec{Portal: rpcBulkPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, MatchBits: r.xid | xidBulk},
			lnet.MDSpec{Length: int(w.spec.BulkSize), Threshold: 1, Options: lnet.MD_OP_PUT, Handler: r})
	}
	req := ln.MDBind(lnet.MDSpec{Length: int(w.spec.RequestSize), Threshold: 1, Handler: r})
	if err := ln.Put(lnet.AnyNID, req, lnet.AckReqNone, target, uint32(w.rpcPortal()), r.xid, 0, 0); err != nil {
		st.rpcDone(r, -lnet.EIO)
		return
	}
	if w.spec.Timeout > 0 {
		ln.Kernel().ArmAfter(&r.timer, w.spec.Timeout)
	}
}

func (w *workload) rpcPortal() int {
	if w.spec.Portal >= 0 && w.spec.Portal != brwPortal {
		return w.spec.Portal
	}
	return rpcRequestPortal
}

// OnEvent completes the RPC on its reply; a failed request send is left to the timeout, as
// ptlrpc leaves it to its own timer.
func (r *rpcOp) OnEvent(ev *lnet.Event) {
	if r.finished {
		return
	}
	if ev.Type == lnet.EventPUT && ev.MatchBits == r.xid|xidReply {
		r.o.stream.rpcDone(r, ev.Status)
	}
}

// rpcTimeout resends or fails the RPC whose timer fired (arg: unused; the stream's current op).
func (st *stream) rpcTimeout() {
	o := st.cur
	if o == nil || o.rpc == nil || o.rpc.finished {
		return
	}
	r := o.rpc
	st.unlinkRPC(r)
	if r.resends >= st.workload.spec.MaxResends {
		st.rpcDone(r, -lnet.ETIMEDOUT)
		return
	}
	r.resends++
	st.workload.rpcResends++
	st.sendRPC(r)
}

func (st *stream) unlinkRPC(r *rpcOp) {
	ln := st.src.ln
	_ = ln.MDUnlink(r.replyMD)
	if !r.bulkMD.IsZero() {
		_ = ln.MDUnlink(r.bulkMD)
	}
}

func (st *stream) rpcDone(r *rpcOp, status int) {
	r.finished = true
	st.src.ln.Kernel().Disarm(&r.timer)
	st.unlinkRPC(r)
	r.o.finish(status)
}

// rpcServer answers the RPCs arriving at one server node.
type rpcServer struct {
	workload *workload
	node     *node
	reqs     []rpcReq
	free     []int
}

// rpcReq is one request being served.
type rpcReq struct {
	client lnet.NID
	xid    uint64
}

// rpcServerEvent tags which server MD an event belongs to.
type rpcServerEvent struct {
	s    *rpcServer
	slot int
	kind int  // 0 request portal, 1 bulk, 2 reply
	done bool // bulk, reply: the slot's next step was taken (once)
}

// attachRPCServer posts the request buffer of workload w on server n.
func attachRPCServer(w *workload, n *node) lnet.MDHandle {
	s := &rpcServer{workload: w, node: n}
	return n.ln.MEAttach(lnet.MatchSpec{Portal: uint32(w.rpcPortal()), Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		lnet.MDSpec{Length: int(w.spec.RequestSize), Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_TRUNCATE, Handler: &rpcServerEvent{s: s}})
}

// OnEvent drives a request through bulk and reply. A bulk or reply MD moves its request on
// once, on its first terminal event (a failure releases the slot, the bulk's ACK or REPLY
// sends the reply, the reply's SEND releases it): the later events LNet delivers on the same
// MD (the bulk PUT's SEND completing after its ACK, an RDMA GET's SEND after the failed
// REPLY o2iblnd finalizes with it) must not release or answer the slot a second time.
func (e *rpcServerEvent) OnEvent(ev *lnet.Event) {
	s := e.s
	switch e.kind {
	case 0:
		if ev.Type != lnet.EventPUT || ev.Status != 0 {
			return
		}
		slot := s.alloc(rpcReq{client: ev.Initiator, xid: ev.MatchBits})
		s.startBulk(slot)
	case 1:
		if e.done {
			return
		}
		switch {
		case ev.Status != 0 && (ev.Type == lnet.EventSEND || ev.Type == lnet.EventREPLY || ev.Type == lnet.EventACK):
			e.done = true
			s.release(e.slot) // the client will time out and resend
		case ev.Type == lnet.EventREPLY || ev.Type == lnet.EventACK:
			e.done = true
			s.reply(e.slot)
		}
	case 2:
		if ev.Type == lnet.EventSEND && !e.done {
			e.done = true
			s.release(e.slot)
		}
	}
}

func (s *rpcServer) alloc(r rpcReq) int {
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		s.reqs[i] = r
		return i
	}
	s.reqs = append(s.reqs, r)
	return len(s.reqs) - 1
}

func (s *rpcServer) release(slot int) { s.free = append(s.free, slot) }

// startBulk moves the bulk (or goes straight to the reply).
func (s *rpcServer) startBulk(slot int) {
	r := &s.reqs[slot]
	ln := s.node.ln
	switch s.workload.spec.Bulk {
	case "get":
		md := ln.MDBind(lnet.MDSpec{Length: int(s.workload.spec.BulkSize), Threshold: 2, Handler: &rpcServerEvent{s: s, slot: slot, kind: 1}})
		if err := ln.Get(lnet.AnyNID, md, r.client, rpcBulkPortal, r.xid|xidBulk, 0); err != nil {
			s.release(slot)
		}
	case "put":
		md := ln.MDBind(lnet.MDSpec{Length: int(s.workload.spec.BulkSize), Threshold: 2, Handler: &rpcServerEvent{s: s, slot: slot, kind: 1}})
		if err := ln.Put(lnet.AnyNID, md, lnet.AckReqAck, r.client, rpcBulkPortal, r.xid|xidBulk, 0, 0); err != nil {
			s.release(slot)
		}
	default:
		s.reply(slot)
	}
}

// reply sends the reply PUT (no ACK) to the client's reply buffer.
func (s *rpcServer) reply(slot int) {
	r := &s.reqs[slot]
	ln := s.node.ln
	md := ln.MDBind(lnet.MDSpec{Length: int(s.workload.spec.ReplySize), Threshold: 1, Handler: &rpcServerEvent{s: s, slot: slot, kind: 2}})
	if err := ln.Put(lnet.AnyNID, md, lnet.AckReqNone, r.client, rpcBulkPortal, r.xid|xidReply, 0, 0); err != nil {
		s.release(slot)
	}
}
