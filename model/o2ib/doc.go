// Package o2ib models o2iblnd, the LNet network driver for InfiniBand
// (lnet/klnds/o2iblnd), on top of model/ib's verbs and RDMA CM. LND implements
// lnet.LND; one LND value serves every o2ib NI of the nodes sharing one ib.Fabric.
//
// Each modelled function names the kernel function it models in its doc comment and says
// where it differs. The files have one job each:
//
//	params.go   module parameters (Params, DefaultParams) and kiblnd_tunables_setup
//	profile.go  the rules that differ between Lustre releases (Profile, zero: master)
//	lnd.go      the LND value, start-up/shut-down of NIs (kib_net), lnet_notify
//	dev.go      devices (kib_dev): listener, memory region, PORT_ERR/ACTIVE, DEVICE_FATAL
//	fmr.go      FastReg descriptor pools per net and CPT: map, unmap, growth, fail_loc 0xf201
//	peer.go     peers (kib_peer_ni), the peer table, connect failures
//	cm.go       the RDMA CM side: connect, passive connect, CONNACK, rejects, reconnects
//	conn.go     connections (kib_conn): creation, close, abort, completions
//	credits.go  kiblnd_check_sends_locked, kiblnd_post_tx_locked, NOOP rules
//	tx.go       tx descriptors, their queues and kiblnd_tx_done / kiblnd_launch_tx
//	send.go     kiblnd_send, kiblnd_recv, kiblnd_reply, kiblnd_init_rdma
//	rx.go       receive buffers, kiblnd_handle_rx, completions by cookie
//	connd.go    connd's periodic connection check (timeouts, keepalive, connreq timeout)
//	crash.go    forgetting a crashed node's state (NodeCrashed)
//	msg.go      wire messages, their sizes, CONNREQ/CONNACK and reject private data
//	bulkread.go the RDMA READ bulk variant (Params.Bulk = read; not in the kernel)
//	trace.go    the Observer hook for captures
//
// # One large PUT, both nodes
//
// A 1 MiB PUT with ACK from A (10.0.0.1@o2ib) to B (10.0.0.2@o2ib), conn established:
//
//	A lnet   Put -> lnet_select_pathway picks NI and peer NI, takes LNet credits
//	A o2ib   Send (kiblnd_send): payload > MaxImmediate -> tx PUT_REQ, tx_waiting,
//	         launchTx -> queueTxLocked on ibc_tx_queue_rsrvd (deadline now+timeout)
//	A o2ib   checkSends: reserved credit moves it to ibc_tx_queue; postTx takes a credit,
//	         piggy-backs outstanding credits, tx_sending++ -> ib PostSend(SEND 128 B)
//	  ib     the SEND crosses A's port, the switch and B's port (chunks, link credits);
//	         B's QP consumes a receive WR, ACKs; A's send CQ gets SUCCESS
//	A o2ib   txComplete: tx_sending-- (still waiting: stays on ibc_active_txs)
//	B o2ib   rxComplete -> handleRx(PUT_REQ): credits taken, lnet.Node.Parse(rdmaReq)
//	B lnet   lnet_parse -> lnet_parse_put matches the ME/MD -> LND Recv(mlen = 1 MiB)
//	B o2ib   Recv (kiblnd_recv): tx PUT_ACK with B's sink (rkey, 1 MiB) and both cookies,
//	         tx_waiting (for PUT_DONE), on ibc_tx_queue_nocred; the rx is reposted
//	         WITHOUT a credit (its buffer is the one PUT_DONE will land in)
//	  ib     PUT_ACK SEND B -> A
//	A o2ib   handleRx(PUT_ACK): the PUT_REQ tx is found by cookie, rebuilt by initRDMA as
//	         RDMA WRITE (1 MiB, unsignalled) + PUT_DONE(status = 1 MiB), re-queued on the
//	         no-credit queue; B's rx of the PUT_ACK reposted with a reserved credit
//	A o2ib   postTx: PostSend(RDMA_WRITE) then PostSend(SEND PUT_DONE)
//	  ib     the WRITE streams 16 chunks of 64 KiB to B's memory region at line rate;
//	         the PUT_DONE SEND follows on the same QP (RC ordering)
//	A o2ib   PUT_DONE's send completion -> txComplete -> txDone -> Finalize(PUT, OK)
//	A lnet   lnet_finalize: SEND event; the PUT waits for its ACK (response tracker)
//	B o2ib   handleRx(PUT_DONE) -> handleCompletion(PUT_ACK tx) -> txDone ->
//	         Finalize(received PUT, OK); the rx is reposted with a peer credit
//	B lnet   PUT event; the message becomes the ACK -> lnet_send -> o2ib Send(ACK)
//	B o2ib   ACK goes IMMEDIATE (consumes a credit, returns B's outstanding credits)
//	A o2ib   handleRx(IMMEDIATE) -> Parse -> Recv -> Finalize(ACK); rx reposted + credit
//	A lnet   ACK event, MD unlinked. Credits owed by either side ride on the next message
//	         or, at peercredits_hiw with nothing to carry them, on a NOOP.
//
// # Differences from the kernel
//
//   - The IB model moves byte counts, not bytes: the content of each SEND (the kib_msg)
//     is handed to the receiving conn in posting order (conn.rxWire) and taken by each
//     successful receive completion, which RC's in-order delivery makes exact.
//   - FastReg descriptors are counted, not mapped: no LOCAL_INV or REG_MR work request is
//     posted, every key is the device's one region's, and an RDMA is one WR (fmr.go).
//   - Only protocol version 2 is spoken; no device failover, no GPU paths, no checksums.
//   - Module parameters, timeout included, are per net or per NI (one LND value serves every
//     node); the kernel has one set per module.
package o2ib
