package lnet

import "testing"

// BenchmarkPutAckDirect is the reference for BenchmarkPutAckRouted: PUT+ACK round trips
// between two single-NI nodes on one net, 16 in flight.
func BenchmarkPutAckDirect(b *testing.B) { benchPairPutAck(b, 1) }

// BenchmarkPutAckRouted measures PUT+ACK round trips from a client to a server on another
// net through one router, 16 in flight. Each round trip forwards both its messages (PUT and
// ACK), each over two hops: the issue-6 bound (a forwarded message costs at most 2x a direct
// one) holds when this is at most 2x BenchmarkPutAckDirect.
func BenchmarkPutAckRouted(b *testing.B) {
	r := newRouted(b, 1, DefaultTunables(), DefaultTunables())
	r.lnd.Hook = nil
	r.s.portals[testPortal][0].md.spec.Handler = nil
	runPumper(b, r.k, &pumper{src: r.c, dst: r.sNID, remaining: 16, tb: b})
}
