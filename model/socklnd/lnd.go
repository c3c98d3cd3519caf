package socklnd

import (
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// AcceptorPort is the default of LNet's acceptor ports (lnet's accept_port and, from 2.17,
// accept_port_bulk module parameters; SetAcceptPorts).
const AcceptorPort = 988

// Reserved local ports lnet_connect binds from, highest first (LNET_ACCEPTOR_MAX/MIN_RESERVED_PORT).
const (
	maxReservedPort = 1023
	minReservedPort = 512
)

// LND is socklnd: one value serves every tcp NI of every node on one tcp.Network (the kernel
// has one module per node; the model keeps them apart by NI). It implements lnet.LND.
type LND struct {
	n   *tcp.Network
	k   *sim.Kernel
	hid sim.HandlerID

	params   map[lnet.NetID]Params  // lookups only
	niParams map[lnet.NID]Params    // per-NI overrides (SetNIParams); lookups only
	nets     []*ksockNet            // started NIs, in start order
	byNID    map[lnet.NID]*ksockNet // lookups only: NI by its NID (the acceptor's target)
	profiles map[lnet.NID]Profile   // release rules per NI (SetProfile); lookups only
	// addrProfiles are the release rules by address (SetProfile), for NIs added later.
	addrProfiles map[netip.Addr]Profile
	hosts        map[netip.Addr]*tcp.Host // lookups only: host by interface address
	listen       map[*tcp.Host]*hostState // lookups only
	// acceptPort and acceptPortBulk are lnet's accept_port and accept_port_bulk
	// (SetAcceptPorts; 988 both).
	acceptPort, acceptPortBulk uint16
	hostsL                     []*hostState            // listening hosts, in order
	conns                      []*conn                 // every conn made, by index (events name them)
	cbs                        []*connCB               // every conn cb, by index
	peers                      [PeerHashSize][]*peerNI // ksnd_peers: the peer table the reaper walks
	reaper                     sim.Timer
	rIdx                       int // ksocknal_reaper's peer_index
	incSeq                     uint64
	obs                        Observer
	wire                       func(*WireEvent)

	stats Stats
}

// hostState is a host's acceptor: its listening sockets (its dials' reserved ports are
// found by reservedPort).
type hostState struct {
	h     *tcp.Host
	socks []sockRef // listening sockets and the NIs using each (acceptor.go)
}

// Stats are LND-wide counters for tests and reports.
type Stats struct {
	ConnsCreated  uint64
	ConnsClosed   uint64
	ConnectFailed uint64 // active connection attempts that failed (ksocknal_connect's failed path)
	LostRaces     uint64 // HELLOs answered CONN_NONE to me (EALREADY)
	RaceRefused   uint64 // passive connections I refused by the race rule
	TimedOutConns uint64 // conns the reaper closed (socket error or sock_timeout)
	StaleTxs      uint64 // txs failed waiting for a connection (ksocknal_flush_stale_txs)
	NotifyDown    uint64 // lnet_notify(alive=false) calls (ksocknal_peer_failed)
	Noops         uint64 // NOOPs queued (ZC-ACKs and keepalives)
	Keepalives    uint64
	ZcReqs        uint64 // txs sent zero-copy, waiting for the peer's ZC-ACK
}

// Event kinds of the LND's handler.
const (
	evReaper  = iota + 1 // one second of ksocknal_reaper
	evConnect            // connd runs ksocknal_connect for a conn cb (arg: cb index)
	evTx                 // a scheduler transmits what is queued on a conn (arg: conn index)
	evHello              // a handshake's HELLO read timed out (arg: conn index)
	evKill               // the reaper terminates a closed conn (arg: conn index)
)

// New returns a socklnd on network n with DefaultParams for every net.
func New(n *tcp.Network) *LND {
	l := &LND{n: n, k: n.Kernel(), params: map[lnet.NetID]Params{}, byNID: map[lnet.NID]*ksockNet{},
		hosts: map[netip.Addr]*tcp.Host{}, listen: map[*tcp.Host]*hostState{},
		acceptPort: AcceptorPort, acceptPortBulk: AcceptorPort}
	l.hid = l.k.Register(l)
	l.reaper = sim.Timer{H: l.hid, Kind: evReaper}
	return l
}

// SetParams sets the module parameters of one net (before its NIs start).
func (l *LND) SetParams(net lnet.NetID, p Params) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("socklnd %s: %w", net, err)
	}
	l.params[net] = p
	return nil
}

// Params returns the parameters of a net.
func (l *LND) Params(net lnet.NetID) Params {
	if p, ok := l.params[net]; ok {
		return p
	}
	return DefaultParams()
}

// SetNIParams overrides the parameters of one NI before it starts (what `lnetctl net add`
// sets per NI: its tos and conns_per_peer); ClearNIParams removes the override.
func (l *LND) SetNIParams(nid lnet.NID, p Params) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("socklnd %s: %w", nid, err)
	}
	if l.niParams == nil {
		l.niParams = map[lnet.NID]Params{}
	}
	l.niParams[nid] = p
	return nil
}

// ClearNIParams removes an NI's override: it starts with its net's parameters.
func (l *LND) ClearNIParams(nid lnet.NID) { delete(l.niParams, nid) }

// Stats returns the LND's counters.
func (l *LND) Stats() Stats { return l.stats }

// Type returns SOCKLND.
func (l *LND) Type() lnet.LNDType { return lnet.SOCKLND }

// Ctl models ksocknal_ctl: IOC_LIBCFS_GET_PEER (ksocknal_get_peer_info) over the NI's peers
// (lnet.CtlGetPeer); the other IOC commands are not modelled (-EINVAL).
func (l *LND) Ctl(ni *lnet.NI, cmd uint32, arg any) error {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil {
		return lnet.Errno(-lnet.EINVAL)
	}
	return lnet.CtlGetPeer(cmd, arg, len(n.peers))
}

// EagerRecv keeps the conn as the receive's private.
func (l *LND) EagerRecv(_ *lnet.NI, private any, _ *lnet.Msg) (any, error) { return private, nil }

// NotifyPeerDown does nothing: socklnd has no lnd_notify_peer_down.
func (l *LND) NotifyPeerDown(*lnet.NI, lnet.NID) {}

// ksockNet is struct ksock_net: socklnd's state for one NI.
type ksockNet struct {
	l           *LND
	ni          *lnet.NI
	node        *lnet.Node
	tun         tunables
	host        *tcp.Host
	addr        netip.Addr
	link        *tcp.Link // the link of the interface carrying addr
	incarnation uint64
	shutdown    bool
	peers       map[lnet.NID]*peerNI // lookups only
	profile     Profile              // the node's release's rules
}

// ipOf returns a NID's IPv4 address.
func ipOf(nid lnet.NID) netip.Addr {
	a := nid.Addr()
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
}

// hostOf finds the host with an interface at ip.
func (l *LND) hostOf(ip netip.Addr) *tcp.Host {
	if h, ok := l.hosts[ip]; ok {
		return h
	}
	for _, h := range l.n.Hosts() {
		for _, a := range h.Addrs() {
			if a == ip {
				l.hosts[ip] = h
				return h
			}
		}
	}
	return nil
}

// Startup models ksocknal_startup: the NI's interface is the one carrying its address; the
// net gets an incarnation stamp (ktime_get_real_ns in the kernel: here the start time plus a
// sequence number), conns_per_peer is resolved from the link speed when 0, and the acceptor
// listens for it (acceptorAdd: from 2.17 on the NI's address, accept_port and
// accept_port_bulk; up to 2.16 on every address, accept_port).
func (l *LND) Startup(ni *lnet.NI) error {
	p, ok := l.niParams[ni.NID()]
	if !ok {
		p = l.Params(ni.NID().Net())
	}
	if err := p.Validate(); err != nil {
		return err
	}
	ip := ipOf(ni.NID())
	h := l.hostOf(ip)
	if h == nil {
		return fmt.Errorf("socklnd: no Ethernet interface with address %s", ip)
	}
	if nt := ni.Net().Tunables; nt.PeerCredits > 0 {
		p.PeerCredits, p.Credits = nt.PeerCredits, nt.Credits
	}
	speed := 0
	var link *tcp.Link
	for i, a := range h.Addrs() {
		if a == ip {
			link = h.Links()[i]
			speed = int(link.Spec().Rate / tcp.Mbps)
		}
	}
	l.incSeq++
	n := &ksockNet{l: l, ni: ni, node: ni.Node(), tun: p.setup(speed), host: h, addr: ip, link: link,
		incarnation: uint64(l.k.Now()) + l.incSeq, peers: map[lnet.NID]*peerNI{}, profile: l.profileOf(ni.NID())}
	if p.SockTimeout > 0 && ni.Net().LNDTimeout == 0 {
		ni.Net().LNDTimeout = secs(p.SockTimeout)
	}
	ni.LNDData = n
	l.nets = append(l.nets, n)
	l.byNID[ni.NID()] = n
	l.acceptorAdd(n)
	if link != nil && link.IsDown() && !n.profile.NoStartupLinkState {
		ni.Node().SetNIFatal(ni, true) // ksocknal_startup's dev_status check (LU-16836)
	}
	if !l.k.Armed(&l.reaper) {
		l.k.ArmAfter(&l.reaper, sim.Second)
	}
	return nil
}

// reservedPort models lnet_connect's walk of the reserved ports: from 1023 down to 512, the
// first from which a socket bound to address a connects to dst, its bind and connect
// failing with EADDRINUSE or EADDRNOTAVAIL for a port that is not (lnet_sock_connect:
// LNet's sockets share ports, so a port serves one connection to each peer address and
// port, and the three typed conns to one peer take 1023, 1022 and 1021). ok is false when
// every port fails: lnet_connect's EADDRINUSE ("No privileged ports available").
func (hs *hostState) reservedPort(a netip.Addr, dst netip.AddrPort, opt tcp.Options) (src netip.AddrPort, ok bool) {
	for port := maxReservedPort; port >= minReservedPort; port-- {
		src = netip.AddrPortFrom(a, uint16(port))
		if hs.h.CheckBind(src, dst, opt) == nil {
			return src, true
		}
	}
	return src, false
}

// Shutdown models ksocknal_shutdown: every peer of the NI is deleted, its conns closed and
// its waiting txs failed.
func (l *LND) Shutdown(ni *lnet.NI) {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil || n.shutdown {
		return
	}
	n.shutdown = true
	for b := range l.peers {
		for _, p := range append([]*peerNI(nil), l.peers[b]...) {
			if p.net == n {
				l.delPeer(p)
			}
		}
	}
	for i, x := range l.nets {
		if x == n {
			l.nets = append(l.nets[:i], l.nets[i+1:]...)
			break
		}
	}
	delete(l.byNID, ni.NID())
	l.acceptorRemove(n)
	if len(l.nets) == 0 {
		l.k.Disarm(&l.reaper)
	}
}

// SetTimeout changes the sock_timeout an NI uses at run time, as `lnetctl net set --net
// tcp --lnd-timeout S` does by writing ksocklnd's sock_timeout module parameter (2.17+,
// LU-18566; ksocknal_timeout reads it at each use, 0 falling back to lnet_lnd_timeout). The
// kernel's value is module-wide; the caller sets it on every tcp NI of the node. False when
// socklnd does not run the NI.
func (l *LND) SetTimeout(ni *lnet.NI, seconds int) bool {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil || n.l != l || n.shutdown {
		return false
	}
	n.tun.SockTimeout = seconds
	ni.Net().LNDTimeout = secs(seconds)
	return true
}

// timeout is ksocknal_timeout() for the NI.
func (n *ksockNet) timeout() sim.Time { return n.tun.Timeout(n.ni.LNDTimeout()) }

// Timeout models ksocknal_timeout as socklnd's lnd_get_timeout: sock_timeout, or
// lnet_lnd_timeout when it is 0. LNet derives message deadlines from it.
func (l *LND) Timeout(ni *lnet.NI) sim.Time {
	if n, _ := ni.LNDData.(*ksockNet); n != nil {
		return n.timeout()
	}
	return 0
}

// Query models ksocknal_query: when the peer was last known alive.
func (l *LND) Query(ni *lnet.NI, nid lnet.NID) (sim.Time, bool) {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil {
		return 0, false
	}
	if p := n.peers[nid]; p != nil {
		for _, c := range p.conns {
			c.progress()
		}
	}
	if p := n.peers[nid]; p != nil && p.lastAlive != 0 {
		return p.lastAlive, true
	}
	return 0, false
}

// Handle runs the LND's events.
func (l *LND) Handle(kind int, arg uint64) {
	switch kind {
	case evReaper:
		l.reap()
	case evConnect:
		l.connect(l.cbs[arg])
	case evTx:
		c := l.conns[arg]
		c.txScheduled = false
		l.transmit(c)
	case evHello:
		c := l.conns[arg]
		if c.hs != hsDone && !c.closing {
			l.handshakeFailed(c, -ETIMEDOUT)
		}
	case evKill:
		l.terminate(l.conns[arg])
	}
}

// peerBucket is the peer table bucket of a NID: hash_add's hash_min over nidhash (the net
// number XOR the address as stored, in network byte order), 7 bits of the golden-ratio hash.
func peerBucket(nid lnet.NID) int {
	key := uint64(nid.Net()) ^ uint64(bits.ReverseBytes32(nid.Addr()))
	return int((key * 0x61C8864680B583EB) >> (64 - 7))
}

// lnetNotify calls lnet_notify(ni, nid, alive=false, reset=false, when).
func (l *LND) lnetNotify(n *ksockNet, nid lnet.NID, when sim.Time) {
	l.stats.NotifyDown++
	l.event(n, nid, "notify_down", 0, "")
	_ = n.node.Notify(n.ni, nid, false, false, when)
}

// LinkChanged models ksocknal_handle_link_state_change for a link whose carrier went down or
// came back (the runner calls it with the link fault): every NI on an interface of that link
// is set fatal, or not (lnet_set_link_fatal_state), and LNet is asked for a new ping target
// (lnet_mark_ping_buffer_for_update; both in Node.SetNIFatal, which applies each release's
// rules). Connections are left to their own timeouts, as in the kernel.
func (l *LND) LinkChanged(link *tcp.Link, up bool) {
	for _, n := range l.nets {
		if n.link == link && !n.shutdown {
			n.node.SetNIFatal(n.ni, !up)
			l.event(n, 0, "link_state", 0, map[bool]string{true: "up", false: "down"}[up])
		}
	}
}
