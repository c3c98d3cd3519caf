package lnet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// metaNodes builds a (one NI, 10.0.0.1@o2ib) and b (two NIs, 10.0.0.2@o2ib and
// 10.0.1.2@o2ib) on tun, each with fail_loc set before it starts (0: none).
func metaNodes(t *testing.T, tun Tunables, failA, failB uint32) (k *sim.Kernel, a, b *Node) {
	t.Helper()
	k = sim.New(1)
	lnd := NewIdealLND(k, sim.Microsecond)
	mk := func(name string, nids []string, fail uint32) *Node {
		n, err := NewNode(k, name, tun)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range nids {
			if _, err := n.AddNI(nid(s), lnd, NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		n.SetFailLoc(fail, 100)
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return k, mk("a", []string{"10.0.0.1@o2ib"}, failA), mk("b", []string{"10.0.0.2@o2ib", "10.0.1.2@o2ib"}, failB)
}

// metaPingOnce runs lnet_discover_nid_metadata's ping from a to target and returns its rc
// (NIDMetadataReply's, or -EIO without a REPLY).
func metaPingOnce(t *testing.T, k *sim.Kernel, a *Node, target NID) int {
	t.Helper()
	src, sink, err := a.NIDMetadataPing(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &evRec{}
	md := a.MDBind(MDSpec{Length: sink, Threshold: 2, Handler: rec, Options: MD_TRUNCATE})
	if err := a.Get(src, md, target, ReservedPortal, PingMatchBits, 0); err != nil {
		t.Fatal(err)
	}
	if err := k.RunUntil(k.Now() + sim.Millisecond); err != nil {
		t.Fatal(err)
	}
	ev := rec.last(EventREPLY)
	if ev == nil {
		return -EIO
	}
	b, _ := ev.Data.(*PingBuffer)
	return a.NIDMetadataReply(target, b, ev.MLength)
}

func consoleText(n *Node) string {
	var s []string
	for _, l := range n.Console() {
		s = append(s, l.Text)
	}
	return strings.Join(s, "\n")
}

// TestPingMetadata: under CFS_FAIL_TEST_PING_MD (some, 100) a starting node's ping target
// makes 1 + 1 + 2 checks (lnet_extra_bytes_for_md, then 0@lo and its two NIs in
// lnet_ping_target_install_locked), has room for max_interfaces (4096) entries after its
// NIs and an entry for each of its two NIs. A node under the same fail_loc fetches them
// into LNET_PING_BUFFER_MAX bytes and logs one "found metadata reply" line per entry.
func TestPingMetadata(t *testing.T) {
	k, a, b := metaNodes(t, DefaultTunables(), 0x1000e003, 0x1000e003)
	if got, want := fmt.Sprint(b.PingBuffer().Metadata), "[10.0.0.2@o2ib 10.0.1.2@o2ib]"; got != want {
		t.Errorf("b's metadata entries: %s, want %s", got, want)
	}
	if got, want := b.pingTargetBytes(), 16+16*3+4+40*4096; got != want {
		t.Errorf("b's ping target: %d bytes, want %d", got, want)
	}
	if b.fail.count != 4 {
		t.Errorf("b made %d checks at start-up, want 4", b.fail.count)
	}
	if got := fmt.Sprint(a.PingBuffer().Metadata); got != "[10.0.0.1@o2ib]" {
		t.Errorf("a's metadata entries: %s", got)
	}
	if _, sink, _ := a.NIDMetadataPing(nid("10.0.0.2@o2ib")); sink != pingBufferMax {
		t.Errorf("metadata ping's buffer: %d bytes, want %d", sink, pingBufferMax)
	}
	if rc := metaPingOnce(t, k, a, nid("10.0.0.2@o2ib")); rc != 0 {
		t.Fatalf("metadata ping: rc %d", rc)
	}
	want := "Ping reply received with mapping:\nfound metadata reply NI[10.0.0.2@o2ib]\nfound metadata reply NI[10.0.1.2@o2ib]"
	if got := consoleText(a); got != want {
		t.Errorf("a's console:\n%s\nwant:\n%s", got, want)
	}
}

// TestPingMetadataRefused: lnet_discover_nid_metadata's refusals. Without fail_loc at the
// pinging node its buffer has no room for the header (lnet_get_ni_bytes leaves it out): 32
// bytes, short of b's 48. Without fail_loc at the target, or on 2.16 (no check point,
// NoNIDMetadata), the reply has no metadata.
func TestPingMetadataRefused(t *testing.T) {
	rel216, err := LookupRelease("2.16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		tun          Tunables
		failA, failB uint32
		want         string
	}{
		{"no fail_loc at the pinger", DefaultTunables(), 0, 0x1000e003, "LNetError: 10.0.0.2@o2ib: Short reply 32(64 expected): rc = -71"},
		{"no fail_loc at the target", DefaultTunables(), 0x1000e003, 0, "LNetError: 10.0.0.2@o2ib: Peer has no metadata: rc = -71"},
		{"2.16", rel216.Tunables(), 0x1000e003, 0x1000e003, "LNetError: 10.0.0.2@o2ib: Short reply 32(64 expected): rc = -71"},
	} {
		k, a, b := metaNodes(t, c.tun, c.failA, c.failB)
		if rc := metaPingOnce(t, k, a, nid("10.0.0.2@o2ib")); rc != -EPROTO {
			t.Errorf("%s: rc %d, want %d", c.name, rc, -EPROTO)
		}
		if got := consoleText(a); got != c.want {
			t.Errorf("%s: console %q, want %q", c.name, got, c.want)
		}
		if c.name == "2.16" && (b.fail.count != 0 || len(b.PingBuffer().Metadata) != 0 || b.pingTargetBytes() != 64) {
			t.Errorf("2.16: %d checks, metadata %v, target %d bytes; want none, none, 64", b.fail.count, b.PingBuffer().Metadata, b.pingTargetBytes())
		}
	}
}
