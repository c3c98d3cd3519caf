package tcp

import (
	"net/netip"
)

// Ephemeral ports (net.ipv4.ip_local_port_range's default).
const (
	ephemeralLow  = 32768
	ephemeralHigh = 60999
)

// Host is a machine with one or more IPv4 interfaces. A crashed host is silent; Restart
// brings it back with no connections or listeners.
type Host struct {
	n         *Network
	idx       int
	name      string
	ifaces    []int32
	crashed   bool
	boots     uint32 // incarnation: bumped by Restart
	listeners []listener
	conns     []int32 // live connection ids on this host, in creation order
	nextPort  uint16
}

type listener struct {
	addr   netip.Addr // bound address; the zero Addr: every address (INADDR_ANY)
	port   uint16
	opt    Options
	accept func(*Conn)
}

// Name returns the host's name.
func (h *Host) Name() string { return h.name }

// Addrs returns the host's interface addresses in the order they were attached.
func (h *Host) Addrs() []netip.Addr {
	out := make([]netip.Addr, len(h.ifaces))
	for i, ii := range h.ifaces {
		out[i] = h.n.ifaces[ii].addr
	}
	return out
}

// Links returns the links of the host's interfaces, in the order of Addrs.
func (h *Host) Links() []*Link {
	out := make([]*Link, len(h.ifaces))
	for i, ii := range h.ifaces {
		out[i] = h.n.ifaces[ii].link
	}
	return out
}

// Crashed reports whether the host is down.
func (h *Host) Crashed() bool { return h.crashed }

// Listen accepts connections to port on every address of the host (bound to INADDR_ANY).
// accept is called for each connection once its three-way handshake has completed; it
// should set the connection's Handler. Listening on a port already listened on replaces the
// listener.
func (h *Host) Listen(port uint16, opt Options, accept func(*Conn)) {
	h.ListenAddr(netip.Addr{}, port, opt, accept)
}

// ListenAddr accepts connections to addr:port only (a socket bound to one address); the zero
// addr is every address, as Listen. A SYN goes to the listener bound to its destination
// address, else to the one bound to every address, as Linux looks them up. Listening on an
// address and port already listened on replaces the listener.
func (h *Host) ListenAddr(addr netip.Addr, port uint16, opt Options, accept func(*Conn)) {
	for i := range h.listeners {
		if h.listeners[i].port == port && h.listeners[i].addr == addr {
			h.listeners[i] = listener{addr, port, opt, accept}
			return
		}
	}
	h.listeners = append(h.listeners, listener{addr, port, opt, accept})
}

// Unlisten stops accepting connections to port on every address (the listener Listen
// made); established connections stay. A SYN to the port is then answered with RST.
func (h *Host) Unlisten(port uint16) { h.UnlistenAddr(netip.Addr{}, port) }

// UnlistenAddr stops the listener ListenAddr made for addr:port.
func (h *Host) UnlistenAddr(addr netip.Addr, port uint16) {
	for i := range h.listeners {
		if h.listeners[i].port == port && h.listeners[i].addr == addr {
			h.listeners = append(h.listeners[:i], h.listeners[i+1:]...)
			return
		}
	}
}

// Listening returns the host's listening sockets as `ss -ltn` lists them, in the order they
// were made: one bound to every address as 0.0.0.0:port.
func (h *Host) Listening() []netip.AddrPort {
	out := make([]netip.AddrPort, len(h.listeners))
	for i, l := range h.listeners {
		a := l.addr
		if !a.IsValid() {
			a = netip.IPv4Unspecified()
		}
		out[i] = netip.AddrPortFrom(a, l.port)
	}
	return out
}

// Established returns the host's connections in state ESTABLISHED as `ss -tn state
// established` lists them (local and remote address), in the order they were made.
func (h *Host) Established() [][2]netip.AddrPort {
	var out [][2]netip.AddrPort
	for _, id := range h.conns {
		if c := h.n.conns[id]; c.live() && c.state == StateEstablished {
			out = append(out, [2]netip.AddrPort{c.local, c.peer})
		}
	}
	return out
}

// Dial opens a connection from local address src (src.Port() 0 picks an ephemeral port)
// to dst. done is called exactly once, from a later event: with the established
// connection, or with a nil Conn and ErrConnRefused (the peer answered the SYN with RST),
// ErrTimedOut (SynRetries retransmissions went unanswered), ErrAddrInUse (src's port is
// taken on this host, as opt.Reuse decides) or ErrAddrNotAvail (src is not one of the
// host's addresses, with opt.Reuse a connection from src to dst exists, or src.Port() is 0
// and every ephemeral port is taken).
func (h *Host) Dial(src, dst netip.AddrPort, opt Options, done func(*Conn, error)) {
	h.n.dial(h, src, dst, opt, done)
}

// CheckBind returns the error a Dial from src, an address of the host with an explicit
// port, to dst would fail with for its port (ErrAddrInUse, ErrAddrNotAvail: see Reuse), or
// nil, as the bind and connect of a socket with opt's options would report it at once. A
// caller walking ports (lnet_connect) asks it before each Dial.
func (h *Host) CheckBind(src, dst netip.AddrPort, opt Options) error {
	if opt.Reuse == ReuseNone {
		if h.portInUse(src.Addr(), src.Port()) {
			return ErrAddrInUse
		}
		return nil
	}
	if opt.Reuse == ReuseAddr && h.listening(src.Addr(), src.Port()) {
		return ErrAddrInUse
	}
	for _, id := range h.conns {
		if c := h.n.conns[id]; c.local == src && c.peer == dst {
			return ErrAddrNotAvail
		}
	}
	return nil
}

// Crash stops the host at once: its connections and listeners vanish without a segment
// sent, and it neither sends nor answers anything until Restart. No upcall is made for
// them.
func (h *Host) Crash() { h.n.crash(h) }

// Restart boots a crashed host: it has no connections and no listeners (the application
// must Listen again); segments of connections from before the crash are answered with RST.
func (h *Host) Restart() {
	if !h.crashed {
		return
	}
	h.crashed = false
	h.boots++
}
