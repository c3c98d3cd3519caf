package lnet

import "github.com/lnetsim/lnetsim/sim"

// IdealAction is what the ideal LND does with one message.
type IdealAction uint8

// Ideal LND actions.
const (
	IdealDeliver IdealAction = iota // deliver after Latency (+ Delay)
	IdealFail                       // do not deliver; finalize the send with HStatus after Delay
	IdealDrop                       // silently lose it: the send completes OK, nothing arrives
	// IdealRecvFail delivers it, but the receiving LND fails the receive of its payload (Recv
	// returns -EIO, as socklnd does for a connection lost mid-payload): LNet finalizes the
	// received message with that error (lnet_ni_recv), its event carrying the status. The send
	// completes OK. An optimized GET's GET_REQ is delivered as usual.
	IdealRecvFail
)

// idealRecvFail is the LND private of a message whose receive IdealRecvFail fails.
type idealRecvFail struct{}

// IdealVerdict is the fate of one message in the ideal LND.
type IdealVerdict struct {
	Action  IdealAction // deliver, fail or drop
	HStatus HStatus     // for IdealFail (OK is replaced by LOCAL_ERROR)
	Delay   sim.Time    // extra time before delivery or failure
}

// IdealRule injects a verdict for messages matching it, oldest rule first.
type IdealRule struct {
	From    NIDPattern   // sending NI
	To      NIDPattern   // next-hop NID
	Types   uint32       // MaskPUT|...; 0 = all
	Count   int          // messages still to hit; < 0 = unlimited
	Verdict IdealVerdict // what to do with a matching message
	Hits    int          // messages it decided so far
}

// IdealLND is a lossless test LND connecting the NIs of Nodes sharing one kernel: each
// message arrives Latency after Send, with no credits or handshakes of its own. Failures,
// silent drops and delays are injected with Rules or Hook. It honours SendErrorSimulation
// (health-mask drop rules) like a real LND.
type IdealLND struct {
	k       *sim.Kernel
	hid     sim.HandlerID
	Latency sim.Time // one-way delivery time
	// Hook, if set, decides each message's fate before Rules.
	Hook  func(m *Msg) IdealVerdict
	Rules []*IdealRule // checked in order; the first match decides

	// OptimizedGET makes GETs use the RDMA-style protocol of o2ib's GET_REQ (except, as in
	// o2ib, a GET being forwarded or sent to a router, which goes plain): the initiator
	// pre-creates the REPLY (CreateReplyMsg), the target is parsed with rdmaReq and its LND
	// "writes" the data and answers GET_DONE; both initiator messages finalize on GET_DONE.
	// A failed GET_REQ fails both, the GET with the injected hstatus and the REPLY with the
	// status only (kiblnd_tx_done).
	OptimizedGET bool

	nis   map[NID]*NI
	xf    []idealXfer
	free  []int32
	gets  []*idealGet
	gfree []int32
	sends uint64
}

// idealGet is the state of one optimized GET (the LND private of its target side).
type idealGet struct {
	idx    int32
	get    *Msg
	getRef MsgRef
	reply  *Msg
	from   *NI // initiator NI
	mlen   int
	status int
	data   any // the REPLY's content (a ping buffer), "written" into the initiator's MD
}

type idealXfer struct {
	msg  *Msg
	ref  MsgRef
	to   *NI
	from NID
	hdr  Header
	act  IdealAction
	hs   HStatus
	get  *idealGet
}

// Ideal LND event kinds.
const (
	idealDeliver = iota + 1
	idealComplete
	idealGetDone
)

// NewIdealLND returns an ideal LND on k with a fixed one-way latency.
func NewIdealLND(k *sim.Kernel, latency sim.Time) *IdealLND {
	l := &IdealLND{k: k, Latency: latency, nis: make(map[NID]*NI)}
	l.hid = k.Register(l)
	return l
}

// AddRule appends an injection rule and returns it (to read Hits).
func (l *IdealLND) AddRule(r IdealRule) *IdealRule {
	p := &r
	l.Rules = append(l.Rules, p)
	return p
}

// ClearRules removes every injection rule.
func (l *IdealLND) ClearRules() { l.Rules = nil }

// Sends returns how many messages were handed to the LND.
func (l *IdealLND) Sends() uint64 { return l.sends }

// Type reports O2IBLND so nets look like o2ib nets.
func (l *IdealLND) Type() LNDType { return O2IBLND }

// Startup registers ni as reachable.
func (l *IdealLND) Startup(ni *NI) error { l.nis[ni.NID()] = ni; return nil }

// Shutdown makes ni unreachable.
func (l *IdealLND) Shutdown(ni *NI) { delete(l.nis, ni.NID()) }

// Timeout exposes the NI's LND timeout (ni.LNDTimeout), as o2iblnd does, so message deadlines
// follow the o2ib rule.
func (l *IdealLND) Timeout(ni *NI) sim.Time { return ni.LNDTimeout() }

// Ctl does nothing.
func (l *IdealLND) Ctl(*NI, uint32, any) error { return nil }

// EagerRecv accepts.
func (l *IdealLND) EagerRecv(_ *NI, private any, _ *Msg) (any, error) { return private, nil }

// NotifyPeerDown does nothing.
func (l *IdealLND) NotifyPeerDown(*NI, NID) {}

// Query knows nothing.
func (l *IdealLND) Query(*NI, NID) (sim.Time, bool) { return 0, false }

// Recv completes at once: the payload is already there. For an optimized GET (private is the
// GET's state) msg is the REPLY LNet built: the data is "written" and GET_DONE goes back; a nil
// msg answers GET_DONE(-ENODATA). The receive of a message IdealRecvFail marked fails.
func (l *IdealLND) Recv(ni *NI, private any, m *Msg, _ bool, _, mlen, _ int) error {
	if g, ok := private.(*idealGet); ok {
		g.status, g.mlen = -ENODATA, 0
		if m != nil {
			g.status, g.mlen, g.data = 0, mlen, m.Hdr.Data
			ni.Node().Finalize(m, 0, LNET_MSG_STATUS_OK)
		}
		l.k.After(l.Latency, l.hid, idealGetDone, uint64(g.idx))
		return nil
	}
	if _, ok := private.(idealRecvFail); ok && m != nil {
		return Errno(-EIO)
	}
	if m != nil {
		ni.Node().Finalize(m, 0, LNET_MSG_STATUS_OK)
	}
	return nil
}

func (l *IdealLND) newGet(ni *NI, m *Msg) (*idealGet, error) {
	reply := ni.Node().CreateReplyMsg(ni, m)
	if reply == nil {
		return nil, ErrNoMD
	}
	var g *idealGet
	if k := len(l.gfree); k > 0 {
		g = l.gets[l.gfree[k-1]]
		l.gfree = l.gfree[:k-1]
	} else {
		g = &idealGet{idx: int32(len(l.gets))}
		l.gets = append(l.gets, g)
	}
	g.get, g.getRef, g.reply, g.from = m, m.Ref(), reply, ni
	return g, nil
}

// getDone models GET_DONE arriving at the initiator: the GET, then its REPLY, finalize.
func (l *IdealLND) getDone(g *idealGet) {
	get, reply, ni := g.get, g.reply, g.from
	st, mlen, data := g.status, g.mlen, g.data
	*g = idealGet{idx: g.idx}
	l.gfree = append(l.gfree, g.idx)
	node := ni.Node()
	if st != 0 {
		hs := LNET_MSG_STATUS_REMOTE_ERROR
		if st == -ETIMEDOUT {
			hs = LNET_MSG_STATUS_REMOTE_TIMEOUT
		}
		node.Finalize(get, st, hs)
		// Only the request carries the hstatus (o2ib propagates tx_lntmsg[0]'s).
		node.Finalize(reply, st, LNET_MSG_STATUS_OK)
		return
	}
	node.SetReplyLength(reply, mlen)
	reply.ev.data = data // the REPLY event carries what was written, as a parsed REPLY's does
	node.Finalize(get, 0, LNET_MSG_STATUS_OK)
	node.Finalize(reply, 0, LNET_MSG_STATUS_OK)
}

func (l *IdealLND) verdict(ni *NI, m *Msg) IdealVerdict {
	if hs, ok := ni.Node().SendErrorSimulation(m); ok {
		return IdealVerdict{Action: IdealFail, HStatus: hs}
	}
	if l.Hook != nil {
		if v := l.Hook(m); v != (IdealVerdict{}) {
			return v
		}
	}
	for _, r := range l.Rules {
		if r.Count == 0 || !r.From.Match(ni.NID()) || !r.To.Match(m.Target()) {
			continue
		}
		if r.Types != 0 && r.Types&(1<<m.Type()) == 0 {
			continue
		}
		if r.Count > 0 {
			r.Count--
		}
		r.Hits++
		return r.Verdict
	}
	return IdealVerdict{}
}

// Send schedules delivery (or the injected failure) of m.
func (l *IdealLND) Send(ni *NI, _ any, m *Msg) error {
	l.sends++
	v := l.verdict(ni, m)
	to := l.nis[m.Target()]
	if to == nil && (v.Action == IdealDeliver || v.Action == IdealRecvFail) {
		// Nobody there: the connection attempt times out.
		v = IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_NETWORK_TIMEOUT, Delay: ni.LNDTimeout()}
	}
	if v.Action == IdealFail && v.HStatus == LNET_MSG_STATUS_OK {
		v.HStatus = LNET_MSG_STATUS_LOCAL_ERROR
	}
	var i int32
	if k := len(l.free); k > 0 {
		i = l.free[k-1]
		l.free = l.free[:k-1]
	} else {
		l.xf = append(l.xf, idealXfer{})
		i = int32(len(l.xf) - 1)
	}
	x := &l.xf[i]
	x.msg, x.ref, x.to, x.from, x.act, x.hs = m, m.Ref(), to, ni.NID(), v.Action, v.HStatus
	x.hdr = m.Hdr
	x.get = nil
	if l.OptimizedGET && m.Type() == MsgGET && !m.routing && !m.targetIsRtr {
		g, err := l.newGet(ni, m)
		if err != nil {
			l.free = append(l.free, i)
			return err
		}
		x.get = g
	}
	switch v.Action {
	case IdealFail:
		l.k.After(v.Delay, l.hid, idealComplete, uint64(i))
	default:
		l.k.After(l.Latency+v.Delay, l.hid, idealDeliver, uint64(i))
	}
	return nil
}

// Handle delivers or completes a transfer.
func (l *IdealLND) Handle(kind int, arg uint64) {
	if kind == idealGetDone {
		l.getDone(l.gets[arg])
		return
	}
	x := &l.xf[arg]
	m, to, from, act, hs, g := x.msg, x.to, x.from, x.act, x.hs, x.get
	if g != nil && act == IdealFail {
		// The GET_REQ failed: its tx finalizes the GET and the pre-created REPLY.
		x.msg, x.to, x.hdr.Data, x.get = nil, nil, nil, nil
		l.free = append(l.free, int32(arg))
		node, reply := m.Node(), g.reply
		*g = idealGet{idx: g.idx}
		l.gfree = append(l.gfree, g.idx)
		st := idealFailStatus(hs)
		node.Finalize(m, st, hs)
		node.Finalize(reply, st, LNET_MSG_STATUS_OK)
		return
	}
	if g != nil {
		// Optimized GET: the initiator's messages finalize on GET_DONE. A silent drop or a
		// rejected GET_REQ is answered GET_DONE(-ENODATA) (o2ib: NAK on no match).
		hdr := x.hdr
		x.msg, x.to, x.hdr.Data, x.get = nil, nil, nil, nil
		l.free = append(l.free, int32(arg))
		if act == IdealDrop {
			// Lost: the GET_REQ tx times out waiting for GET_DONE.
			g.status = -ETIMEDOUT
			l.k.After(from2ni(l, from).LNDTimeout(), l.hid, idealGetDone, uint64(g.idx))
			return
		}
		if err := to.Node().Parse(to, &hdr, from, g, true); err != nil {
			g.status = -ENODATA
			l.k.After(l.Latency, l.hid, idealGetDone, uint64(g.idx))
		}
		return
	}
	if kind == idealDeliver && act == IdealDeliver {
		_ = to.Node().Parse(to, &x.hdr, from, nil, false)
	} else if kind == idealDeliver && act == IdealRecvFail {
		_ = to.Node().Parse(to, &x.hdr, from, idealRecvFail{}, false)
	}
	x = &l.xf[arg] // Parse may have grown l.xf
	x.msg, x.to, x.hdr.Data = nil, nil, nil
	l.free = append(l.free, int32(arg))
	if m.Ref() != x.ref {
		return // the message was finalized meanwhile (cannot happen with this LND)
	}
	if act == IdealFail {
		m.Node().Finalize(m, idealFailStatus(hs), hs)
		return
	}
	m.Node().Finalize(m, 0, LNET_MSG_STATUS_OK)
}

func from2ni(l *IdealLND, nid NID) *NI { return l.nis[nid] }

// idealFailStatus is the errno a failed send completes with: -ETIMEDOUT for the timeout
// statuses, else -EIO.
func idealFailStatus(hs HStatus) int {
	switch hs {
	case LNET_MSG_STATUS_LOCAL_TIMEOUT, LNET_MSG_STATUS_REMOTE_TIMEOUT, LNET_MSG_STATUS_NETWORK_TIMEOUT:
		return -ETIMEDOUT
	}
	return -EIO
}
