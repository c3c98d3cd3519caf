package ib

import (
	"errors"
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// QPState is a queue pair's state (enum ibv_qp_state).
type QPState uint8

// QP states.
const (
	QPReset QPState = iota
	QPInit
	QPRTR
	QPRTS
	QPSQD
	QPSQE
	QPErr
)

var qpStateNames = [...]string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}

// String returns the name the verbs and CM documentation use.
func (s QPState) String() string { return qpStateNames[s] }

// legalTransition reports whether ibv_modify_qp may move an RC QP from one state to another
// (the IB spec's QP state diagram): RESET->INIT, INIT->INIT, INIT->RTR, RTR->RTS, RTS->RTS,
// RTS->SQD, SQD->SQD, SQD->RTS, SQE->RTS, any->RESET and any->ERR. SQE is only entered by
// the hardware (and never by an RC QP in this model).
func legalTransition(from, to QPState) bool {
	switch to {
	case QPReset, QPErr:
		return true
	case QPInit:
		return from == QPReset || from == QPInit
	case QPRTR:
		return from == QPInit
	case QPRTS:
		return from == QPRTR || from == QPRTS || from == QPSQD || from == QPSQE
	case QPSQD:
		return from == QPRTS || from == QPSQD
	}
	return false
}

// Opcode is a send work request's operation (enum ibv_wr_opcode).
type Opcode uint8

// Send opcodes.
const (
	OpSend Opcode = iota
	OpWrite
	OpRead
)

var opNames = [...]string{"SEND", "RDMA_WRITE", "RDMA_READ"}

// String returns the name the verbs and CM documentation use.
func (o Opcode) String() string { return opNames[o] }

// SendWR is a send work request (struct ibv_send_wr with one scatter/gather element: only
// its length matters; bytes are not stored). Its fields are ordered by size so that a send
// queue entry takes 40 bytes, not 56.
type SendWR struct {
	ID  uint64
	Len int
	// Remote buffer of RDMA_WRITE/RDMA_READ: an rkey from RegMR and an offset in that region.
	RemoteAddr uint64
	RKey       uint32
	Op         Opcode
	Signaled   bool // IBV_SEND_SIGNALED: complete with a WC on success (errors always do)
	Inline     bool // IBV_SEND_INLINE: Len must not exceed QPInitAttr.MaxInline
}

// RecvWR is a receive work request (struct ibv_recv_wr): a buffer of Len bytes.
type RecvWR struct {
	ID  uint64
	Len int
}

// QPInitAttr are a QP's creation attributes (struct ibv_qp_init_attr, RC only).
type QPInitAttr struct {
	SendCQ, RecvCQ *CQ
	MaxSendWR      int // send queue depth
	MaxRecvWR      int // receive queue depth
	MaxInline      int // max_inline_data
	SignalAll      bool
	// EventHandler receives this QP's affiliated events (QP_FATAL, COMM_EST, SQ_DRAINED),
	// as ib_qp_init_attr.event_handler; nil sends them to the device handlers.
	EventHandler AsyncHandler
}

// QPAttr are the attributes ibv_modify_qp sets on a transition; each transition reads only
// its own fields, as the attribute mask would select them.
type QPAttr struct {
	Port int // INIT: port number (1-based) on the QP's HCA
	// RTR: the remote QP and its port's LID (the address vector), and the responder's
	// min_rnr_timer code (IB encoding: 1 = 0.01ms ... 31 = 491.52ms, 0 = 655.36ms).
	DestQPN     uint32
	DestLID     uint32
	MinRNRTimer uint8
	// RTR: max_dest_rd_atomic, the responder resources: RDMA READs from the peer this QP
	// holds at once (0: it accepts none). At most DeviceAttr.MaxQPRdAtom.
	MaxDestRdAtomic uint8
	// RTS: local_ack_timeout exponent (4.096us * 2^Timeout, 0 = infinite), retry_cnt (0..7)
	// and rnr_retry (0..7, 7 = retry forever).
	Timeout  uint8
	RetryCnt uint8
	RNRRetry uint8
	// RTS: max_rd_atomic, the initiator depth: RDMA READs this QP has outstanding at once
	// (0: it may post none). At most DeviceAttr.MaxQPInitRdAtom.
	MaxRdAtomic uint8
}

// DeviceAttr are the device limits ibv_query_device reports that the model enforces.
type DeviceAttr struct {
	MaxQPWR int // max_qp_wr: largest send or receive queue
	MaxCQE  int // max_cqe: largest CQ
	// max_qp_rd_atom and max_qp_init_rd_atom: largest responder resources and initiator
	// depth of a QP.
	MaxQPRdAtom, MaxQPInitRdAtom int
}

// DefaultDeviceAttr are ConnectX-like limits.
var DefaultDeviceAttr = DeviceAttr{MaxQPWR: 32768, MaxCQE: 4194303, MaxQPRdAtom: 16, MaxQPInitRdAtom: 16}

// Attr returns the HCA's limits (ibv_query_device).
func (h *HCA) Attr() DeviceAttr { return h.attr }

// SetAttr changes the HCA's limits, e.g. to model a device with small queues.
func (h *HCA) SetAttr(a DeviceAttr) { h.attr = a }

// Errors returned by verbs calls, as the errno the real call returns.
var (
	ErrInvalid   = errors.New("ib: invalid argument (EINVAL)")
	ErrQueueFull = errors.New("ib: work queue full (ENOMEM)")
	ErrBadState  = errors.New("ib: QP state does not allow this (EINVAL)")
	ErrDead      = errors.New("ib: device is dead (EIO)")
)

// QP is a reliable-connected queue pair (struct ibv_qp of type IBV_QPT_RC).
//
// The fields delivery, the port scheduler and posting read on every chunk come first (the
// first four cache lines of a 448-byte, 64-byte-aligned object): state, flags and send
// counters (what the round robin and a kick test); the init attributes (every post and
// completion); the queues' counters, the responder state and the retry counters and held
// NAK an ACK's progress reads; the address, the receive ring a SEND's completion pops and
// the ACK timer's deadline. READ responder state, READ bookkeeping, timers and the CM id
// follow. At 35k QPs they do not stay in cache, and the first touch of a QP costs a memory
// load per line.
type QP struct {
	f        *Fabric
	hca      *HCA
	port     *Port
	lid      uint32 // port's LID (its index + 1; 0 before INIT), which deliver compares
	curChunk uint32 // next chunk of the message at sqNext (beside what hasWorkAlive reads)
	num      uint32
	mtu      uint32
	state    QPState
	rxHave   bool // a receive WQE is reserved for message rxExpect
	nakked   bool // a NAK for rxExpect is outstanding: drop its chunks until chunk 0
	paused   bool // waiting out an RNR NAK
	inRing   bool
	inTurn   bool // at the head of the port's round robin, spending deficit
	// respQueued is respHead < len(resp): a READ response is queued (the round robin tests
	// it on this line instead of loading the resp slice's).
	respQueued  bool
	kickPending bool
	// Send queue: monotone counters; ring slot = counter % len(sq). The ring grows on
	// demand up to init.MaxSendWR (see growSQ).
	sqPosted, sqDone, sqNext uint32
	sqFreed                  uint32 // slots before this are reusable (see PostSend)

	init QPInitAttr // the second cache line: PostSend and every completion read it

	sq              []sendWQE
	sqSent, ackedTo uint32
	// Receive queue.
	rqPosted, rqDone uint32
	// Responder state.
	rxExpect uint32 // next message sequence number expected
	rxChunk  int32  // next chunk expected of message rxExpect; -1: discard until chunk 0
	destQPN  uint32 // attr.DestQPN, beside the responder state deliver reads with it
	// An error NAK for a message behind an unanswered READ, applied when it is the oldest
	// (heldMsn), and the retries left: what every ACK's progress reads.
	heldStatus         WCStatus // WCSuccess: none
	retryLeft, rnrLeft uint8
	deficit            int64 // deficit round robin credit, in wire bytes

	attr   QPAttr
	rq     []rqRun  // ring of runs of identical receive WRs (see PostRecv)
	rqHead uint32   // oldest run
	rqRuns uint32   // runs in the ring
	ackDue sim.Time // local ACK timer deadline; 0 = stopped

	resp        []readResp
	respHead    int
	respNext    uint32 // next chunk of resp[respHead]
	heldMsn     uint32
	commEstSent bool
	fatalSent   bool // QP_FATAL raised
	rdGap       bool // a re-read for a response gap is under way

	// Requester READ reassembly.
	rdMsn   uint32
	rdChunk int64
	// Peaks of READs outstanding as initiator and of READ requests held as responder.
	rdPeak, respPeak   int
	ackTimer, rnrTimer sim.Timer
	cmid               *CMID

	// Context is for the consumer (qp_context).
	Context any
}

type sendWQE struct {
	wr       SendWR
	readDone bool
}

// rqRun is n receive WRs equal to wr, posted one after another.
type rqRun struct {
	wr RecvWR
	n  uint32
}

type readResp struct {
	msn uint32
	len uint32
	n   uint32
}

// CreateQP creates an RC QP in RESET on the HCA (ibv_create_qp). Both CQs must belong to
// the same HCA.
func (h *HCA) CreateQP(init QPInitAttr) (*QP, error) {
	if !h.alive() {
		return nil, ErrDead
	}
	if init.SendCQ == nil || init.RecvCQ == nil || init.SendCQ.hca != h || init.RecvCQ.hca != h ||
		init.MaxSendWR <= 0 || init.MaxRecvWR <= 0 || init.MaxSendWR > h.attr.MaxQPWR || init.MaxRecvWR > h.attr.MaxQPWR {
		return nil, ErrInvalid
	}
	f := h.f
	qp := f.qpSlab.New()
	qp.f, qp.num, qp.hca, qp.init, qp.rxChunk, qp.rdChunk = f, uint32(len(f.qps)+1), h, init, -1, -1
	if init.MaxSendWR >= 2 {
		qp.sq = f.sqSlab.New()[:]
	} else {
		qp.sq = make([]sendWQE, 1)
	}
	qp.ackTimer = sim.Timer{H: f.hid, Kind: evAckTimeout, Arg: uint64(qp.num - 1)}
	qp.rnrTimer = sim.Timer{H: f.hid, Kind: evRNRResume, Arg: uint64(qp.num - 1)}
	f.qps = append(f.qps, qp)
	return qp, nil
}

// Num returns the QP number.
func (qp *QP) Num() uint32 { return qp.num }

// State returns the QP's current state (ibv_query_qp's qp_state).
func (qp *QP) State() QPState { return qp.state }

// HCA returns the QP's adapter.
func (qp *QP) HCA() *HCA { return qp.hca }

// Port returns the port the QP was bound to at INIT, or nil.
func (qp *QP) Port() *Port { return qp.port }

// Attr returns the attributes set so far.
func (qp *QP) Attr() QPAttr { return qp.attr }

// Outstanding returns the number of send and receive WRs posted and not yet completed.
func (qp *QP) Outstanding() (send, recv int) {
	return int(qp.sqPosted - qp.sqDone), int(qp.rqPosted - qp.rqDone)
}

// String returns the QP's name.
func (qp *QP) String() string { return fmt.Sprintf("%s/qp%d", qp.hca, qp.num) }

// Modify moves the QP to state to (ibv_modify_qp), reading the fields of attr that the
// transition needs. Illegal transitions return ErrBadState and change nothing. Moving to
// ERR flushes every outstanding WR with WR_FLUSH_ERR; moving to RESET discards them
// without completions.
func (qp *QP) Modify(to QPState, attr QPAttr) error {
	if !legalTransition(qp.state, to) || to == QPSQE {
		return fmt.Errorf("%w: %s -> %s", ErrBadState, qp.state, to)
	}
	qp.quietQP(to == QPRTR)
	switch to {
	case QPReset:
		qp.reset()
		return nil
	case QPErr:
		qp.toErr()
		return nil
	case QPInit:
		if attr.Port < 1 || attr.Port > len(qp.hca.ports) {
			if qp.port == nil {
				return fmt.Errorf("%w: port %d", ErrInvalid, attr.Port)
			}
		} else {
			qp.port = qp.hca.ports[attr.Port-1]
			qp.lid = uint32(qp.port.idx) + 1
		}
		qp.attr.Port = qp.port.Num
	case QPRTR:
		if attr.DestLID == 0 || int(attr.DestLID) > len(qp.f.ports) || attr.DestQPN == 0 {
			return fmt.Errorf("%w: RTR needs a destination LID and QPN", ErrInvalid)
		}
		if int(attr.MaxDestRdAtomic) > qp.hca.attr.MaxQPRdAtom {
			return fmt.Errorf("%w: max_dest_rd_atomic %d above the device's %d", ErrInvalid, attr.MaxDestRdAtomic, qp.hca.attr.MaxQPRdAtom)
		}
		qp.attr.DestLID, qp.attr.DestQPN, qp.attr.MinRNRTimer = attr.DestLID, attr.DestQPN, attr.MinRNRTimer
		qp.destQPN = attr.DestQPN
		qp.attr.MaxDestRdAtomic = attr.MaxDestRdAtomic
		qp.mtu = uint32(qp.f.pathMTU(qp.port, qp.f.ports[attr.DestLID-1]))
	case QPRTS:
		if attr.RetryCnt > 7 || attr.RNRRetry > 7 || attr.Timeout > 31 {
			return fmt.Errorf("%w: retry_cnt/rnr_retry above 7 or timeout above 31", ErrInvalid)
		}
		if int(attr.MaxRdAtomic) > qp.hca.attr.MaxQPInitRdAtom {
			return fmt.Errorf("%w: max_rd_atomic %d above the device's %d", ErrInvalid, attr.MaxRdAtomic, qp.hca.attr.MaxQPInitRdAtom)
		}
		if qp.state == QPRTR {
			qp.attr.Timeout, qp.attr.RetryCnt, qp.attr.RNRRetry = attr.Timeout, attr.RetryCnt, attr.RNRRetry
			qp.attr.MaxRdAtomic = attr.MaxRdAtomic
			qp.retryLeft, qp.rnrLeft = attr.RetryCnt, attr.RNRRetry
		}
	}
	from := qp.state
	qp.state = to
	switch {
	case to == QPRTS && from != QPRTS:
		qp.kick()
	case to == QPSQD:
		qp.checkDrained()
	}
	return nil
}

// PostSend queues a send work request (ibv_post_send). It fails with ErrBadState unless
// the QP is in RTS or SQD (where WRs wait until the QP returns to RTS); in ERR the WR is
// accepted and completes with WR_FLUSH_ERR. A full send queue gives ErrQueueFull. As on
// real HCAs, the slot of an unsignalled WR is reused only once a later WR completes with
// a work completion: a QP posting only unsignalled WRs fills its send queue.
func (qp *QP) PostSend(wr SendWR) error {
	switch qp.state {
	case QPRTS, QPSQD, QPErr:
	default:
		return fmt.Errorf("%w: post_send in %s", ErrBadState, qp.state)
	}
	if wr.Len < 0 || wr.Len > 1<<31 || (wr.Inline && (wr.Op != OpSend || wr.Len > qp.init.MaxInline)) || wr.Op > OpRead {
		return ErrInvalid
	}
	if wr.Op == OpRead && qp.attr.MaxRdAtomic == 0 {
		return fmt.Errorf("%w: RDMA READ on a QP with initiator depth 0", ErrInvalid)
	}
	if int(qp.sqPosted-qp.sqFreed) >= qp.init.MaxSendWR {
		return ErrQueueFull
	}
	if int(qp.sqPosted-qp.sqFreed) >= len(qp.sq) {
		qp.growSQ()
	}
	if qp.init.SignalAll {
		wr.Signaled = true
	}
	qp.sq[qp.sqPosted%uint32(len(qp.sq))] = sendWQE{wr: wr}
	qp.sqPosted++
	if qp.state == QPErr {
		qp.flush()
		return nil
	}
	qp.kick()
	return nil
}

// growSQ doubles the send queue ring (at most to MaxSendWR), each live WQE (from sqFreed to
// sqPosted: every counter the transport still reads) moving to its slot in the new ring. The
// model holds only the send queue entries in use, where a real QP's are allocated at
// creation: a QP starts with two, and in 100 ms of the routed 1000-client cluster 32k of
// its 35k QPs never have more than two posted at once (the rest up to nine).
func (qp *QP) growSQ() {
	n := uint32(min(qp.init.MaxSendWR, max(2, 2*len(qp.sq))))
	nb := make([]sendWQE, n)
	for c := qp.sqFreed; c != qp.sqPosted; c++ {
		nb[c%n] = qp.sq[c%uint32(len(qp.sq))]
	}
	qp.sq = nb
}

// PostRecv queues a receive buffer (ibv_post_recv). Allowed from INIT on; in ERR the WR
// completes with WR_FLUSH_ERR. A full receive queue gives ErrQueueFull.
func (qp *QP) PostRecv(wr RecvWR) error {
	_, err := qp.PostRecvN(wr, 1)
	return err
}

// PostRecvN queues n receive buffers equal to wr as one chain (ibv_post_recv with a list of
// n WRs): the same as n PostRecv calls stopping at the first that fails, which, as the real
// call's bad_wr, leaves the WRs before it posted. It returns how many were posted.
func (qp *QP) PostRecvN(wr RecvWR, n int) (int, error) {
	if qp.state == QPReset {
		return 0, fmt.Errorf("%w: post_recv in RESET", ErrBadState)
	}
	if wr.Len < 0 {
		return 0, ErrInvalid
	}
	k := min(n, max(qp.init.MaxRecvWR-int(qp.rqPosted-qp.rqDone), 0))
	if k > 0 {
		qp.pushRecv(wr, uint32(k))
		qp.rqPosted += uint32(k)
		if qp.state == QPErr {
			qp.flush()
		}
	}
	if k < n {
		return k, ErrQueueFull
	}
	return k, nil
}

// pushRecv appends n copies of wr to the receive queue. The queue is a ring of runs of
// equal WRs: an o2iblnd QP posts its 2*queue_depth+2 buffers with one WR id and length, so
// its whole receive queue is one run, where a real QP (and this model before) holds
// max_recv_wr entries. The ring grows by doubling; WRs leave it in posting order all the
// same.
func (qp *QP) pushRecv(wr RecvWR, n uint32) {
	if qp.rqRuns > 0 {
		last := &qp.rq[(int(qp.rqHead)+int(qp.rqRuns)-1)%len(qp.rq)]
		if last.wr == wr {
			last.n += n
			return
		}
	}
	if int(qp.rqRuns) == len(qp.rq) {
		var nb []rqRun
		if len(qp.rq) == 0 {
			nb = qp.f.rqSlab.New()[:]
		} else {
			nb = make([]rqRun, 2*len(qp.rq))
		}
		for i := 0; i < int(qp.rqRuns); i++ {
			nb[i] = qp.rq[(int(qp.rqHead)+i)%len(qp.rq)]
		}
		qp.rq, qp.rqHead = nb, 0
	}
	qp.rq[(int(qp.rqHead)+int(qp.rqRuns))%len(qp.rq)] = rqRun{wr: wr, n: n}
	qp.rqRuns++
}

// popRecv takes the oldest receive WR off the queue; the caller checks that one is posted.
func (qp *QP) popRecv() RecvWR {
	r := &qp.rq[qp.rqHead]
	wr := r.wr
	if r.n--; r.n == 0 {
		*r = rqRun{}
		qp.rqHead++
		if int(qp.rqHead) == len(qp.rq) {
			qp.rqHead = 0
		}
		qp.rqRuns--
	}
	qp.rqDone++
	return wr
}

// Destroy destroys the QP (ibv_destroy_qp): outstanding WRs vanish without completions.
func (qp *QP) Destroy() {
	qp.reset()
	qp.state = QPErr
	qp.f.qps[qp.num-1] = nil
}

// kick tells the HCA's send engine there is work: after Config.HCALatency it joins its
// port's round-robin.
func (qp *QP) kick() {
	if qp.kickPending || qp.state != QPRTS {
		return
	}
	qp.kickPending = true
	qp.f.k.After(qp.f.cfg.HCALatency, qp.f.hid, evKick, uint64(qp.num-1))
}

func (qp *QP) schedule() {
	if qp.hasWork() {
		qp.f.enqueue(qp)
	}
}

func (qp *QP) reset() {
	qp.quietQP(false)
	qp.f.k.Disarm(&qp.ackTimer)
	qp.f.k.Disarm(&qp.rnrTimer)
	*qp = QP{f: qp.f, num: qp.num, hca: qp.hca, init: qp.init, sq: qp.sq, rq: qp.rq, rxChunk: -1, rdChunk: -1,
		ackTimer: qp.ackTimer, rnrTimer: qp.rnrTimer, Context: qp.Context, cmid: qp.cmid, inRing: qp.inRing,
		inTurn: qp.inTurn, deficit: qp.deficit, kickPending: qp.kickPending}
}

// toErr moves the QP to ERR and flushes its work queues (what the HCA does on a fatal
// completion error or a modify to ERR).
func (qp *QP) toErr() {
	qp.quietQP(false)
	qp.state = QPErr
	qp.paused = false
	qp.heldStatus = WCSuccess
	qp.ackDue = 0
	qp.f.k.Disarm(&qp.ackTimer)
	qp.f.k.Disarm(&qp.rnrTimer)
	qp.resp = qp.resp[:0]
	qp.respHead, qp.respQueued = 0, false
	qp.flush()
}

// flush completes every outstanding send WR, then every receive WR, with WR_FLUSH_ERR, in
// posting order. Flushed WRs always complete, signalled or not.
func (qp *QP) flush() {
	for qp.sqDone != qp.sqPosted {
		w := &qp.sq[qp.sqDone%uint32(len(qp.sq))]
		qp.sqDone++
		qp.complete(qp.init.SendCQ, WC{WRID: w.wr.ID, Status: WCFlushErr, Opcode: wcOp(w.wr.Op), QPNum: qp.num})
	}
	qp.sqNext, qp.sqSent, qp.ackedTo, qp.curChunk, qp.sqFreed = qp.sqDone, qp.sqDone, qp.sqDone, 0, qp.sqDone
	for qp.rqDone != qp.rqPosted {
		w := qp.popRecv()
		qp.complete(qp.init.RecvCQ, WC{WRID: w.ID, Status: WCFlushErr, Opcode: WCRecv, QPNum: qp.num})
	}
	qp.rxHave = false
}

// checkDrained raises IBV_EVENT_SQ_DRAINED once a QP in SQD has no send in flight.
func (qp *QP) checkDrained() {
	if qp.state == QPSQD && qp.curChunk == 0 && qp.sqDone == qp.sqSent {
		qp.f.async(AsyncEvent{Type: EventSQDrained, HCA: qp.hca, QP: qp})
	}
}

// complete adds a work completion to cq for this QP. If the CQ has overrun, the QP is moved
// to ERR and gets IBV_EVENT_QP_FATAL (IBTA C9-218: a WQE that cannot be completed is a
// fatal error for its QP); the result reports whether the completion was queued.
func (qp *QP) complete(cq *CQ, wc WC) bool {
	if cq.push(wc) {
		return true
	}
	qp.raiseFatal()
	if qp.state != QPErr {
		qp.toErr()
	}
	return false
}

// raiseFatal raises IBV_EVENT_QP_FATAL for the QP, once.
func (qp *QP) raiseFatal() {
	if !qp.fatalSent {
		qp.fatalSent = true
		qp.f.async(AsyncEvent{Type: EventQPFatal, HCA: qp.hca, QP: qp})
	}
}
