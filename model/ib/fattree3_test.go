package ib

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// tree3Hosts builds a three-level fat tree for n hosts and cables one single-port HCA per
// host to the leaves in order.
func tree3Hosts(t testing.TB, radix, up, n int) (*Fabric, *Tree3, []*Port) {
	t.Helper()
	f := New(sim.New(1), Config{})
	spec := LinkSpec{Rate: HDR, Latency: 20}
	tr, err := f.AddFatTree3(radix, up, n, spec)
	if err != nil {
		t.Fatal(err)
	}
	ports := make([]*Port, n)
	for i := range ports {
		ports[i] = f.AddNode(fmt.Sprintf("cn%d", i)).AddHCA("mlx5_0", 1).Port(1)
		f.Connect(ports[i], tr.Leaves[i/tr.Down], spec)
	}
	return f, tr, ports
}

// hops counts the lanes from src to dst and lists the switches crossed.
func hops(t testing.TB, f *Fabric, src, dst *Port) (int, []string) {
	t.Helper()
	n := 0
	var sw []string
	if !f.walk(src, dst, func(ln *lane) bool {
		n++
		if ln.to.kind == epSwitch {
			sw = append(sw, f.switches[ln.to.idx].Name)
		}
		return true
	}) {
		t.Fatalf("%s unreachable from %s", dst, src)
	}
	return n, sw
}

// A radix-8 tree with 2 uplinks per leaf (6 hosts a leaf, pods of 4 leaves and 2
// aggregation switches, 2 core groups of 4 cores): 100 hosts take 17 leaves in 5 pods, 10
// aggregation switches and 8 cores. A host reaches its leaf mate in 2 lanes, a host of its
// pod in 4 (leaf, aggregation switch LID mod 2, leaf), any other in 6 through a core; the
// routes from one host spread over both aggregation switches of its pod and all 8 cores.
// Every pair is routed both ways without a forwarding table.
func TestFatTree3Routing(t *testing.T) {
	f, tr, ports := tree3Hosts(t, 8, 2, 100)
	if len(tr.Leaves) != 17 || tr.Down != 6 || len(f.Switches()) != 8+5*2+17 {
		t.Fatalf("%d leaves of %d hosts, %d switches; want 17 of 6, 35", len(tr.Leaves), tr.Down, len(f.Switches()))
	}
	for _, c := range []struct {
		dst  int
		hops int
		path string
	}{
		{5, 2, "[leaf0]"},
		{6, 4, "[leaf0 agg1 leaf1]"}, // LID 7: aggregation switch 7 mod 2 = 1 of pod 0
		{7, 4, "[leaf0 agg0 leaf1]"},
		// LID 25: agg1, its core (25/2) mod 4 = 0 of group 1 (core4), pod 1's agg1 (agg3)
		{24, 6, "[leaf0 agg1 core4 agg3 leaf4]"},
		// LID 100: agg0, core (100/2) mod 4 = 2 of group 0, pod 4's agg0 (agg8)
		{99, 6, "[leaf0 agg0 core2 agg8 leaf16]"},
	} {
		n, sw := hops(t, f, ports[0], ports[c.dst])
		if n != c.hops || fmt.Sprint(sw) != c.path {
			t.Errorf("cn0 -> cn%d: %d lanes via %v, want %d via %s", c.dst, n, sw, c.hops, c.path)
		}
	}
	aggs, cores := map[string]bool{}, map[string]bool{}
	for _, p := range ports[1:] {
		_, sw := hops(t, f, ports[0], p)
		for _, s := range sw {
			switch s[0] {
			case 'a':
				aggs[s] = true
			case 'c':
				cores[s] = true
			}
		}
	}
	if len(aggs) != 10 || len(cores) != 8 {
		t.Fatalf("routes from cn0 use %d aggregation switches and %d cores, want 10 and 8", len(aggs), len(cores))
	}
	for _, s := range f.Switches() {
		if s.route != nil {
			t.Fatalf("%s has a forwarding table", s.Name)
		}
	}
	if _, err := New(sim.New(1), Config{}).AddFatTree3(8, 2, 8*4*6+1, LinkSpec{Rate: HDR}); err == nil ||
		err.Error() != "ib: 193 host ports need 9 pods of 4 leaves of 6 host ports, more than a core's 8 ports" {
		t.Fatalf("a tree over capacity: %v", err)
	}
}

// With a link between a leaf and an aggregation switch down, a sweep builds forwarding
// tables that route around it, and with the link back a sweep drops them again.
func TestFatTree3Resweep(t *testing.T) {
	f, _, ports := tree3Hosts(t, 8, 2, 30)
	l := f.Links()[8] // leaf0-agg0: after pod 0's 2 x 4 aggregation-core links
	if l.A.(*Switch).Name != "leaf0" || l.B.(*Switch).Name != "agg0" {
		t.Fatalf("link 8 is %s-%s", l.A.(*Switch).Name, l.B.(*Switch).Name)
	}
	l.LinkDown()
	f.Resweep()
	for _, p := range ports[6:] {
		if _, sw := hops(t, f, ports[0], p); sw[1] == "agg0" {
			t.Fatalf("route to %s crosses the dead link: %v", p, sw)
		}
	}
	l.LinkUp()
	f.Resweep()
	if f.switches[0].route != nil {
		t.Fatal("tables kept with every link up")
	}
}

// 100,000 hosts: a radix-64 tree with 12 uplinks per leaf (52 hosts a leaf) takes 1,924
// leaves in 61 pods, 732 aggregation switches and 384 cores; paths have 2, 4 or 6 lanes.
func TestFatTree3HundredThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 hosts")
	}
	f, tr, ports := tree3Hosts(t, 64, 12, 100_000)
	if len(tr.Leaves) != 1924 || len(f.Switches()) != 1924+61*12+12*32 {
		t.Fatalf("%d leaves, %d switches", len(tr.Leaves), len(f.Switches()))
	}
	for _, c := range []struct{ dst, hops int }{{51, 2}, {52, 4}, {99_999, 6}, {50_000, 6}} {
		if n, _ := hops(t, f, ports[0], ports[c.dst]); n != c.hops {
			t.Errorf("cn0 -> cn%d: %d lanes, want %d", c.dst, n, c.hops)
		}
	}
}
