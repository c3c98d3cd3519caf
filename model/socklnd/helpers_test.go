package socklnd

import (
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// evRec records LNet events of an MD.
type evRec struct {
	k   *sim.Kernel
	evs []lnet.Event
	log *[]string
	who string
}

func (r *evRec) OnEvent(ev *lnet.Event) {
	r.evs = append(r.evs, *ev)
	if r.log != nil {
		*r.log = append(*r.log, fmt.Sprintf("%12s %s lnet %s status=%d mlen=%d", r.k.Now(), r.who, ev.Type, ev.Status, ev.MLength))
	}
}

func (r *evRec) last(t lnet.EventType) *lnet.Event {
	for i := len(r.evs) - 1; i >= 0; i-- {
		if r.evs[i].Type == t {
			return &r.evs[i]
		}
	}
	return nil
}

// cluster is nodes h = 1..n, NID 192.168.1.h@tcp, on one Ethernet switch.
type cluster struct {
	k     *sim.Kernel
	tn    *tcp.Network
	lnd   *LND
	hosts []*tcp.Host
	nodes []*lnet.Node
	sink  []*evRec
	src   []*evRec
	log   []string
	kinds map[string]int
}

const testPortal = 4

func nidOf(h int) lnet.NID {
	return lnet.MakeNID(lnet.MakeNet(lnet.SOCKLND, 0), uint32(192<<24|168<<16|1<<8|h))
}

type clusterOpt struct {
	nodes   int
	params  Params
	tun     lnet.Tunables
	rate    int64
	noTrace bool
	// downAtStart lists the hosts (1-based) whose link is down when their NI starts.
	downAtStart []int
}

func newCluster(t testing.TB, o clusterOpt) *cluster {
	t.Helper()
	return newClusterWith(t, o, nil)
}

// newClusterWith is newCluster with setup applied to the LND before the nodes start.
func newClusterWith(t testing.TB, o clusterOpt, setup func(*LND)) *cluster {
	t.Helper()
	if o.nodes == 0 {
		o.nodes = 2
	}
	if o.params == (Params{}) {
		o.params = DefaultParams()
	}
	if o.tun == (lnet.Tunables{}) {
		o.tun = lnet.DefaultTunables()
	}
	if o.rate == 0 {
		o.rate = 25 * tcp.Gbps
	}
	k := sim.New(1)
	tn := tcp.New(k, tcp.Config{})
	c := &cluster{k: k, tn: tn, lnd: New(tn), kinds: map[string]int{}}
	if !o.noTrace {
		c.lnd.SetObserver(func(at int64, e Event) {
			c.kinds[e.Kind]++
			s := fmt.Sprintf("%12s %s socklnd %s %s", sim.Time(at), e.NI, e.Kind, e.Peer)
			if e.Info != "" {
				s += " " + e.Info
			}
			if e.RC != 0 {
				s += fmt.Sprintf(" rc=%d", e.RC)
			}
			c.log = append(c.log, s)
		})
	}
	if err := c.lnd.SetParams(lnet.MakeNet(lnet.SOCKLND, 0), o.params); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(c.lnd)
	}
	sw := tn.AddSwitch("sw0")
	for h := 1; h <= o.nodes; h++ {
		host := tn.AddHost(fmt.Sprintf("n%d", h))
		if _, err := tn.Attach(host, netip.AddrFrom4([4]byte{192, 168, 1, byte(h)}), sw,
			tcp.LinkSpec{Rate: o.rate, Latency: 500 * sim.Nanosecond}); err != nil {
			t.Fatal(err)
		}
		c.hosts = append(c.hosts, host)
	}
	for _, h := range o.downAtStart {
		c.hosts[h-1].Links()[0].Down()
	}
	for h := 1; h <= o.nodes; h++ {
		nt := lnet.DefaultNetTunables()
		nt.PeerCredits, nt.Credits = o.params.PeerCredits, o.params.Credits
		ln, err := lnet.NewNode(k, fmt.Sprintf("n%d", h), o.tun)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ln.AddNI(nidOf(h), c.lnd, nt); err != nil {
			t.Fatal(err)
		}
		if err := ln.Startup(); err != nil {
			t.Fatal(err)
		}
		sink := &evRec{k: k, log: &c.log, who: ln.Name()}
		src := &evRec{k: k, log: &c.log, who: ln.Name()}
		if o.noTrace {
			sink.log, src.log = nil, nil
		}
		ln.MEAttach(lnet.MatchSpec{Portal: testPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
			lnet.MDSpec{Length: 1 << 20, Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_OP_GET, Handler: sink})
		c.nodes = append(c.nodes, ln)
		c.sink = append(c.sink, sink)
		c.src = append(c.src, src)
	}
	return c
}

// put sends a PUT with ACK of size bytes from node a to node b.
func (c *cluster) put(t testing.TB, a, b, size int) {
	t.Helper()
	n := c.nodes[a-1]
	md := n.MDBind(lnet.MDSpec{Length: size, Threshold: 2, Handler: c.src[a-1]})
	if err := n.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(b), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) get(t testing.TB, a, b, size int) {
	t.Helper()
	n := c.nodes[a-1]
	md := n.MDBind(lnet.MDSpec{Length: size, Threshold: 2, Handler: c.src[a-1]})
	if err := n.Get(lnet.AnyNID, md, nidOf(b), testPortal, 7, 0); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) run(t testing.TB, d sim.Time) {
	t.Helper()
	c.k.SetLimits(sim.Limits{MaxEvents: 200_000_000})
	if err := c.k.RunUntil(c.k.Now() + d); err != nil {
		t.Fatal(err)
	}
}

// golden compares lines with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name string, lines []string) {
	t.Helper()
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden trace (go test -update rewrites it):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// restartNode gives node h a new LNet instance on its (restarted) host.
func (c *cluster) restartNode(t testing.TB, h int) {
	t.Helper()
	ln, err := lnet.NewNode(c.k, c.nodes[h-1].Name(), lnet.DefaultTunables())
	if err != nil {
		t.Fatal(err)
	}
	nt := lnet.DefaultNetTunables()
	if _, err := ln.AddNI(nidOf(h), c.lnd, nt); err != nil {
		t.Fatal(err)
	}
	if err := ln.Startup(); err != nil {
		t.Fatal(err)
	}
	sink := &evRec{k: c.k, log: &c.log, who: ln.Name()}
	ln.MEAttach(lnet.MatchSpec{Portal: testPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		lnet.MDSpec{Length: 1 << 20, Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_OP_GET, Handler: sink})
	c.nodes[h-1], c.sink[h-1] = ln, sink
}
