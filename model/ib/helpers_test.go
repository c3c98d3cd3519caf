package ib

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// twc is a work completion stamped with the virtual time it was polled.
type twc struct {
	at sim.Time
	WC
}

// rec records completions (polling on every notification), device events and CM events.
type rec struct {
	k     *sim.Kernel
	wcs   []twc
	async []AsyncEvent
	cm    []CMEvent
	cmAt  []sim.Time
	onCM  func(ev CMEvent)
	onWC  func(wc WC)
}

func (r *rec) CompletionEvent(cq *CQ) {
	var buf [8]WC
	for {
		n := cq.Poll(buf[:])
		for _, wc := range buf[:n] {
			r.wcs = append(r.wcs, twc{r.k.Now(), wc})
			if r.onWC != nil {
				r.onWC(wc)
			}
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

func (r *rec) AsyncEvent(ev AsyncEvent) { r.async = append(r.async, ev) }

func (r *rec) CMEvent(ev CMEvent) {
	r.cm = append(r.cm, ev)
	r.cmAt = append(r.cmAt, r.k.Now())
	if r.onCM != nil {
		r.onCM(ev)
	}
}

func (r *rec) statuses() []WCStatus {
	var s []WCStatus
	for _, w := range r.wcs {
		s = append(s, w.Status)
	}
	return s
}

func (r *rec) cmTypes() []CMEventType {
	var s []CMEventType
	for _, e := range r.cm {
		s = append(s, e.Type)
	}
	return s
}

var ipA = netip.MustParseAddr("10.0.0.1")

// side is one end of a test connection: a node's first port, a CQ and a QP.
type side struct {
	n  *Node
	p  *Port
	cq *CQ
	qp *QP
	r  *rec
}

// fabricN builds a single-switch EDR fabric of n nodes with 50ns links.
func fabricN(t testing.TB, seed uint64, n int, cfg Config) (*sim.Kernel, *Fabric, []*side) {
	k := sim.New(seed)
	f := New(k, cfg)
	names := []string{"a", "b", "c", "d", "e", "f"}[:n]
	nodes := f.SingleSwitch(names, LinkSpec{Rate: EDR, Latency: 50 * sim.Nanosecond}, ipA)
	var out []*side
	for _, nd := range nodes {
		h := nd.HCAs()[0]
		r := &rec{k: k}
		h.RegisterEventHandler(r)
		cq, err := h.CreateCQ(1024, r)
		if err != nil {
			t.Fatal(err)
		}
		cq.ReqNotify()
		out = append(out, &side{n: nd, p: h.Port(1), cq: cq, r: r})
	}
	return k, f, out
}

// rcPair creates and connects RC QPs between a and b with the given RTS attributes; READ
// limits left 0 in rts are the device's (16 each way).
func rcPair(t testing.TB, a, b *side, rts QPAttr, depth int) {
	t.Helper()
	if rts.MaxRdAtomic == 0 && rts.MaxDestRdAtomic == 0 {
		rts.MaxRdAtomic, rts.MaxDestRdAtomic = 16, 16
	}
	mk := func(s *side) {
		qp, err := s.p.HCA().CreateQP(QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, MaxSendWR: depth, MaxRecvWR: depth, MaxInline: 256})
		if err != nil {
			t.Fatal(err)
		}
		s.qp = qp
	}
	mk(a)
	mk(b)
	for _, pr := range [][2]*side{{a, b}, {b, a}} {
		s, o := pr[0], pr[1]
		must(t, s.qp.Modify(QPInit, QPAttr{Port: 1}))
		must(t, s.qp.Modify(QPRTR, QPAttr{DestQPN: o.qp.Num(), DestLID: o.p.LID(), MinRNRTimer: rts.MinRNRTimer, MaxDestRdAtomic: rts.MaxDestRdAtomic}))
		must(t, s.qp.Modify(QPRTS, rts))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func run(t testing.TB, k *sim.Kernel) {
	t.Helper()
	k.SetLimits(sim.Limits{MaxEvents: 50_000_000})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
}

var defRTS = QPAttr{Timeout: 14, RetryCnt: 5, RNRRetry: 6, MinRNRTimer: 12}
