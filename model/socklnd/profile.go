package socklnd

import (
	"net/netip"

	"github.com/lnetsim/lnetsim/model/tcp"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Profile holds the ksocklnd behaviour rules that differ between the Lustre releases the
// model knows, one field per rule. The zero value is master: each field is the older
// behaviour, set for the releases before the change its comment names. It is set per NI
// (SetProfile), so each node of a mixed cluster follows its own release; whoever maps
// releases fills it, and code here tests the fields, never a release name.
type Profile struct {
	// TimeoutLocalStatus: a tx whose time ran out (ksocknal_txlist_done for -ETIMEDOUT,
	// the txs queued on a conn ksocknal_find_timed_out_conn closes, and the stale txs
	// ksocknal_flush_stale_txs fails) reports LOCAL_TIMEOUT, which charges only the local
	// NI (up to 2.15; LU-17505 reports NETWORK_TIMEOUT, charging the peer NI too, from
	// 2.16).
	TimeoutLocalStatus bool
	// AcceptAnyAddress: the LNet acceptor listens on one socket bound to every address
	// (lnet_sock_listen with no address), on accept_port, while the node has a socklnd net
	// (up to 2.16; LU-18812 binds a socket to each socklnd NI's address from 2.17).
	AcceptAnyAddress bool
	// NoAcceptPortBulk: lnet has no accept_port_bulk: every conn is made to accept_port and
	// the acceptor listens on it alone (up to 2.16; LU-19139 adds the parameter in 2.16.58,
	// so 2.17).
	NoAcceptPortBulk bool
	// NoStartupLinkState: an NI starting on an interface whose link is down is not set
	// fatal: only a later link event does that (up to 2.15; LU-16836 09c6e2b872, 2.15.57,
	// checks the device's state in ksocknal_startup from 2.16).
	NoStartupLinkState bool
	// BindReuseAddr: LNet's sockets are SO_REUSEADDR, so a dial from a reserved port that a
	// listener holds fails to bind (up to 2.12; LU-13783 99d9638d6c, 2.14.51, makes them
	// SO_REUSEPORT, which shares a port with the acceptor's listener too). Either way a port
	// is shared by connections to different peers (see reservedPort).
	BindReuseAddr bool
}

// reuse is the tcp model's port sharing for LNet's sockets under p.
func (p Profile) reuse() tcp.Reuse {
	if p.BindReuseAddr {
		return tcp.ReuseAddr
	}
	return tcp.ReusePort
}

// timedOut is the health status of a tx whose time ran out under p.
func (p Profile) timedOut() lnet.HStatus {
	if p.TimeoutLocalStatus {
		return lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT
	}
	return lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
}

// txListStatus is TxListStatus under p: -ETIMEDOUT gives p's timed-out status.
func (p Profile) txListStatus(cur lnet.HStatus, errno int) lnet.HStatus {
	if cur == lnet.LNET_MSG_STATUS_OK && -errno == ETIMEDOUT {
		return p.timedOut()
	}
	return TxListStatus(cur, errno)
}

// SetProfile sets the release rules of the NI with that NID; it takes effect when the NI
// starts (set it before Startup). An NI started later on the same address (`lnetctl net
// add` of another net on the interface) takes the rules too: they are its node's.
func (l *LND) SetProfile(nid lnet.NID, p Profile) {
	if l.profiles == nil {
		l.profiles = map[lnet.NID]Profile{}
	}
	l.profiles[nid] = p
	if l.addrProfiles == nil {
		l.addrProfiles = map[netip.Addr]Profile{}
	}
	l.addrProfiles[ipOf(nid)] = p
}

// profileOf returns the release rules of the NI with that NID (SetProfile), else those of
// its address, else master's.
func (l *LND) profileOf(nid lnet.NID) Profile {
	if p, ok := l.profiles[nid]; ok {
		return p
	}
	return l.addrProfiles[ipOf(nid)]
}
