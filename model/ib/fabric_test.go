package ib

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// scenario runs a small mixed workload (three flows, one lossy link, CM set-up, READs)
// and returns the event checksum and the completion log.
func scenario(t *testing.T, seed uint64) (uint64, uint64, []twc) {
	k, f, s := fabricN(t, seed, 3, Config{})
	sum := sim.NewChecksum()
	k.SetObserver(sum.Observe)
	f.Links()[2].SetLoss(0.001)
	rcPair(t, s[0], s[2], QPAttr{Timeout: 8, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1}, 32)
	c2 := &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
	rcPair(t, s[1], c2, QPAttr{Timeout: 8, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1}, 64)
	mr, _ := s[2].p.HCA().RegMR(1<<20, AccessRemoteWrite|AccessRemoteRead)
	for i := 0; i < 20; i++ {
		must(t, s[0].qp.PostSend(SendWR{ID: uint64(i), Op: OpWrite, Len: 300000, Signaled: true, RKey: mr.RKey}))
		must(t, s[1].qp.PostSend(SendWR{ID: uint64(i), Op: OpRead, Len: 200000, Signaled: true, RKey: mr.RKey}))
		must(t, c2.qp.PostRecv(RecvWR{ID: uint64(i), Len: 5000}))
		must(t, s[1].qp.PostSend(SendWR{ID: uint64(100 + i), Op: OpSend, Len: 5000, Signaled: true}))
	}
	run(t, k)
	var log []twc
	for _, sd := range s {
		log = append(log, sd.r.wcs...)
	}
	return sum.Sum(), sum.Events(), log
}

func TestDeterminism(t *testing.T) {
	s1, n1, l1 := scenario(t, 42)
	s2, n2, l2 := scenario(t, 42)
	if s1 != s2 || n1 != n2 || len(l1) != len(l2) {
		t.Fatalf("same seed: checksum %x/%x events %d/%d", s1, s2, n1, n2)
	}
	for i := range l1 {
		if l1[i] != l2[i] {
			t.Fatalf("completion %d differs: %+v vs %+v", i, l1[i], l2[i])
		}
	}
	if len(l1) != 80 {
		t.Fatalf("%d completions, want 80", len(l1))
	}
	s3, _, _ := scenario(t, 43)
	if s3 == s1 {
		t.Fatalf("different seeds gave the same checksum %x (loss draws not seeded?)", s1)
	}
}

func TestFatTreeRouting(t *testing.T) {
	for _, tc := range []struct{ radix, over, leaves, hosts, spines int }{
		{8, 1, 4, 16, 4},
		{8, 3, 3, 18, 2},
		{36, 1, 2, 36, 18},
	} {
		k := sim.New(1)
		f := New(k, Config{})
		spec := LinkSpec{Rate: HDR, Latency: 20}
		nodes, err := f.BuildFatTree(FatTree{Radix: tc.radix, Oversubscription: tc.over, Leaves: tc.leaves, Host: spec, Spine: spec},
			"cn", netip.MustParseAddr("192.168.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != tc.hosts || len(f.Switches()) != tc.spines+tc.leaves {
			t.Fatalf("%+v: %d hosts %d switches", tc, len(nodes), len(f.Switches()))
		}
		src := nodes[0].HCAs()[0].Port(1)
		spines := map[int32]bool{}
		for _, n := range nodes[1:] {
			dst := n.HCAs()[0].Port(1)
			hops := 0
			if !f.walk(src, dst, func(ln *lane) bool {
				hops++
				if ln.to.kind == epSwitch && f.switches[ln.to.idx].Name[0] == 's' {
					spines[ln.to.idx] = true
				}
				return true
			}) {
				t.Fatalf("%+v: %s unreachable from %s", tc, dst, src)
			}
			if hops != 2 && hops != 4 {
				t.Fatalf("%+v: %d hops to %s", tc, hops, dst)
			}
		}
		if len(spines) != tc.spines {
			t.Fatalf("%+v: routes from one host use %d of %d spines", tc, len(spines), tc.spines)
		}
		if f.PortByIP(netip.MustParseAddr("192.168.0.2")) != nodes[1].HCAs()[0].Port(1) {
			t.Fatal("addresses not assigned in order")
		}
	}
	if _, err := New(sim.New(1), Config{}).BuildFatTree(FatTree{Radix: 4, Leaves: 5}, "x", netip.Addr{}); err == nil {
		t.Fatal("a fat tree with more leaves than spine ports was accepted")
	}
}

// TestFatTreeNonBlocking: in a 1:1 fat tree, four hosts of leaf 0 writing to four hosts
// of leaf 1 each get the full link rate (D-mod-K routes them over different spines); with
// a spine link down and a resweep, two flows share a spine and get half.
func TestFatTreeNonBlocking(t *testing.T) {
	for _, broken := range []bool{false, true} {
		k := sim.New(1)
		f := New(k, Config{})
		spec := LinkSpec{Rate: EDR, Latency: 20}
		nodes, _ := f.BuildFatTree(FatTree{Radix: 8, Oversubscription: 1, Leaves: 2, Host: spec, Spine: spec}, "cn", netip.Addr{})
		if broken {
			f.Links()[0].LinkDown() // leaf0 - spine0
			f.Resweep()
		}
		var srcs []*side
		for i := 0; i < 4; i++ {
			mk := func(n *Node) *side {
				s := &side{n: n, p: n.HCAs()[0].Port(1), r: &rec{k: k}}
				s.cq, _ = s.p.HCA().CreateCQ(256, s.r)
				s.cq.ReqNotify()
				return s
			}
			a, b := mk(nodes[i]), mk(nodes[4+i])
			rcPair(t, a, b, defRTS, 16)
			mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteWrite)
			for j := 0; j < 16; j++ {
				must(t, a.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
			}
			srcs = append(srcs, a)
		}
		run(t, k)
		var worst sim.Time
		for _, a := range srcs {
			if at := a.r.wcs[15].at; at > worst {
				worst = at
			}
		}
		gbps := 16 * (1 << 20) * 8 / float64(worst)
		t.Logf("broken=%v: slowest flow %.2f Gb/s", broken, gbps)
		if !broken && gbps < 98 {
			t.Fatalf("non-blocking fat tree gives a flow only %.2f Gb/s", gbps)
		}
		if broken && (gbps > 60 || gbps < 45) {
			t.Fatalf("with 3 of 4 spines, the slowest flow gets %.2f Gb/s, want about half", gbps)
		}
	}
}

// TestSMSweep: with a subnet manager sweep, traffic whose spine link failed is rerouted and
// completes; without it the QP exhausts its retries.
func TestSMSweep(t *testing.T) {
	for _, sweep := range []sim.Time{0, 5 * sim.Millisecond} {
		k := sim.New(1)
		f := New(k, Config{SMSweepDelay: sweep})
		spec := LinkSpec{Rate: EDR, Latency: 20}
		nodes, _ := f.BuildFatTree(FatTree{Radix: 4, Oversubscription: 1, Leaves: 2, Host: spec, Spine: spec}, "n", netip.Addr{})
		mk := func(n *Node) *side {
			s := &side{n: n, p: n.HCAs()[0].Port(1), r: &rec{k: k}}
			s.cq, _ = s.p.HCA().CreateCQ(16, s.r)
			s.cq.ReqNotify()
			return s
		}
		a, b := mk(nodes[0]), mk(nodes[2]) // leaf0 -> leaf1
		rcPair(t, a, b, QPAttr{Timeout: 12, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1}, 4)
		var spineLink *Link
		f.walk(a.p, b.p, func(ln *lane) bool {
			if ln.from.kind == epSwitch && ln.to.kind == epSwitch && spineLink == nil {
				spineLink = f.links[ln.link]
			}
			return true
		})
		spineLink.LinkDown()
		must(t, b.qp.PostRecv(RecvWR{Len: 100}))
		must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 100, Signaled: true}))
		run(t, k)
		want := WCRetryExcErr
		if sweep > 0 {
			want = WCSuccess
		}
		if !slices.Equal(a.r.statuses(), []WCStatus{want}) {
			t.Fatalf("sweep %v: %v", sweep, a.r.statuses())
		}
	}
}
