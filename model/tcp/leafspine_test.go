package tcp

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// linkNames renders a path as its links' names.
func linkNames(p []*Link) string {
	s := make([]string, len(p))
	for i, l := range p {
		s[i] = l.Name()
	}
	return strings.Join(s, " ")
}

// leafSpine builds hosts h0.. on a leaf-spine fabric of 10 Gb/s links, 1us latency.
func leafSpine(t testing.TB, hosts, perLeaf, spines int, uplinkRate int64) (*sim.Kernel, *Network, []*Host, *LeafSpine) {
	t.Helper()
	k := sim.New(1)
	n := New(k, Config{})
	names := make([]string, hosts)
	for i := range names {
		names[i] = fmt.Sprint("h", i)
	}
	spec := LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond}
	up := LinkSpec{Rate: uplinkRate, Latency: sim.Microsecond}
	hs, ls, err := n.LeafSpineHosts(names, perLeaf, spines, spec, up, netip.MustParseAddr("10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	return k, n, hs, ls
}

// Hosts fill the leaves in order, every leaf has a trunk to every spine, a frame between
// hosts of one leaf stays on it and one between leaves crosses one spine.
func TestLeafSpineShape(t *testing.T) {
	_, n, hs, ls := leafSpine(t, 5, 2, 3, 10*Gbps)
	same(t, "leaves", len(ls.Leaves), 3)
	same(t, "spines", len(ls.Spines), 3)
	var got []string
	for _, h := range hs {
		got = append(got, h.Links()[0].Name())
	}
	same(t, "host links", strings.Join(got, " "), "h0-leaf0 h1-leaf0 h2-leaf1 h3-leaf1 h4-leaf2")
	same(t, "uplink", ls.Uplink(2, 1).Name(), "leaf2-spine1")
	same(t, "out of range", ls.Uplink(3, 0), (*Link)(nil))
	a := func(i int, port uint16) netip.AddrPort { return netip.AddrPortFrom(hs[i].Addrs()[0], port) }
	same(t, "same leaf", linkNames(n.Path(a(0, 1023), a(1, 988))), "h0-leaf0 h1-leaf0")
	same(t, "across", linkNames(n.Path(a(0, 1023), a(4, 988))), "h0-leaf0 leaf0-spine1 leaf2-spine1 h4-leaf2")
	same(t, "unknown address", n.Path(a(0, 1023), netip.MustParseAddrPort("10.9.9.9:988")) == nil, true)
	if _, _, err := New(sim.New(1), Config{}).LeafSpineHosts([]string{"a"}, 0, 1, LinkSpec{Rate: Gbps}, LinkSpec{Rate: Gbps}, netip.MustParseAddr("10.0.0.1")); err == nil {
		t.Error("0 hosts per leaf accepted")
	}
	if _, err := New(sim.New(1), Config{}).AddLeafSpine(1, 0, LinkSpec{Rate: Gbps}); err == nil {
		t.Error("0 spines accepted")
	}
}

// spineCounts returns, for flows from h0 ports 1000.. to h2:988, how many cross each spine,
// and the path of each.
func spineCounts(n *Network, hs []*Host, flows int) (map[string]int, []string) {
	counts := map[string]int{}
	var paths []string
	for p := range flows {
		path := n.Path(netip.AddrPortFrom(hs[0].Addrs()[0], uint16(1000+p)), netip.AddrPortFrom(hs[2].Addrs()[0], 988))
		if path == nil {
			paths = append(paths, "none")
			counts["none"]++
			continue
		}
		paths = append(paths, linkNames(path))
		counts[path[1].b.sw.name]++
	}
	return counts, paths
}

// ECMP: each flow's path is a function of its 5-tuple (the same on every call and on a new
// network), flows spread over the spines, and the reverse direction hashes on its own.
func TestLeafSpineECMP(t *testing.T) {
	_, n, hs, _ := leafSpine(t, 4, 2, 4, 10*Gbps)
	counts, paths := spineCounts(n, hs, 64)
	same(t, "spread", fmt.Sprint(counts), "map[spine0:15 spine1:20 spine2:13 spine3:16]")
	_, n2, hs2, _ := leafSpine(t, 4, 2, 4, 10*Gbps)
	_, paths2 := spineCounts(n2, hs2, 64)
	same(t, "same paths on a new network", strings.Join(paths2, ";"), strings.Join(paths, ";"))
	n.computeRoutes()
	_, paths3 := spineCounts(n, hs, 64)
	same(t, "same paths after recomputing", strings.Join(paths3, ";"), strings.Join(paths, ";"))
	back := n.Path(netip.AddrPortFrom(hs[2].Addrs()[0], 988), netip.AddrPortFrom(hs[0].Addrs()[0], 1000))
	same(t, "flow 1000", paths[0], "h0-leaf0 leaf0-spine1 leaf1-spine1 h2-leaf1")
	same(t, "its reverse", linkNames(back), "h2-leaf1 leaf1-spine0 leaf0-spine0 h0-leaf0")
}

// A trunk going down moves only the flows that crossed it (to the other spines); the rest
// keep their path; when it comes back they return. With all of a leaf's uplinks down there
// is no path.
func TestLeafSpineTrunkDownRecompute(t *testing.T) {
	_, n, hs, ls := leafSpine(t, 4, 2, 4, 10*Gbps)
	before, paths := spineCounts(n, hs, 64)
	ls.Uplink(0, 1).Down()
	during, pathsDown := spineCounts(n, hs, 64)
	same(t, "before", fmt.Sprint(before), "map[spine0:15 spine1:20 spine2:13 spine3:16]")
	same(t, "spine1's flows spread over the others", fmt.Sprint(during), "map[spine0:20 spine2:18 spine3:26]")
	for i := range paths {
		if !strings.Contains(paths[i], "spine1") && paths[i] != pathsDown[i] {
			t.Errorf("flow %d moved though its trunk is up: %s -> %s", i, paths[i], pathsDown[i])
		}
	}
	ls.Uplink(0, 1).Up()
	_, pathsUp := spineCounts(n, hs, 64)
	same(t, "back when the trunk is up", strings.Join(pathsUp, ";"), strings.Join(paths, ";"))
	for s := range 4 {
		ls.Uplink(1, s).Down()
	}
	none, _ := spineCounts(n, hs, 64)
	same(t, "leaf1 cut off", fmt.Sprint(none), "map[none:64]")
	same(t, "same leaf unaffected", linkNames(n.Path(netip.AddrPortFrom(hs[2].Addrs()[0], 1), netip.AddrPortFrom(hs[3].Addrs()[0], 988))), "h2-leaf1 h3-leaf1")
}

// lsFlow is a bulk flow between two hosts of a leaf-spine test fabric.
type lsFlow struct {
	c, s *Conn // client and server ends
	r    *rec
}

// bulkFlows dials a bulk flow from each host of from to the host of to at the same index
// (server port 988, ephemeral client ports), writing 1 MiB records until stop, and runs
// until they are all connected.
func bulkFlows(t *testing.T, k *sim.Kernel, hs []*Host, from, to []int, stop sim.Time) []*lsFlow {
	t.Helper()
	flows := make([]*lsFlow, len(from))
	for i := range flows {
		flows[i] = &lsFlow{r: &rec{k: k}}
	}
	for _, j := range to {
		hs[j].Listen(988, Options{}, func(c *Conn) {
			for _, f := range flows {
				if f.c != nil && f.c.local == c.peer {
					f.s = c
				}
			}
			c.SetHandler(&rec{k: k, onData: func(*Conn, Record) {}})
		})
	}
	for i, a := range from {
		h, f := hs[a], flows[i]
		h.Dial(netip.AddrPortFrom(h.Addrs()[0], 0), netip.AddrPortFrom(hs[to[i]].Addrs()[0], 988), Options{}, func(c *Conn, err error) {
			if err != nil {
				t.Errorf("flow %d: %v", i, err)
				return
			}
			f.c = c
			c.SetHandler(f.r)
			stream(k, c, f.r, 1<<20, stop)
		})
	}
	k.RunUntil(k.Now() + sim.Millisecond)
	for i, f := range flows {
		if f.s == nil {
			t.Fatalf("flow %d not connected", i)
		}
	}
	return flows
}

// spineOf names the spine flow f's data crosses now.
func spineOf(n *Network, f *lsFlow) string {
	p := n.Path(f.c.local, f.c.peer)
	if p == nil {
		return "none"
	}
	return p[1].b.sw.name
}

// received returns the bytes each flow's server end has received.
func received(flows []*lsFlow) []uint64 {
	out := make([]uint64, len(flows))
	for i, f := range flows {
		out[i] = f.s.Info().BytesRecv
	}
	return out
}

// Oversubscription: four 10 Gb/s hosts on leaf0 send to four on leaf1. With two 10 Gb/s
// spines (2:1) the uplinks are the bottleneck: ECMP puts three flows on spine1, which share
// its 9.4148 Gb/s of goodput, and one alone on spine0, 18.83 Gb/s in all (2 x 9.4148). With
// 40 Gb/s uplinks (1:1) each flow runs at its host link's rate, 37.66 Gb/s in all.
func TestLeafSpineOversubscribed(t *testing.T) {
	for _, tc := range []struct {
		uplink int64
		spines string
		bytes  string
		total  uint64
	}{
		{10 * Gbps, "spine1 spine0 spine1 spine1", "74282400 235357920 92331720 68743800", 470715840},
		{40 * Gbps, "spine1 spine0 spine1 spine1", "235357920 235357920 235423080 235357920", 941496840},
	} {
		t.Run(fmt.Sprint(tc.uplink/Gbps, "G"), func(t *testing.T) {
			k, n, hs, _ := leafSpine(t, 8, 4, 2, tc.uplink)
			flows := bulkFlows(t, k, hs, []int{0, 1, 2, 3}, []int{4, 5, 6, 7}, sim.Second)
			var sp []string
			for _, f := range flows {
				sp = append(sp, spineOf(n, f))
			}
			k.RunUntil(200 * sim.Millisecond)
			b0 := received(flows)
			k.RunUntil(400 * sim.Millisecond)
			b1 := received(flows)
			var got []string
			total := uint64(0)
			for i := range b1 {
				got = append(got, fmt.Sprint(b1[i]-b0[i]))
				total += b1[i] - b0[i]
			}
			t.Logf("%s: %s bytes, %.4f Gb/s in all; %+v", strings.Join(sp, " "), strings.Join(got, " "), float64(total)*8/0.2/1e9, n.Counters())
			same(t, "spines", strings.Join(sp, " "), tc.spines)
			same(t, "bytes per flow in 200ms", strings.Join(got, " "), tc.bytes)
			same(t, "bytes in all", total, tc.total)
		})
	}
}

// A trunk failing under load: two flows from leaf0 to leaf1 on two spines; at 50 ms the
// uplink of flow 0 goes down. The chunks on it are lost; its route moves to the other spine
// at once, so its retransmissions get through and it shares that spine with flow 1; no
// connection fails: fast recovery repairs the loss (no RTO), and from 100 to 140 ms the two
// flows share spine0's 9.41 Gb/s. When the trunk returns at 150 ms, flow 0 goes back to it.
func TestLeafSpineTrunkDownUnderLoad(t *testing.T) {
	k, n, hs, ls := leafSpine(t, 4, 2, 2, 10*Gbps)
	flows := bulkFlows(t, k, hs, []int{0, 1}, []int{2, 3}, sim.Second)
	same(t, "spines at first", spineOf(n, flows[0])+" "+spineOf(n, flows[1]), "spine1 spine0")
	up := ls.Uplink(0, 1)
	k.ScheduleFunc(50*sim.Millisecond, up.Down)
	k.ScheduleFunc(150*sim.Millisecond, up.Up)
	k.RunUntil(100 * sim.Millisecond)
	same(t, "spines while leaf0-spine1 is down", spineOf(n, flows[0])+" "+spineOf(n, flows[1]), "spine0 spine0")
	b0 := received(flows)
	k.RunUntil(140 * sim.Millisecond)
	b1 := received(flows)
	k.RunUntil(300 * sim.Millisecond)
	same(t, "spines once it is back", spineOf(n, flows[0])+" "+spineOf(n, flows[1]), "spine1 spine0")
	i0, i1 := flows[0].c.Info(), flows[1].c.Info()
	t.Logf("100-140ms: %d %d bytes; %+v; %+v; %+v", b1[0]-b0[0], b1[1]-b0[1], i0, i1, n.Counters())
	same(t, "flow 0's bytes from 100 to 140 ms", b1[0]-b0[0], 10230120)
	same(t, "flow 1's bytes from 100 to 140 ms", b1[1]-b0[1], 36815400)
	same(t, "flow 0 retransmits", i0.Retransmits, 168)
	same(t, "chunks lost to the trunk", n.Counters().DropDown, 15)
	same(t, "RTOs", n.Counters().RTOs, 0)
	same(t, "no path", n.Counters().NoRoute, 0)
	same(t, "connections alive", flows[0].r.closed == nil && flows[1].r.closed == nil, true)
}

// The only paths dying: every uplink of leaf0 goes down at 50 ms for 1 s. Frames find no
// route (NoRoute), TCP sees silence and backs its RTO off; when the uplinks return, the next
// retransmission gets through and the flow resumes, the connection intact: RTOs at about
// 0.25, 0.65 and 1.45 s (200 ms doubling from the last ACK), the last after the uplinks
// are back, so data flows again by 1.461 s.
func TestLeafSpineNoPathRTO(t *testing.T) {
	k, n, hs, ls := leafSpine(t, 4, 2, 2, 10*Gbps)
	flows := bulkFlows(t, k, hs, []int{0}, []int{2}, 5*sim.Second)
	for s := range 2 {
		l := ls.Uplink(0, s)
		k.ScheduleFunc(50*sim.Millisecond, l.Down)
		k.ScheduleFunc(1050*sim.Millisecond, l.Up)
	}
	var resumed sim.Time
	k.RunUntil(60 * sim.Millisecond)
	stuck := flows[0].s.Info().BytesRecv
	for k.Now() < 3*sim.Second && resumed == 0 {
		k.RunUntil(k.Now() + sim.Millisecond)
		if flows[0].s.Info().BytesRecv > stuck {
			resumed = k.Now()
		}
	}
	i := flows[0].c.Info()
	t.Logf("resumed by %s; %+v; %+v", resumed, i, n.Counters())
	same(t, "resumed by", resumed, 1461*sim.Millisecond)
	same(t, "RTOs", n.Counters().RTOs, 3)
	same(t, "no path", n.Counters().NoRoute, 4)
	same(t, "connection alive", flows[0].r.closed == nil, true)
}

// A 1 MiB record across a leaf-spine fabric (leaf, spine, leaf; 10 Gb/s, 1us links) on an
// established idle connection: 18 chunks (one more than TestEvents1MiB's 17 on one switch:
// the longer round trip splits slow start's windows once more), each one event at each of
// the three switches, one at the receiver and one ACK: 90 events, delivered after
// 955.732us (917.436us on one switch).
func TestLeafSpineEvents1MiB(t *testing.T) {
	k, n, hs, _ := leafSpine(t, 2, 1, 2, 10*Gbps)
	var delivered sim.Time
	var start sim.Time
	hs[1].Listen(988, Options{}, func(c *Conn) {
		c.SetHandler(&rec{k: k, onData: func(*Conn, Record) { delivered = k.Now() - start }})
	})
	var conn *Conn
	hs[0].Dial(netip.AddrPortFrom(hs[0].Addrs()[0], 1023), netip.AddrPortFrom(hs[1].Addrs()[0], 988), Options{}, func(c *Conn, err error) {
		conn = c
		c.SetHandler(&rec{k: k})
	})
	k.RunUntil(sim.Second)
	start, before, chunks := k.Now(), k.Fired(), n.Counters().Chunks
	conn.Write(Record{Bytes: 1 << 20})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	same(t, "chunks", n.Counters().Chunks-chunks, 18)
	same(t, "events", k.Fired()-before, 90)
	same(t, "delivered after", delivered, 955732*sim.Nanosecond)
}
