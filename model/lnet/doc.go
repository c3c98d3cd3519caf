// Package lnet is lnetsim's model of the LNet core: NIDs, nets and local NIs, peers with peer
// nets and peer NIs (multi-rail and not), MDs and MEs, PUT/ACK/GET/REPLY with events, the
// multi-rail selection pathway, NI and peer-NI tx credits, health, resends, the response
// tracker, local and peer-NI recovery, ping/push discovery and drop/delay fault rules. It
// re-implements the behaviour of lnet/lnet/{lib-move,lib-msg,peer,api-ni,net_fault}.c on the
// sim event kernel, imports only sim, and talks to network drivers through the LND interface
// (the Go form of struct lnet_lnd). IdealLND is a lossless LND for tests.
//
// One Node is one simulated node's LNet instance; all Nodes of a run share a *sim.Kernel.
// Nothing here uses goroutines, the wall clock or map iteration order; messages and MDs are
// pooled, so the steady-state send/receive path allocates nothing.
//
// # The flow of one PUT
//
// Initiator (node A):
//
//  1. Node.MDBind + Node.Put (LNetPut): a Msg is taken from the pool, bound to the MD
//     (threshold decremented), and, when an ACK is asked for and response_tracking covers
//     PUTs, a response tracker is attached (deadline now + transaction_timeout).
//  2. send (lnet_send) → selectPathway (lnet_select_pathway): find/create the destination
//     peer NI; queue the message on the peer while the peer is being discovered (a GET on
//     the reserved portal whose REPLY carries the peer's NI list); classify the send case
//     (source-specified or not, local or remote, multi-rail or not); the case's handler
//     (handleSendCase, lnet_handle_send_case_locked) picks the local NI and peer NI or the
//     gateway (health, priorities, preferred NIDs, credits, round-robin sequence).
//  3. handleSend (lnet_handle_send): bump sequences, commit (message deadline), set the
//     header's source and destination, note the next hop in the response tracker.
//  4. postSend (lnet_post_send_locked): deadline check, peer-NI tx credit, NI tx credit
//     (queueing FIFO when either is exhausted), delay rules, then LND.Send.
//  5. The LND completes the send and calls Node.Finalize(msg, status, hstatus)
//     (lnet_finalize): the health check updates the NI/peer-NI health and may queue a
//     resend (drained by the monitor); otherwise the SEND event is delivered, credits return
//     (posting queued messages) and the message is freed. A resend re-runs steps 2-4; one
//     whose MD was unlinked meanwhile is refused after the commit (-ECANCELED, LOCAL_ERROR).
//
// Target (node B):
//
//  6. The LND calls Node.Parse (lnet_parse): validation, receive-side drop rules, the
//     sender's peer NI marked alive, commit, delay rules, then parsePut matches an ME/MD on
//     the portal and calls LND.Recv.
//  7. The LND calls Finalize for the received PUT: health check (a received message raises
//     the sender's peer-NI health), the PUT event, and then the same Msg becomes the ACK,
//     sent from the NID the PUT was addressed to back to the hop it came from.
//
// Back on A:
//
//  8. Parse of the ACK finds the MD by its wire handle, detaches the response tracker, and
//     Finalize delivers the ACK event, which unlinks the MD (threshold exhausted).
//
// The monitor (one event per second per node, lnet_monitor_thread) checks routers, resends
// queued messages, expires response trackers every transaction_timeout/2 (charging the next
// hop), and sends recovery pings to unhealthy local and peer NIs with 2^n s backoff.
//
// # Routing (route_table.go, forward.go, router_checker.go)
//
// Node.AddRoute adds a route (remote net, gateway NID on a local net, hops, priority);
// Node.SetRouting makes a node forward. A send to a remote net (to a multi-rail peer only
// if it has no NI on a local net) goes through routedPath
// (lnet_handle_find_routed_path): the route is chosen by priority, hops, the gateway peer NI's
// health, queued bytes and credits, then round robin; the message targets the gateway
// (Msg.TargetIsRouter) and its header keeps the final destination. On the router, Parse
// sees a message for another node and parseForward (lnet_parse_forward_locked) takes a router
// credit of the sending peer NI and a buffer of the tiny/small/large pool (queueing on the
// peer's rtrq or the pool's rbp_msgs), then receives the payload; its Finalize forwards it
// with lnet_send (Msg.Routing) with its own selection and tx credits; the buffer and router
// credit return when the forward completes. ACK and REPLY are made by the final destination
// and return through the gateway they came from. The router checker pings every gateway
// over each of its local nets in turn, each every alive_router_check_interval (a
// response-tracked GET to its primary NID from any NI: it fails with its send or at
// transaction_timeout) and then pushes this node's NIs to it; the replies decide lp_alive
// and, through lnet_is_route_alive, each route's state. An opt-in policy the kernel
// lacks (Tunables.RouterMsgExpiry) drops routed messages still queued past their arrival
// deadline.
//
// # Not modelled yet
//
// CPT partitioning beyond the router buffer pools and NI tx queues (Tunables.CPTs splits
// those per CPT; peer tables, message containers and locks are single, and NIs have no CPT
// list); removal of peer NIs
// that disappear from a ping reply. UDSP policies (udsp.go) set the selection priorities and the preferred-NI and
// preferred-router lists the selection reads.
package lnet
