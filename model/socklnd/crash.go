package socklnd

import "github.com/lnetsim/lnetsim/model/tcp"

// HostCrashed forgets socklnd's state on a crashed host (call it with tcp.Host.Crash): the
// module's memory is gone with the node, so its nets, peers, conns and txs vanish without
// finalizing anything (that node's LNet is gone too) and without a segment to its peers,
// which find out by their own timeouts or, once the host is back, by its RSTs. After
// Restart, a new lnet.Node's Startup brings the NIs up with new incarnations and listens
// again.
func (l *LND) HostCrashed(h *tcp.Host) {
	keepNets := l.nets[:0]
	for _, n := range l.nets {
		if n.host == h {
			n.shutdown = true
			delete(l.byNID, n.ni.NID())
			continue
		}
		keepNets = append(keepNets, n)
	}
	clear(l.nets[len(keepNets):])
	l.nets = keepNets
	for b := range l.peers {
		keep := l.peers[b][:0]
		for _, p := range l.peers[b] {
			if p.net.host == h {
				p.linked, p.closing = false, true
				p.txQueue, p.zcReq = nil, nil
				if p.cb != nil {
					p.cb.deleted = true
				}
				continue
			}
			keep = append(keep, p)
		}
		clear(l.peers[b][len(keep):])
		l.peers[b] = keep
	}
	for _, c := range l.conns {
		if !c.dead && c.sock.Host() == h {
			l.k.Disarm(&c.helloT)
			c.dead, c.closing = true, true
			c.txQueue, c.rxMsg = nil, nil
		}
	}
	if hs := l.listen[h]; hs != nil {
		delete(l.listen, h)
		for i, x := range l.hostsL {
			if x == hs {
				l.hostsL = append(l.hostsL[:i], l.hostsL[i+1:]...)
				break
			}
		}
	}
	if len(l.nets) == 0 {
		l.k.Disarm(&l.reaper)
	}
}
