package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Notify is lnet_notify, an LND's report of a peer NID's aliveness: alive or not, whether to
// reset its health (alive && reset sets it to 1000), and when that was last known. It is
// ignored for a NID on another net than ni's, a time in the future, a "down" while auto_down is
// off, or a report older than the last one. It never decrements health; a "down" is passed to
// the LND's NotifyPeerDown. For a gateway, reset sets lp_alive to alive, and with discovery
// disabled the routes added through that NID follow alive.
func (n *Node) Notify(ni *NI, nid NID, alive, reset bool, when sim.Time) error {
	if ni != nil && ni.net.ID != nid.Net() {
		return fmt.Errorf("lnet_notify: %s is not on net %s", nid, ni.net.ID)
	}
	if when > n.k.Now() {
		return fmt.Errorf("lnet_notify: %s reported alive at %v, in the future", nid, when)
	}
	if !alive && !n.tun.AutoDown {
		return nil
	}
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return nil
	}
	if when < lpni.notifyStamp {
		return nil
	}
	lpni.notifyStamp = when
	if g := lpni.peer.gw; g != nil {
		if reset {
			g.alive = alive
		}
		if !n.tun.Discovery {
			for _, r := range g.routes {
				if r.gwNID == nid {
					r.alive = alive
				}
			}
		}
	}
	if alive {
		lpni.status = NIStatusUp
		if reset {
			n.setPeerHealth(lpni, MaxHealth, CauseNotify)
		}
		return nil
	}
	lpni.status = NIStatusDown
	if ni != nil {
		ni.net.lnd.NotifyPeerDown(ni, nid)
	}
	return nil
}
