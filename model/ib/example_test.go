package ib_test

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/sim"
)

// ulp is a minimal consumer: it prints CM events and completions, accepts every request,
// and on the client sends one message once connected.
type ulp struct {
	name   string
	k      *sim.Kernel
	cq     *ib.CQ
	client bool
}

func (u *ulp) CMEvent(ev ib.CMEvent) {
	fmt.Printf("%-9v %s: %v %q\n", u.k.Now(), u.name, ev.Type, ev.PrivateData)
	switch ev.Type {
	case ib.CMAddrResolved:
		ev.ID.ResolveRoute(sim.Second)
	case ib.CMRouteResolved:
		ev.ID.CreateQP(ib.QPInitAttr{SendCQ: u.cq, RecvCQ: u.cq, MaxSendWR: 8, MaxRecvWR: 8})
		ev.ID.Connect(ib.ConnParam{PrivateData: []byte("CONNREQ"), RetryCount: 5, RNRRetryCount: 6})
	case ib.CMConnectRequest:
		qp, _ := ev.ID.CreateQP(ib.QPInitAttr{SendCQ: u.cq, RecvCQ: u.cq, MaxSendWR: 8, MaxRecvWR: 8})
		qp.PostRecv(ib.RecvWR{ID: 1, Len: 4096})
		ev.ID.Accept(ib.ConnParam{PrivateData: []byte("CONNACK"), RetryCount: 5, RNRRetryCount: 6})
	case ib.CMEstablished:
		if u.client {
			ev.ID.QP().PostSend(ib.SendWR{ID: 42, Op: ib.OpSend, Len: 4096, Signaled: true})
		}
	}
}

func (u *ulp) CompletionEvent(cq *ib.CQ) {
	var wcs [4]ib.WC
	for {
		n := cq.Poll(wcs[:])
		for _, wc := range wcs[:n] {
			fmt.Printf("%-9v %s: %v wr %d %v %d bytes\n", u.k.Now(), u.name, wc.Opcode, wc.WRID, wc.Status, wc.ByteLen)
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

func Example() {
	k := sim.New(1)
	f := ib.New(k, ib.Config{})
	nodes := f.SingleSwitch([]string{"c1", "oss1"}, ib.LinkSpec{Rate: ib.EDR, Latency: 50 * sim.Nanosecond},
		netip.MustParseAddr("10.0.0.1"))
	users := make([]*ulp, 2)
	for i, n := range nodes {
		users[i] = &ulp{name: n.Name, k: k, client: i == 0}
		users[i].cq, _ = n.HCAs()[0].CreateCQ(64, users[i])
		users[i].cq.ReqNotify()
	}
	lis := nodes[1].CreateID(users[1])
	lis.BindAddr(netip.MustParseAddrPort("10.0.0.2:987"))
	lis.Listen(16)
	id := nodes[0].CreateID(users[0])
	id.ResolveAddr(netip.Addr{}, netip.MustParseAddrPort("10.0.0.2:987"), 5*sim.Second)
	k.Run()
	// Output:
	// 50us      c1: ADDR_RESOLVED ""
	// 150us     c1: ROUTE_RESOLVED ""
	// 160us     oss1: CONNECT_REQUEST "CONNREQ"
	// 170us     c1: ESTABLISHED "CONNACK"
	// 170.529us oss1: ESTABLISHED ""
	// 170.529us oss1: RECV wr 1 SUCCESS 4096 bytes
	// 170.731us c1: SEND wr 42 SUCCESS 4096 bytes
}
