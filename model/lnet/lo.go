package lnet

import "github.com/lnetsim/lnetsim/sim"

// loLND is the loopback LND (lolnd, lnet/lnet/lo.c): a send to 0@lo is parsed on the spot by
// the same node, and the receive completes both messages at once.
type loLND struct{}

func (loLND) Type() LNDType                         { return LOLND }
func (loLND) Startup(*NI) error                     { return nil }
func (loLND) Shutdown(*NI)                          {}
func (loLND) Ctl(*NI, uint32, any) error            { return Errno(-EINVAL) } // no lnd_ctl: LNetCtl's -EINVAL
func (loLND) EagerRecv(*NI, any, *Msg) (any, error) { return nil, nil }
func (loLND) NotifyPeerDown(*NI, NID)               {}
func (loLND) Query(*NI, NID) (sim.Time, bool)       { return 0, false }
func (loLND) Send(ni *NI, _ any, m *Msg) error      { return ni.node.Parse(ni, &m.Hdr, ni.nid, m, false) }
func (loLND) Recv(ni *NI, priv any, m *Msg, _ bool, _, _, _ int) error {
	if m != nil {
		ni.node.Finalize(m, 0, LNET_MSG_STATUS_OK)
	}
	if tx, ok := priv.(*Msg); ok {
		ni.node.Finalize(tx, 0, LNET_MSG_STATUS_OK)
	}
	return nil
}

// startLo creates the node's 0@lo NI (the_lnet.ln_loni). It is not one of Nets/NIs: selection,
// recovery and the interface count ignore it. Its net's tunables are all 0, as
// lnet_startup_lndni leaves them for lolnd (lolnd takes no credits).
func (n *Node) startLo() {
	net := &Net{ID: LoNet, SelPriority: ^uint32(0), lnd: loLND{}}
	n.loNI = &NI{node: n, nid: LoNID, net: net, health: MaxHealth, status: NIStatusUp, SelPriority: ^uint32(0)}
	net.nis = []*NI{n.loNI}
	n.niByNID.set(LoNID, n.loNI)
}

// loSend models lnet_handle_lo_send: no credits, no peer NI (so never health-checked), header
// source and destination 0@lo, then straight to lolnd.
func (n *Node) loSend(m *Msg) int {
	if m.Hdr.Dst != LoNID {
		return -EHOSTUNREACH
	}
	m.Hdr.Src = LoNID
	m.target = LoNID
	m.txNI = n.loNI
	m.txPeerNI = nil
	n.commitTx(m)
	n.lndSend(m)
	return 0
}
