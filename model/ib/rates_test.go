package ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		mbps int64
		ok   bool
	}{
		{"EDR", 100_000, true}, {"hdr", 200_000, true}, {"NDR", 400_000, true}, {"SDR", 8_000, true},
		{"FDR", 54_545, true}, {"fdr10", 40_000, true}, {"XDR", 800_000, true}, {"100Gb/s", 100_000, true}, {"56Gbps", 56_000, true}, {"25G", 25_000, true},
		{"fast", 0, false}, {"-3G", 0, false}, {"", 0, false},
	} {
		r, err := ParseRate(tc.in)
		if (err == nil) != tc.ok || r.Mbps != tc.mbps {
			t.Errorf("ParseRate(%q) = %v, %v", tc.in, r.Mbps, err)
		}
	}
	if EDR.String() != "EDR" || RateGbps(12.5).String() != "12.5Gb/s" {
		t.Fatal("rate names")
	}
}

func TestTimerEncodings(t *testing.T) {
	if AckTimeout(0) != 0 || AckTimeout(1) != 8192 || AckTimeout(14) != 67108864 || AckTimeout(20) != 4294967296 {
		t.Fatal("local ACK timeout is not 4.096us * 2^v")
	}
	for code, want := range map[uint8]string{0: "655.36ms", 1: "10us", 12: "640us", 14: "1.28ms", 31: "491.52ms"} {
		if got := RNRDelay(code).String(); got != want {
			t.Errorf("RNRDelay(%d) = %s, want %s", code, got, want)
		}
	}
	for _, m := range []int{256, 512, 1024, 2048, 4096} {
		if !ValidMTU(m) {
			t.Errorf("MTU %d rejected", m)
		}
	}
	if ValidMTU(1500) || ValidMTU(8192) {
		t.Error("invalid MTU accepted")
	}
}

// TestPathMTU: a QP uses the smallest MTU on its path, which sets its packet count.
func TestPathMTU(t *testing.T) {
	k := sim.New(1)
	f := New(k, Config{})
	sw := f.AddSwitch("sw")
	na, nb := f.AddNode("a"), f.AddNode("b")
	pa, pb := na.AddHCA("h", 1).Port(1), nb.AddHCA("h", 1).Port(1)
	f.Connect(pa, sw, LinkSpec{Rate: EDR, MTU: 4096})
	f.Connect(pb, sw, LinkSpec{Rate: EDR, MTU: 1024})
	a := &side{n: na, p: pa, r: &rec{k: k}}
	b := &side{n: nb, p: pb, r: &rec{k: k}}
	a.cq, _ = pa.HCA().CreateCQ(8, a.r)
	b.cq, _ = pb.HCA().CreateCQ(8, b.r)
	rcPair(t, a, b, defRTS, 4)
	must(t, b.qp.PostRecv(RecvWR{Len: 100000}))
	must(t, a.qp.PostSend(SendWR{Op: OpSend, Len: 10240}))
	run(t, k)
	if c := pa.Counters(); c.PortXmitPkts != 10 || c.PortXmitData != (10240+10*pktHeader)/4 {
		t.Fatalf("sent %d packets, %d words; want 10 packets of 1024", c.PortXmitPkts, c.PortXmitData)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MTU 1500 accepted")
		}
	}()
	f.Connect(na.AddHCA("x", 1).Port(1), sw, LinkSpec{Rate: EDR, MTU: 1500})
}
