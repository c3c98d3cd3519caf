package socklnd

import "github.com/lnetsim/lnetsim/model/lnet"

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
