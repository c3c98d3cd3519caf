// The health stories (each health status's handling, resends, late failures, single-NI
// rules, unhealthy peer NIs, health_sensitivity 0) are the datadriven scripts
// testdata/health*.txt.
package lnet

import "testing"

func sumNIHealth(n *Node) int {
	s := 0
	for _, ni := range n.NIs() {
		s += ni.Health()
	}
	return s
}

func sumPeerHealth(n *Node, p *Peer) int {
	s := 0
	for _, lpni := range p.NIs() {
		s += lpni.Health()
	}
	return s
}

// health_sensitivity 0 forces retry_count to 0 (its health story is testdata/health_rules.txt).
func TestSensitivityZeroForcesNoRetries(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	t2 := DefaultTunables()
	t2.HealthSensitivity = 0
	if err := p.a.SetTunables(t2); err != nil || p.a.Tunables().RetryCount != 0 {
		t.Fatalf("SetTunables(sensitivity 0) = %v, retry_count %d", err, p.a.Tunables().RetryCount)
	}
}

// NI status follows the health edges: DOWN at 0, UP again at 1000; a fatal NI reports DOWN at
// once and is advertised DOWN when the monitor, woken by the LND's request, has built the new
// ping target (lnet_mark_ping_buffer_for_update, lnet_update_ping_buffer).
func TestNIStatusEdges(t *testing.T) {
	p := newPair(t, 2, 1, DefaultTunables(), NetTunables{})
	ni := p.a.NIs()[1]
	for i := 0; i < 10; i++ {
		p.a.handleLocalFailure(ni)
	}
	if ni.Health() != 0 || ni.Status() != NIStatusDown {
		t.Fatalf("health %d status %s", ni.Health(), ni.Status())
	}
	if err := p.a.SetNIHealth(ni.NID(), 1000); err != nil || ni.Status() != NIStatusUp {
		t.Fatalf("status after set 1000: %s", ni.Status())
	}
	seq := p.a.PingBuffer().Seq
	p.a.SetNIFatal(ni, true)
	if ni.Status() != NIStatusDown || p.a.PingBuffer().NIs[2].Status != NIStatusUp {
		t.Fatalf("fatal NI: status %s, advertised %s; want down, up until the monitor runs", ni.Status(), p.a.PingBuffer().NIs[2].Status)
	}
	p.run(t, 0)
	if pb := p.a.PingBuffer(); pb.NIs[2].Status != NIStatusDown || pb.Seq != seq+1 {
		t.Fatalf("fatal NI advertised %s in ping target %d; want down in %d", pb.NIs[2].Status, pb.Seq, seq+1)
	}
}
