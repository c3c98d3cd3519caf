package o2ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/internal/slab"
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// LND is o2iblnd: one value serves every o2ib NI of every node sharing an IB fabric (the
// kernel has one module instance per node; the model keeps them apart by NI, net and device).
// It implements lnet.LND.
type LND struct {
	f   *ib.Fabric
	k   *sim.Kernel
	hid sim.HandlerID

	params    map[paramKey]Params // lookups only: a net's (nid 0) or one NI's parameters
	devs      []*dev
	devOf     map[*ib.Port]*dev // lookups only: the device of each port in devs
	nets      []*kibNet
	conns     []*conn
	liveFrom  int
	connByQPN []*conn // QP numbers are fabric-wide: the conn owning each QP

	txs    []*tx
	freeTx []int32

	freeMsgs []*wireMsg // messages neither in flight nor in a receive buffer (see rx, wireRing)
	msgsMade int        // messages ever allocated (tests: none is lost)
	freeRx   []*rx      // rxs holding no message (see rx)
	rxsMade  int        // rxs ever allocated (tests: none is lost)

	peerTab  [peerHashSize][]*peer
	checkIdx int
	connd    sim.Timer
	reconnW  []*peer // reconnects deferred to the next second (kib_reconn_wait)
	incSeq   uint64
	obs      Observer
	wcBuf    [16]ib.WC

	stats Stats

	// Conns and peers, and each peer's first conn list (room for two), come from chunks
	// (internal/slab): the connection storm makes them by the ten thousand and they live
	// for the run.
	connSlab slab.Slab[conn]
	peerSlab slab.Slab[peer]
	connRefs slab.Slab[[2]*conn]
	connBuf  [MsgHdrSize + ConnParamsSize]byte // a CONNREQ or CONNACK being packed (connMsg.pack)
}

// Stats are LND-wide counters for tests and reports.
type Stats struct {
	TxPoolGrown   uint64 // a net's tx pool grew by ntx descriptors
	ConnsCreated  uint64
	ConnsClosed   uint64
	Rejects       uint64 // connection requests this LND rejected
	Rejected      uint64 // connection requests of this LND that were rejected
	Reconnects    uint64
	TimedOutTxs   uint64 // txs found past their deadline by the connection check
	NotifyDown    uint64 // lnet_notify(alive=false) calls
	NoopsPosted   uint64
	BadConnStates uint64 // illegal conn state changes refused (conn.setState; 0 unless a model bug)
}

// paramKey names what a Params value is set for: a net (nid 0) or one NI's override.
type paramKey struct {
	net lnet.NetID
	nid lnet.NID
}

// Event kinds of the LND's handler.
const (
	evConnd      = iota + 1 // one pass of kiblnd_connd's timed work (every second)
	evDisconnect            // connd handles a closing conn (arg: conn index)
	evZombie                // connd destroys a finalised conn (arg: conn index)
)

// New returns an o2iblnd on fabric f with DefaultParams for every net.
func New(f *ib.Fabric) *LND {
	l := &LND{f: f, k: f.Kernel(), params: make(map[paramKey]Params), devOf: make(map[*ib.Port]*dev)}
	l.hid = l.k.Register(l)
	l.connd = sim.Timer{H: l.hid, Kind: evConnd}
	l.registerInvariants()
	return l
}

// SetParams sets the module parameters of one net (before its NIs start).
func (l *LND) SetParams(net lnet.NetID, p Params) error {
	return l.putParams(paramKey{net: net}, p, net)
}

// SetNIParams overrides the parameters of one NI (a node whose module was loaded with
// other values than its peers'), before it starts.
func (l *LND) SetNIParams(nid lnet.NID, p Params) error {
	return l.putParams(paramKey{net: nid.Net(), nid: nid}, p, nid)
}

// putParams validates p and stores it for key's net or NI, replacing what was set for it
// before; errors name who (the net or the NID).
func (l *LND) putParams(key paramKey, p Params, who fmt.Stringer) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("o2ib %s: %w", who, err)
	}
	l.params[key] = p
	return nil
}

// Params returns the parameters of a net.
func (l *LND) Params(net lnet.NetID) Params {
	if p, ok := l.params[paramKey{net: net}]; ok {
		return p
	}
	return DefaultParams()
}

// niParams returns an NI's parameters: its override, else its net's.
func (l *LND) niParams(nid lnet.NID) Params {
	if p, ok := l.params[paramKey{net: nid.Net(), nid: nid}]; ok {
		return p
	}
	return l.Params(nid.Net())
}

// Stats returns the LND's counters.
func (l *LND) Stats() Stats { return l.stats }

// Type returns O2IBLND.
func (l *LND) Type() lnet.LNDType { return lnet.O2IBLND }

// Ctl models kiblnd_ctl: IOC_LIBCFS_GET_PEER (kiblnd_get_peer_info) over the NI's peers in the
// peer table (lnet.CtlGetPeer); the other IOC commands are not modelled (-EINVAL).
func (l *LND) Ctl(ni *lnet.NI, cmd uint32, arg any) error {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil {
		return lnet.Errno(-lnet.EINVAL)
	}
	return lnet.CtlGetPeer(cmd, arg, len(n.peers))
}

// NotifyPeerDown does nothing: o2iblnd has no lnd_notify_peer_down.
func (l *LND) NotifyPeerDown(*lnet.NI, lnet.NID) {}

// EagerRecv keeps the rx: the model has no router buffers to release it into yet.
func (l *LND) EagerRecv(_ *lnet.NI, private any, _ *lnet.Msg) (any, error) { return private, nil }

// kibNet is struct kib_net: o2iblnd's state for one NI. What every receive, send and tx
// completion reads comes first (the first line: the LNet node and NI, the stamps a receive
// checks, the peer table, the flags; the second: the tx pool's counts and the tx timeout
// parameter at the start of the tunables); the rest of the tunables last. The object is
// 384 bytes, a size class of whole lines, so that first line is one line (TestHotObjectSizes).
type kibNet struct {
	l           *LND
	ni          *lnet.NI
	node        *lnet.Node
	incarnation uint64
	nid         lnet.NID           // ni.NID(), beside incarnation: every receive checks both
	peers       map[lnet.NID]*peer // lookup only; never iterated
	dev         *dev
	shutdown    bool
	crashed     bool // its node crashed (NodeCrashed)
	// staleTx is tun.Profile.WaitingTxStaleDeadline, which every tx release tests.
	staleTx  bool
	ntx      int // tx descriptors in use
	poolSize int // tx descriptors in the pool
	// staleDeadlines are the deadlines of the net's freed tx descriptors, last freed last
	// (kept only under WaitingTxStaleDeadline; see getIdleTx).
	staleDeadlines []sim.Time
	tun            tunables
	fmr            *fmrNet  // the FastReg pools, one set per CPT (ibn_fmr_ps; fmr.go)
	_              [16]byte // to the 384-byte class (368 is not a multiple of 64)
}

// Startup models kiblnd_startup: find the IPoIB interface carrying the NI's address, set
// up (or share) its device (listener, memory region, event handler), the net's
// incarnation stamp and its FastReg pools (kiblnd_net_init_pools, which refuses an
// fmr_pool_size below ntx/4).
func (l *LND) Startup(ni *lnet.NI) error {
	p := l.niParams(ni.NID())
	if err := p.Validate(); err != nil {
		return err
	}
	if err := checkFMRPoolSize(p); err != nil {
		return err
	}
	a := ni.NID().Addr()
	ip := netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
	port := l.f.PortByIP(ip)
	if port == nil {
		return fmt.Errorf("o2ib: no IPoIB interface with address %s", ip)
	}
	d, err := l.devFor(port, ip, p.Service)
	if err != nil {
		return err
	}
	l.incSeq++
	// The net's LNet tunables (lct_peer_tx_credits, lct_max_tx_credits: lnetctl's per-net
	// values, defaulted from these module parameters) are what kiblnd_tunables_setup reads.
	if nt := ni.Net().Tunables; nt.PeerCredits > 0 {
		p.PeerCredits, p.Credits = nt.PeerCredits, nt.Credits
	}
	n := &kibNet{l: l, ni: ni, nid: ni.NID(), node: ni.Node(), dev: d, tun: p.setup(),
		incarnation: uint64(l.k.Now())/1000 + l.incSeq, peers: make(map[lnet.NID]*peer)}
	if n.tun.Timeout > 0 && ni.Net().LNDTimeout == 0 {
		ni.Net().LNDTimeout = sim.Time(n.tun.Timeout) * sim.Second
	}
	n.tun.connreqTimeout = connreqTimeout(n.timeout())
	n.poolSize = n.tun.NTx
	n.staleTx = n.tun.Profile.WaitingTxStaleDeadline
	n.initFMR(ni.Node().NCPTs())
	ni.LNDData = n
	d.nets = append(d.nets, n)
	l.nets = append(l.nets, n)
	if port.State() != ib.PortActive || port.HCA().Fatal() {
		ni.Node().SetNIFatal(ni, true)
	}
	if !l.k.Armed(&l.connd) {
		l.k.ArmAfter(&l.connd, sim.Second)
	}
	return nil
}

// Shutdown models kiblnd_shutdown: every peer of the NI is deleted (kiblnd_del_peer), its
// connections closed and its waiting txs failed.
func (l *LND) Shutdown(ni *lnet.NI) {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.shutdown {
		return
	}
	n.shutdown = true
	for b := range l.peerTab {
		for _, p := range append([]*peer(nil), l.peerTab[b]...) {
			if p.net == n {
				l.delPeer(p)
			}
		}
	}
	l.nets = removeNet(l.nets, n)
	n.dev.nets = removeNet(n.dev.nets, n)
	if len(n.dev.nets) == 0 {
		l.destroyDev(n.dev)
	}
	if len(l.nets) == 0 {
		l.k.Disarm(&l.connd) // nothing left to check: let the event queue drain
	}
}

func removeNet(s []*kibNet, n *kibNet) []*kibNet {
	for i, x := range s {
		if x == n {
			copy(s[i:], s[i+1:])
			s[len(s)-1] = nil
			return s[:len(s)-1]
		}
	}
	return s
}

// timeout is kiblnd_timeout(): the net's tx timeout.
func (n *kibNet) timeout() sim.Time {
	if n.tun.Timeout > 0 {
		return sim.Time(n.tun.Timeout) * sim.Second
	}
	return n.ni.LNDTimeout()
}

// Timeout models kiblnd_timeout as o2iblnd's lnd_get_timeout: the NI's o2ib `timeout`
// (lnet_lnd_timeout when that is 0), from which LNet derives every message's deadline
// (get_msg_deadline: timeout x (retry_count + 1) + 1 s). The kernel's value is module-wide;
// here it is the NI's net's (see Params).
func (l *LND) Timeout(ni *lnet.NI) sim.Time {
	if n, _ := ni.LNDData.(*kibNet); n != nil {
		return n.timeout()
	}
	return 0
}

// rdmaResolveTimeout is RDMA_RESOLVE_TIMEOUT, the address and route resolution timeout.
const rdmaResolveTimeout = 5 * sim.Second

// connreqTimeout is kiblnd's connect request timeout: max(5 s, timeout/4).
func connreqTimeout(timeout sim.Time) sim.Time {
	if t := timeout / 4; t > 5*sim.Second {
		return t
	}
	return 5 * sim.Second
}

// Query models kiblnd_query: when the peer was last known alive.
func (l *LND) Query(ni *lnet.NI, nid lnet.NID) (sim.Time, bool) {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil {
		return 0, false
	}
	if p := n.peers[nid]; p != nil && p.lastAlive != 0 {
		return p.lastAlive, true
	}
	return 0, false
}

// Handle runs the LND's events (connd work).
func (l *LND) Handle(kind int, arg uint64) {
	switch kind {
	case evConnd:
		l.conndTick()
	case evDisconnect:
		l.disconnectConn(l.conns[arg])
	case evZombie:
		l.destroyConn(l.conns[arg])
	}
}

// lnetNotify calls lnet_notify(ni, nid, alive=false, reset=false, when), as
// kiblnd_peer_notify does.
func (l *LND) lnetNotify(n *kibNet, nid lnet.NID, when sim.Time) {
	l.stats.NotifyDown++
	l.connEvent(n, nid, "notify_down", 0, 0, 0)
	_ = n.node.Notify(n.ni, nid, false, false, when)
}

// destroyDev models kiblnd_destroy_dev when the last net on a device shuts down (lnetctl lnet
// unconfigure, net del): the listener goes, so a peer's CONNREQ meets no listener and the CM
// rejects it (invalid service ID); a later Startup creates the device afresh.
func (l *LND) destroyDev(d *dev) {
	if d.listen != nil {
		d.listen.Destroy()
		d.listen = nil
	}
	for i, x := range l.devs {
		if x == d {
			l.devs = append(l.devs[:i], l.devs[i+1:]...)
			break
		}
	}
	delete(l.devOf, d.port)
}

// SetTimeout changes the o2ib `timeout` an NI uses at run time, as `lnetctl net set --net NET
// --lnd-timeout S` does by writing ko2iblnd's timeout module parameter (2.17+, LU-18566;
// kiblnd_timeout reads it at each use, 0 falling back to lnet_lnd_timeout). The kernel's
// value is module-wide; the caller sets it on every o2ib NI of the node. The connect request
// timeout (kiblnd_connreq_timeout_ms, a quarter of it) follows. False when the NI is not
// o2iblnd's.
func (l *LND) SetTimeout(ni *lnet.NI, seconds int) bool {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.l != l || n.shutdown {
		return false
	}
	n.tun.Timeout = seconds
	ni.Net().LNDTimeout = sim.Time(seconds) * sim.Second
	n.tun.connreqTimeout = connreqTimeout(n.timeout())
	return true
}

// SetConnsPerPeer changes an NI's conns_per_peer at run time (`lnetctl net set
// --conns-per-peer`, the NI's lnd_conns_per_peer): peers created after it open that many
// connections; peers already connected keep theirs. False when the NI is not o2iblnd's.
func (l *LND) SetConnsPerPeer(ni *lnet.NI, v int) bool {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.shutdown {
		return false
	}
	n.tun.ConnsPerPeer = v
	return true
}
