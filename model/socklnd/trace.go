package socklnd

import (
	"net/netip"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// Event is one step of socklnd worth tracing: a HELLO, a conn coming up or closing, a tx
// written, a connect failure, a notification.
type Event struct {
	Kind string   // hello_out, hello_in, conn_up, conn_closed, conn_refused, tx, ...
	NI   lnet.NID // the local NI
	Peer lnet.NID
	RC   int    // errno or result code, 0 if none
	Info string // connection type or message type
}

// Observer receives the LND's events (tests, captures).
type Observer func(at int64, e Event)

// SetObserver installs o (nil to remove).
func (l *LND) SetObserver(o Observer) { l.obs = o }

// event reports e to the observer.
func (l *LND) event(n *ksockNet, peer lnet.NID, kind string, rc int, info string) {
	if l.obs == nil || n == nil {
		return
	}
	l.obs(int64(l.k.Now()), Event{Kind: kind, NI: n.ni.NID(), Peer: peer, RC: rc, Info: info})
}

// WireEvent is one record socklnd wrote into a socket, for captures: the acceptor request
// (*ConnReq), a HELLO (*Hello), a message header (*Msg) or a payload (*Payload).
type WireEvent struct {
	Time     sim.Time
	Src, Dst netip.AddrPort
	Offset   uint64 // stream bytes written on this socket before the record
	Bytes    int
	Rec      any
}

// SetWireObserver installs o (nil to remove); it sees every record written.
func (l *LND) SetWireObserver(o func(*WireEvent)) { l.wire = o }

// write puts rec into c's socket and reports whether it was taken; a taken record is
// shown to the wire observer.
func (l *LND) write(c *conn, rec tcp.Record) bool {
	if !c.sock.Write(rec) {
		return false
	}
	if l.wire != nil {
		l.wire(&WireEvent{Time: l.k.Now(), Src: c.myAddr, Dst: c.peerAddr, Offset: c.txOff, Bytes: rec.Bytes, Rec: rec.Payload})
	}
	c.txOff += uint64(rec.Bytes)
	return true
}
