// Package socklnd models socklnd, the LNet network driver for TCP/IP sockets
// (lnet/klnds/socklnd). This file set holds the kernel's rules that need no TCP model, each
// a pure function with table tests against the kernel's behaviour; the LND itself runs them
// on model/tcp's connections.
//
// Each modelled function names the kernel function it models in its doc comment and says
// where it differs. The files have one job each:
//
//	params.go    module parameters (Params, DefaultParams), ksocknal_tunables_init/_setup,
//	             ksocklnd_speed2cpp, ksocknal_timeout
//	conntype.go  connection types, ksocknal_invert_type, pro_match_tx, ksocknal_find_conn_locked,
//	             the type ksocknal_connect opens next
//	hello.go     the HELLO message of protocols V1 to V3 (encode, decode, byte order), version
//	             negotiation, ksocknal_recv_hello's decisions, the connection race rule
//	rules.go     reconnect backoff, the health status of each failure, ksocknal_peer_failed's
//	             condition, the reaper's pace, its timeout test and the keepalive NOOP rule
//
// # Differences from the kernel
//
//   - Protocol V4 (16-byte NIDs, IPv6 peers) is recognised in a HELLO but not spoken: lnet.NID
//     is a 4-byte-address NID.
//   - Module parameters are per net, as for o2ib (one value serves every node).
//   - No checksums (enable_csum), no zero-copy receive (zc_recv), no TOS.
package socklnd
