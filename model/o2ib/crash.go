package o2ib

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
)

// NodeCrashed forgets o2iblnd's state on a crashed node (ib.Node.CrashNode): the kernel
// module's memory is gone with the node, so its devices, nets, peers, conns and txs vanish
// without finalizing anything (that node's LNet is gone too) and without a word to its
// peers, which find out through their own completions and timeouts. After ib's Restart, a
// new lnet.Node's Startup brings the NIs up again with new incarnation stamps, and peers
// still holding conns of the old incarnation meet CONN_STALE.
func (l *LND) NodeCrashed(n *ib.Node) {
	keepDevs := l.devs[:0]
	for _, d := range l.devs {
		if d.node != n {
			keepDevs = append(keepDevs, d)
			continue
		}
		delete(l.devOf, d.port)
		for _, kn := range d.nets {
			kn.shutdown = true
			kn.crashed = true
		}
	}
	clear(l.devs[len(keepDevs):])
	l.devs = keepDevs
	for b := range l.peerTab {
		keep := l.peerTab[b][:0]
		for _, p := range l.peerTab[b] {
			if p.net.crashed {
				p.linked = false
				p.txQueue = nil
				continue
			}
			keep = append(keep, p)
		}
		clear(l.peerTab[b][len(keep):])
		l.peerTab[b] = keep
	}
	for _, c := range l.conns {
		if c.destroyed || !c.peer.net.crashed {
			continue
		}
		c.state = connDisconnected // no transition: the conn vanishes with its node
		c.destroyed = true
		c.active.Drain()
		c.txNocred.Drain()
		c.txQueue.Drain()
		c.txRsrvd.Drain()
		c.rxWire.reset(l)
		if c.qp != nil && int(c.qp.Num()) < len(l.connByQPN) {
			l.connByQPN[c.qp.Num()] = nil
		}
	}
	for _, t := range l.txs {
		if t.net != nil && t.net.crashed {
			t.net.ntx--
			*t = tx{idx: t.idx, gen: t.gen + 1}
			l.freeTx = append(l.freeTx, t.idx)
		}
	}
	keepNets := l.nets[:0]
	for _, kn := range l.nets {
		if !kn.crashed {
			keepNets = append(keepNets, kn)
		} else {
			kn.peers = map[lnet.NID]*peer{}
		}
	}
	clear(l.nets[len(keepNets):])
	l.nets = keepNets
}
