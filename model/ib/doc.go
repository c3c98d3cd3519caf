// Package ib models an InfiniBand subnet for lnetsim: the fabric (nodes, HCAs, ports,
// links, switches, routing), the verbs a ULP such as o2iblnd programs against (RC queue
// pairs, completion queues, memory regions, asynchronous device events) and the RDMA
// connection manager. It runs on a sim.Kernel and imports nothing above it.
//
// Every upcall (CQHandler, AsyncHandler, CMHandler) is a plain method call made from
// inside one of the fabric's event handlers, never from inside the verbs call that caused
// it: posting work, connecting or failing a link only schedules events.
//
// # Building a fabric
//
//	k := sim.New(seed)
//	f := ib.New(k, ib.Config{})
//	nodes := f.SingleSwitch([]string{"c1", "oss1"},
//		ib.LinkSpec{Rate: ib.EDR, Latency: 50 * sim.Nanosecond},
//		netip.MustParseAddr("10.0.0.1")) // IPoIB addresses 10.0.0.1, 10.0.0.2
//
// BuildFatTree builds a two-level leaf/spine tree; AddNode, AddHCA, AddSwitch and Connect
// build anything else.
//
// # Server (passive side)
//
//	h := oss.HCAs()[0]
//	h.RegisterEventHandler(dev)               // ib_register_event_handler
//	cq, _ := h.CreateCQ(1024, comp)           // ib_create_cq + comp_handler
//	cq.ReqNotify()                            // ib_req_notify_cq
//	lis := oss.CreateID(cmh)                  // rdma_create_id
//	lis.BindAddr(netip.AddrPortFrom(ip, 987)) // rdma_bind_addr
//	lis.Listen(256)                           // rdma_listen
//
//	// cmh.CMEvent(ev) with ev.Type == ib.CMConnectRequest, ev.PrivateData = CONNREQ:
//	qp, _ := ev.ID.CreateQP(ib.QPInitAttr{SendCQ: cq, RecvCQ: cq, MaxSendWR: 256, MaxRecvWR: 18})
//	qp.PostRecv(ib.RecvWR{ID: rx, Len: 4096}) // ib_post_recv, before accepting
//	ev.ID.Accept(ib.ConnParam{PrivateData: connack, RNRRetryCount: 6}) // or ev.ID.Reject(priv)
//	// later: CMEstablished, and eventually CMDisconnected, CMTimewaitExit.
//
// # Client (active side)
//
//	id := c1.CreateID(cmh)
//	id.ResolveAddr(netip.Addr{}, netip.AddrPortFrom(serverIP, 987), 5*sim.Second)
//	// CMAddrResolved:  id.ResolveRoute(5 * sim.Second)
//	// CMRouteResolved: qp, _ := id.CreateQP(...); post receives;
//	//                  id.Connect(ib.ConnParam{PrivateData: connreq, RetryCount: 5, RNRRetryCount: 6})
//	// CMEstablished (with the CONNACK in ev.PrivateData), or CMRejected (ev.Status is the
//	// reject reason), CMUnreachable, CMAddrError, CMRouteError, CMConnectError.
//
// # Data transfer
//
//	qp.PostSend(ib.SendWR{ID: tx, Op: ib.OpSend, Len: 4096, Signaled: true})          // ib_post_send
//	qp.PostSend(ib.SendWR{ID: tx, Op: ib.OpWrite, Len: n, RKey: rkey, RemoteAddr: off}) // RDMA WRITE
//	// comp.CompletionEvent(cq): poll until empty, re-arm, poll again if ReqNotify reports
//	// missed completions:
//	for {
//		n := cq.Poll(wcs)
//		for _, wc := range wcs[:n] { /* wc.WRID, wc.Status, wc.Opcode, wc.ByteLen */ }
//		if n == 0 && !cq.ReqNotify() {
//			break
//		}
//	}
//
// Remote buffers come from HCA.RegMR: the peer passes the rkey (and an offset) in its own
// messages, as o2iblnd's PUT_ACK and GET_REQ carry RDMA descriptors. Bytes are not
// stored; only lengths move.
//
// # Faults
//
// Link.LinkDown/LinkUp, Link.SetLoss/SetCorruption/SetExtraDelay, HCA.HCAFatal/Recover,
// Node.CrashNode/Restart, Fabric.InjectCMReject/InjectCMNoResponse/MoveAddr/Resweep take
// effect at the kernel's current time; a scenario timeline calls them from scheduled
// events. Their consequences reach the layer above only through the real channels: work
// completions, device events and CM events.
//
// ARCHITECTURE.md ("InfiniBand model") describes the granularity of data movement and
// the model's known simplifications.
package ib
