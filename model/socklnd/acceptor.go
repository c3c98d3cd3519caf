package socklnd

import (
	"net/netip"

	"github.com/lnetsim/lnetsim/model/tcp"
)

// The LNet acceptor's listening sockets (lnet/lnet/acceptor.c) and the ports socklnd dials.
// accept_port and accept_port_bulk are lnet module parameters, "the same on all nodes": the
// LND keeps one pair for every node it serves (SetAcceptPorts).

// SetAcceptPorts sets lnet's accept_port (control connections) and accept_port_bulk (bulk
// connections, LU-19139, 2.17; the Profile's NoAcceptPortBulk ignores it), both 988 by
// default. Set them before any NI starts.
func (l *LND) SetAcceptPorts(port, bulk uint16) { l.acceptPort, l.acceptPortBulk = port, bulk }

// dialPort is the port lnet_connect connects a conn of type typ to: accept_port for a
// CONTROL conn, accept_port_bulk for any other (the single ANY conn of typed_conns=0
// included), where the node has accept_port_bulk (2.17+).
func (l *LND) dialPort(n *ksockNet, typ ConnType) uint16 {
	if typ == ConnControl || n.profile.NoAcceptPortBulk {
		return l.acceptPort
	}
	return l.acceptPortBulk
}

// acceptorSockets are the sockets the acceptor listens on for NI n: from 2.17 (LU-18812,
// lnet_acceptor_add_sockets from ksocknal_startup) the NI's own address on accept_port and,
// when it differs, accept_port_bulk; up to 2.16 (AcceptAnyAddress) one socket bound to every
// address on accept_port, which lnet_acceptor_start opens while the node has a socklnd net.
func (l *LND) acceptorSockets(n *ksockNet) []netip.AddrPort {
	if n.profile.AcceptAnyAddress {
		return []netip.AddrPort{netip.AddrPortFrom(netip.Addr{}, l.acceptPort)}
	}
	out := []netip.AddrPort{netip.AddrPortFrom(n.addr, l.acceptPort)}
	if l.acceptPortBulk != l.acceptPort && !n.profile.NoAcceptPortBulk {
		out = append(out, netip.AddrPortFrom(n.addr, l.acceptPortBulk))
	}
	return out
}

// hostOfNet returns the acceptor state of n's host, made on first use.
func (l *LND) hostOfNet(h *tcp.Host) *hostState {
	hs := l.listen[h]
	if hs == nil {
		hs = &hostState{h: h}
		l.listen[h] = hs
		l.hostsL = append(l.hostsL, hs)
	}
	return hs
}

// acceptorAdd opens NI n's listening sockets (NI start-up): a socket another NI of the host
// already listens on is shared, counted, and closed with the last NI needing it.
func (l *LND) acceptorAdd(n *ksockNet) {
	hs := l.hostOfNet(n.host)
	for _, ap := range l.acceptorSockets(n) {
		if hs.refs(ap, 1) == 1 {
			n.host.ListenAddr(ap.Addr(), ap.Port(), tcp.Options{}, func(c *tcp.Conn) { l.accept(hs, c) })
		}
	}
}

// acceptorRemove closes NI n's listening sockets (NI shutdown: lnet_acceptor_remove_sockets
// from 2.17, lnet_acceptor_stop up to 2.16) that no other NI of the host needs.
func (l *LND) acceptorRemove(n *ksockNet) {
	hs := l.listen[n.host]
	if hs == nil {
		return
	}
	for _, ap := range l.acceptorSockets(n) {
		if hs.refs(ap, -1) == 0 {
			n.host.UnlistenAddr(ap.Addr(), ap.Port())
		}
	}
}

// refs adds d to the count of NIs using listening socket ap and returns the new count.
func (hs *hostState) refs(ap netip.AddrPort, d int) int {
	for i := range hs.socks {
		if hs.socks[i].ap == ap {
			hs.socks[i].n += d
			n := hs.socks[i].n
			if n <= 0 {
				hs.socks = append(hs.socks[:i], hs.socks[i+1:]...)
			}
			return n
		}
	}
	if d <= 0 {
		return -1
	}
	hs.socks = append(hs.socks, sockRef{ap, d})
	return d
}

// sockRef counts the NIs of a host using one listening socket.
type sockRef struct {
	ap netip.AddrPort
	n  int
}
