package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// recLND is an ideal LND that records the privates LNet hands to Send and Recv.
type recLND struct {
	*IdealLND
	sendPriv []any
	recvPriv []any
	recvMsg  []*Msg
}

func (l *recLND) Send(ni *NI, private any, m *Msg) error {
	l.sendPriv = append(l.sendPriv, private)
	return l.IdealLND.Send(ni, private, m)
}

func (l *recLND) Recv(ni *NI, private any, m *Msg, d bool, off, mlen, rlen int) error {
	l.recvPriv = append(l.recvPriv, private)
	l.recvMsg = append(l.recvMsg, m)
	return l.IdealLND.Recv(ni, nil, m, d, off, mlen, rlen)
}

// contractPair is A (10.0.0.1@o2ib) and B (10.0.0.2@o2ib) on one recording LND; B has an ME
// on the test portal.
func contractPair(t *testing.T) (*sim.Kernel, *recLND, *Node, *Node) {
	t.Helper()
	k := sim.New(1)
	l := &recLND{IdealLND: NewIdealLND(k, sim.Microsecond)}
	mk := func(name, s string) *Node {
		n, err := NewNode(k, name, DefaultTunables())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.AddNI(nid(s), l, NetTunables{}); err != nil {
			t.Fatal(err)
		}
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, b := mk("a", "10.0.0.1@o2ib"), mk("b", "10.0.0.2@o2ib")
	b.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET})
	return k, l, a, b
}

// TestReplySendPrivateNil: the REPLY of a GET received without rdmaReq is sent with a nil
// private, after Recv(nil) released the GET's private (the lnd.go contract).
func TestReplySendPrivateNil(t *testing.T) {
	k, l, _, b := contractPair(t)
	ni := b.NI(nid("10.0.0.2@o2ib"))
	hdr := Header{Type: MsgGET, Src: nid("10.0.0.1@o2ib"), Dst: ni.NID(), SrcPID: LNET_PID_LUSTRE,
		DstPID: LNET_PID_LUSTRE, Portal: testPortal, SinkLen: 100, WMD: WireHandle{Idx: 1, Gen: 1}}
	if err := b.Parse(ni, &hdr, hdr.Src, "rx-private", false); err != nil {
		t.Fatal(err)
	}
	if err := k.RunUntil(k.Now() + sim.Millisecond); err != nil {
		t.Fatal(err)
	}
	if len(l.recvPriv) == 0 || l.recvPriv[0] != "rx-private" || l.recvMsg[0] != nil {
		t.Fatalf("Recv calls %v %v, want (rx-private, nil) first", l.recvPriv, l.recvMsg)
	}
	if len(l.sendPriv) == 0 {
		t.Fatal("no REPLY sent")
	}
	for i, p := range l.sendPriv {
		if p != nil {
			t.Fatalf("Send %d got private %v, want nil", i, p)
		}
	}
}

// TestParseDropsThroughRecv: a message not for this node (routing off) and a message after
// shutdown are dropped by LNet with Recv(private, nil) and Parse returns nil
// (lnet_drop_message); only a malformed message is an error, and then Recv is not called.
func TestParseDropsThroughRecv(t *testing.T) {
	_, l, _, b := contractPair(t)
	ni := b.NI(nid("10.0.0.2@o2ib"))
	hdr := Header{Type: MsgPUT, Src: nid("10.0.0.1@o2ib"), Dst: nid("10.0.9.9@o2ib"), PayloadLength: 10, Portal: testPortal}
	if err := b.Parse(ni, &hdr, hdr.Src, "p1", false); err != nil {
		t.Fatalf("not for me: %v", err)
	}
	if len(l.recvPriv) != 1 || l.recvPriv[0] != "p1" || l.recvMsg[0] != nil {
		t.Fatalf("Recv calls %v %v, want one (p1, nil)", l.recvPriv, l.recvMsg)
	}
	if st := ni.Stats(); st.DropCount != 1 || st.DropLength != 10 {
		t.Fatalf("NI drop stats %+v", st)
	}
	bad := Header{Type: MsgGET, Src: hdr.Src, Dst: ni.NID(), PayloadLength: 5}
	if err := b.Parse(ni, &bad, hdr.Src, "p2", false); err != ErrProto {
		t.Fatalf("malformed: %v, want ErrProto", err)
	}
	if len(l.recvPriv) != 1 {
		t.Fatalf("Recv called for a malformed message")
	}
	b.Shutdown()
	hdr.Dst = ni.NID()
	if err := b.Parse(ni, &hdr, hdr.Src, "p3", false); err != nil {
		t.Fatalf("after shutdown: %v", err)
	}
	if len(l.recvPriv) != 2 || l.recvPriv[1] != "p3" || l.recvMsg[1] != nil {
		t.Fatalf("Recv calls %v %v, want (p3, nil) second", l.recvPriv, l.recvMsg)
	}
}

// TestPingHeardSourceRule: on a router, lnet_parse counts a GET on the reserved portal as a
// ping by its header source (not one of the router's NIDs), not by the previous hop, and at
// most once per whole second per net: net_last_alive is that second.
func TestPingHeardSourceRule(t *testing.T) {
	k, _, _, b := contractPair(t)
	b.SetRouting(true)
	ni := b.NI(nid("10.0.0.2@o2ib"))
	if err := k.RunUntil(2500 * sim.Millisecond); err != nil {
		t.Fatal(err)
	}
	ping := func(src string, at sim.Time) {
		t.Helper()
		if err := k.RunUntil(at); err != nil {
			t.Fatal(err)
		}
		hdr := Header{Type: MsgGET, Src: nid(src), Dst: ni.NID(), SrcPID: LNET_PID_LUSTRE,
			DstPID: LNET_PID_LUSTRE, Portal: ReservedPortal, SinkLen: 100, WMD: WireHandle{Idx: 1, Gen: 1}}
		if err := b.Parse(ni, &hdr, nid("10.0.0.1@o2ib"), "p", false); err != nil {
			t.Fatal(err)
		}
	}
	ping("10.0.0.2@o2ib", 2500*sim.Millisecond) // the router's own NID as source: not a ping
	if got := ni.net.lastAlive; got != 0 {
		t.Fatalf("net_last_alive %v after a GET from a local source, want 0", got)
	}
	ping("10.0.0.1@o2ib", 2600*sim.Millisecond)
	if got := ni.net.lastAlive; got != 2*sim.Second {
		t.Fatalf("net_last_alive %v, want 2s", got)
	}
	b.setNIStatus(ni, NIStatusDown)
	ping("10.0.0.1@o2ib", 2900*sim.Millisecond) // the same second: nothing
	if ni.status != NIStatusDown {
		t.Fatalf("status %v after a second ping in second 2, want down", ni.status)
	}
	ping("10.0.0.1@o2ib", 3000*sim.Millisecond)
	if ni.net.lastAlive != 3*sim.Second || ni.status != NIStatusUp {
		t.Fatalf("net_last_alive %v status %v at 3s, want 3s up", ni.net.lastAlive, ni.status)
	}
}
