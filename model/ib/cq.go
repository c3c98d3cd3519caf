package ib

// WCStatus is a work completion's status (enum ibv_wc_status).
type WCStatus uint8

// Work completion statuses the model produces.
const (
	WCSuccess        WCStatus = iota
	WCLocLenErr               // receive buffer too small for the SEND
	WCLocQPOpErr              // local QP operation error
	WCLocProtErr              // local protection error
	WCFlushErr                // WR flushed because the QP is in ERR
	WCRemAccessErr            // bad rkey, range or access rights at the responder
	WCRemInvReqErr            // the responder refused the request (e.g. SEND too long)
	WCRemOpErr                // the responder failed the operation
	WCRetryExcErr             // ACK timeout retries (retry_cnt) exhausted
	WCRNRRetryExcErr          // RNR NAK retries (rnr_retry) exhausted
	WCFatalErr                // device fatal error
)

var wcStatusNames = [...]string{"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
	"REM_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "FATAL_ERR"}

// String returns the name the verbs and CM documentation use.
func (s WCStatus) String() string { return wcStatusNames[s] }

// WCOpcode is a completion's opcode (enum ibv_wc_opcode).
type WCOpcode uint8

// Completion opcodes.
const (
	WCSend WCOpcode = iota
	WCRDMAWrite
	WCRDMARead
	WCRecv
)

var wcOpNames = [...]string{"SEND", "RDMA_WRITE", "RDMA_READ", "RECV"}

// String returns the name the verbs and CM documentation use.
func (o WCOpcode) String() string { return wcOpNames[o] }

func wcOp(o Opcode) WCOpcode { return WCOpcode(o) }

// WC is a work completion (struct ibv_wc).
type WC struct {
	WRID    uint64
	Status  WCStatus
	Opcode  WCOpcode
	ByteLen int
	QPNum   uint32
	SrcQP   uint32 // receive completions: the sender's QPN
}

// CQHandler receives completion notifications: the comp_handler of ib_create_cq, or what
// ibv_get_cq_event returns on a completion channel. It is called from the event loop.
type CQHandler interface {
	CompletionEvent(cq *CQ)
}

// CQ is a completion queue of finite size (struct ibv_cq). What push, Poll and notify
// read is in the first 64 bytes of the 128-byte object (one cache line: 20k CQs do not stay
// in cache); the set-up fields follow.
type CQ struct {
	wcs     []WC // ring of queued completions, grown on demand up to size
	head, n int32
	h       CQHandler
	f       *Fabric
	armed   bool
	pending bool
	errored bool
	dead    bool  // destroyed, or its node crashed: the CQ is gone
	idx     int32 // slot in the fabric's CQ table

	freed bool // its slot in the fabric's CQ table is free for a new CQ
	hca   *HCA
	size  int // cqe: the most completions the CQ holds
	evh   AsyncHandler
	// Context is for the consumer (cq_context).
	Context any
}

// CreateCQ creates a completion queue of cqe entries with notification handler h, which
// may be nil for a polled CQ (ibv_create_cq with a completion channel).
func (h *HCA) CreateCQ(cqe int, handler CQHandler) (*CQ, error) {
	if cqe <= 0 || cqe > h.attr.MaxCQE {
		return nil, ErrInvalid
	}
	if !h.alive() {
		return nil, ErrDead
	}
	cq := h.f.cqSlab.New()
	cq.f, cq.idx, cq.hca, cq.size, cq.h = h.f, int32(len(h.f.cqs)), h, cqe, handler
	if k := len(h.f.freeCQs); k > 0 {
		cq.idx = int32(h.f.freeCQs[k-1])
		h.f.freeCQs = h.f.freeCQs[:k-1]
		h.f.cqs[cq.idx] = cq
	} else {
		h.f.cqs = append(h.f.cqs, cq)
	}
	return cq, nil
}

// ReqNotify arms the CQ so the next completion added calls the handler once, through an
// event (ibv_req_notify_cq with solicited_only = 0). Completions already queued do not
// trigger it; the result reports whether any are queued (IB_CQ_REPORT_MISSED_EVENTS), so a
// consumer can poll again instead of waiting.
func (cq *CQ) ReqNotify() (missed bool) {
	cq.armed = true
	return cq.n > 0
}

// Poll moves up to len(wc) completions into wc, oldest first, and returns how many
// (ibv_poll_cq).
func (cq *CQ) Poll(wc []WC) int {
	k := 0
	for k < len(wc) && cq.n > 0 {
		wc[k] = cq.wcs[cq.head]
		cq.head++
		if int(cq.head) == len(cq.wcs) {
			cq.head = 0
		}
		cq.n--
		k++
	}
	return k
}

// Destroy releases the CQ (ibv_destroy_cq): it takes no more completions and never
// notifies again. QPs still using it lose their completions. Its slot in the fabric's CQ
// table goes to the next CQ created, once no notification for it is pending.
func (cq *CQ) Destroy() {
	cq.dead = true
	cq.wcs, cq.head, cq.n = nil, 0, 0
	cq.release()
}

// release frees a dead CQ's table slot unless a notification event still names it.
func (cq *CQ) release() {
	if !cq.dead || cq.pending || cq.freed {
		return
	}
	cq.freed = true
	cq.f.freeCQs = append(cq.f.freeCQs, int(cq.idx))
}

// CQSlots returns the size of the fabric's CQ table: live CQs plus destroyed ones whose
// slot no CQ has taken again.
func (f *Fabric) CQSlots() int { return len(f.cqs) }

// SetEventHandler routes the CQ's CQ_ERR event to a (ib_create_cq's event_handler)
// instead of the device handlers.
func (cq *CQ) SetEventHandler(a AsyncHandler) { cq.evh = a }

// Len returns the number of completions waiting to be polled.
func (cq *CQ) Len() int { return int(cq.n) }

// Errored reports whether the CQ overran (IBV_EVENT_CQ_ERR); it accepts no more completions.
func (cq *CQ) Errored() bool { return cq.errored }

// HCA returns the CQ's adapter.
func (cq *CQ) HCA() *HCA { return cq.hca }

// push adds a completion and reports whether the CQ took it. A full CQ overruns: the
// completion is lost, the CQ enters the error state for good and IBV_EVENT_CQ_ERR is
// raised; the QP that tried to complete fails (see QP.complete). A destroyed CQ drops
// completions silently.
func (cq *CQ) push(wc WC) bool {
	if cq.dead {
		return true
	}
	if cq.errored {
		return false
	}
	if int(cq.n) == len(cq.wcs) && len(cq.wcs) < cq.size {
		cq.grow()
	}
	if int(cq.n) == len(cq.wcs) {
		cq.errored = true
		cq.f.async(AsyncEvent{Type: EventCQErr, HCA: cq.hca, CQ: cq})
		return false
	}
	i := int(cq.head + cq.n)
	if i >= len(cq.wcs) {
		i -= len(cq.wcs)
	}
	cq.wcs[i] = wc
	cq.n++
	if cq.armed && !cq.pending && cq.h != nil {
		cq.pending = true
		cq.f.k.After(0, cq.f.hid, evCQNotify, uint64(cq.idx))
	}
	return true
}

// grow doubles the completion ring (at most to the CQ's size): the model only holds the
// entries in use, where a real CQ's cqe entries are allocated at creation: its first
// completion makes a ring of one (in 100 ms of the routed 1000-client cluster none of the
// 35k CQs ever holds two completions at once: each is polled at its notification).
func (cq *CQ) grow() {
	var nb []WC
	if len(cq.wcs) == 0 {
		nb = cq.f.wcSlab.New()[:]
	} else {
		nb = make([]WC, min(cq.size, 2*len(cq.wcs)))
	}
	for i := 0; i < int(cq.n); i++ {
		nb[i] = cq.wcs[(int(cq.head)+i)%len(cq.wcs)]
	}
	cq.wcs, cq.head = nb, 0
}

// notify delivers a completion interrupt to an armed CQ's handler.
func (cq *CQ) notify() {
	cq.pending = false
	if cq.dead {
		cq.release()
		return
	}
	if !cq.armed || cq.h == nil {
		return
	}
	cq.armed = false
	cq.h.CompletionEvent(cq)
}
