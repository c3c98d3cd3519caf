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
// (*ConnReq), a HELLO (*Hello), a message header (*Msg) or a payload (*Payload); or the end
// of a socket: *Fin when socklnd closed it in order (sock_release: FIN after what was
// written), *Rst when it aborted it or its close found data unread (the TCP model's RST),
// and *Rst from the peer (Src the peer) when the socket was reset (ECONNRESET: the peer
// aborted, or rebooted and lost it). A socket model/tcp itself gives up on (ETIMEDOUT)
// shows nothing.
type WireEvent struct {
	Time     sim.Time
	Src, Dst netip.AddrPort
	Offset   uint64 // stream bytes written on this socket before the record
	Bytes    int
	Rec      any
}

// Fin and Rst are the WireEvent records of a socket's end.
type (
	Fin struct{}
	Rst struct{}
)

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

// closeSock closes c's socket in order (FIN after the data) or aborts it (RST) and shows the
// wire observer the segment the close sends: none from a socket already gone or still
// connecting, an RST when an orderly close met unread data.
func (l *LND) closeSock(c *conn, abort bool) {
	st := c.sock.Info().State
	if abort {
		c.sock.Abort()
	} else {
		c.sock.Close()
	}
	if l.wire == nil || st == tcp.StateClosed || st == tcp.StateSynSent || s2host(c).Crashed() {
		return
	}
	var rec any = &Fin{}
	if abort || c.sock.Info().State == tcp.StateClosed {
		rec = &Rst{}
	}
	l.wire(&WireEvent{Time: l.k.Now(), Src: c.myAddr, Dst: c.peerAddr, Offset: c.txOff, Rec: rec})
}

// sockReset shows the wire observer the peer's RST that reset c's socket.
func (l *LND) sockReset(c *conn) {
	if l.wire != nil {
		l.wire(&WireEvent{Time: l.k.Now(), Src: c.peerAddr, Dst: c.myAddr, Rec: &Rst{}})
	}
}
