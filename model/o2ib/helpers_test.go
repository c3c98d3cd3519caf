package o2ib

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// evRec records LNet events of an MD.
type evRec struct {
	k   *sim.Kernel
	evs []lnet.Event
	at  []sim.Time // when each event came
	log *[]string
	who string
}

func (r *evRec) OnEvent(ev *lnet.Event) {
	r.evs = append(r.evs, *ev)
	r.at = append(r.at, r.k.Now())
	if r.log != nil {
		*r.log = append(*r.log, fmt.Sprintf("%12s %s lnet %s status=%d mlen=%d unlinked=%v", r.k.Now(), r.who, ev.Type, ev.Status, ev.MLength, ev.Unlinked))
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

// traceObs writes every o2iblnd message, RDMA and connection step as a line.
type traceObs struct {
	k     *sim.Kernel
	lines *[]string
	posts map[MsgType]int
	noCM  bool
}

func (o *traceObs) add(s string) { *o.lines = append(*o.lines, s) }

func (o *traceObs) MsgPosted(ev *MsgEvent) {
	if o.posts == nil {
		o.posts = map[MsgType]int{}
	}
	o.posts[ev.Type]++
	var b strings.Builder
	fmt.Fprintf(&b, "%12s %s -> %s %s nob=%d credits=%d", ev.Time, ev.Src, ev.Dst, ev.Type, ev.Nob, ev.Credits)
	switch ev.Type {
	case MsgCONNREQ, MsgCONNACK:
		fmt.Fprintf(&b, " qd=%d frags=%d msgsize=%d", ev.QueueDepth, ev.MaxFrags, ev.MaxMsgSize)
	case MsgPUT_REQ, MsgGET_REQ:
		fmt.Fprintf(&b, " cookie=%#x", ev.Cookie)
	case MsgPUT_ACK:
		fmt.Fprintf(&b, " src_cookie=%#x dst_cookie=%#x sink=%d", ev.Cookie, ev.DstCookie, ev.RDMANob)
	case MsgPUT_NAK, MsgPUT_DONE, MsgGET_DONE, MsgPUT_RDDONE:
		fmt.Fprintf(&b, " cookie=%#x status=%d", ev.Cookie, ev.Status)
	case MsgPUT_RDREQ:
		fmt.Fprintf(&b, " cookie=%#x source=%d", ev.Cookie, ev.RDMANob)
	}
	if ev.Hdr != nil {
		fmt.Fprintf(&b, " lnet=%s %s->%s len=%d", ev.Hdr.Type, ev.Hdr.Src, ev.Hdr.Dst, ev.Hdr.PayloadLength)
		if ev.Hdr.Type == lnet.MsgGET {
			fmt.Fprintf(&b, " sink=%d", ev.Hdr.SinkLen)
		}
	}
	o.add(b.String())
}

func (o *traceObs) RDMAPosted(ev *RDMAEvent) {
	op := "RDMA_WRITE"
	if ev.Read {
		op = "RDMA_READ"
	}
	o.add(fmt.Sprintf("%12s %s -> %s %s bytes=%d cookie=%#x", ev.Time, ev.Src, ev.Dst, op, ev.Bytes, ev.Cookie))
}

func (o *traceObs) ConnChange(ev *ConnEvent) {
	if o.noCM {
		return
	}
	s := fmt.Sprintf("%12s %s conn %s %s", ev.Time, ev.Local, ev.Peer, ev.What)
	if ev.Status != 0 {
		s += fmt.Sprintf(" status=%d", ev.Status)
	}
	if ev.Why != 0 {
		s += " why=" + RejectName(ev.Why)
	}
	if ev.QueueDepth != 0 {
		s += fmt.Sprintf(" qd=%d", ev.QueueDepth)
	}
	o.add(s)
}

// cluster is nodes h = 1..n, each with `rails` single-port HCAs; rail i of every node is
// cabled to switch i (EDR, 100ns links). Rail i of node h has NID 10.0.i.h@o2ib.
type cluster struct {
	k     *sim.Kernel
	f     *ib.Fabric
	lnd   *LND
	ibn   []*ib.Node
	nodes []*lnet.Node
	obs   *traceObs
	sink  []*evRec // per node: events of its portal-4 ME
	src   []*evRec
	done  []*doneRec
	log   []string
}

const testPortal = 4

func nidOf(host, rail int) lnet.NID {
	return lnet.MakeNID(lnet.MakeNet(lnet.O2IBLND, 0), uint32(10<<24|rail<<8|host))
}

type clusterOpt struct {
	nodes, rails int
	params       Params
	tun          lnet.Tunables
	cfg          ib.Config
	rate         ib.Rate
	noTrace      bool
	seed         uint64
}

func newCluster(t testing.TB, o clusterOpt) *cluster {
	t.Helper()
	return newClusterWith(t, o, nil)
}

// newClusterWith is newCluster with per-NI parameter overrides.
func newClusterWith(t testing.TB, o clusterOpt, niParams map[lnet.NID]Params) *cluster {
	t.Helper()
	if o.nodes == 0 {
		o.nodes = 2
	}
	if o.rails == 0 {
		o.rails = 1
	}
	if o.params == (Params{}) {
		o.params = DefaultParams()
	}
	if o.tun == (lnet.Tunables{}) {
		o.tun = lnet.DefaultTunables()
	}
	if o.rate == (ib.Rate{}) {
		o.rate = ib.EDR
	}
	if o.seed == 0 {
		o.seed = 1
	}
	k := sim.New(o.seed)
	f := ib.New(k, o.cfg)
	c := &cluster{k: k, f: f, lnd: New(f)}
	if !o.noTrace {
		c.obs = &traceObs{k: k, lines: &c.log}
		c.lnd.SetObserver(c.obs)
	}
	if err := c.lnd.SetParams(lnet.MakeNet(lnet.O2IBLND, 0), o.params); err != nil {
		t.Fatal(err)
	}
	for h := 1; h <= o.nodes; h++ { // in NID order: no map order reaches the run
		for r := 0; r < o.rails; r++ {
			if p, ok := niParams[nidOf(h, r)]; ok {
				if err := c.lnd.SetNIParams(nidOf(h, r), p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var sws []*ib.Switch
	for r := 0; r < o.rails; r++ {
		sws = append(sws, f.AddSwitch(fmt.Sprintf("sw%d", r)))
	}
	for h := 1; h <= o.nodes; h++ {
		n := f.AddNode(fmt.Sprintf("n%d", h))
		for r := 0; r < o.rails; r++ {
			p := n.AddHCA(fmt.Sprintf("mlx5_%d", r), 1).Port(1)
			f.Connect(p, sws[r], ib.LinkSpec{Rate: o.rate, Latency: 100 * sim.Nanosecond})
			p.AddIP(netip.AddrFrom4([4]byte{10, 0, byte(r), byte(h)}))
		}
		c.ibn = append(c.ibn, n)
	}
	for h := 1; h <= o.nodes; h++ {
		nt := lnet.DefaultNetTunables()
		nt.PeerCredits = o.params.PeerCredits
		if p, ok := niParams[nidOf(h, 0)]; ok {
			nt.PeerCredits = p.PeerCredits
		}
		ln, err := lnet.NewNode(k, fmt.Sprintf("n%d", h), o.tun)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.nodes) > 0 {
			ln.SharePeerSlabs(c.nodes[0]) // as the runner's nodes do
		}
		for r := 0; r < o.rails; r++ {
			if _, err := ln.AddNI(nidOf(h, r), c.lnd, nt); err != nil {
				t.Fatal(err)
			}
		}
		d := &doneRec{}
		ln.SetTracer(d)
		c.done = append(c.done, d)
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

// put sends a PUT with ACK of size bytes from node a to node b's rail-0 NID (1-based hosts).
func (c *cluster) put(t testing.TB, a, b, size int) {
	t.Helper()
	n := c.nodes[a-1]
	md := n.MDBind(lnet.MDSpec{Length: size, Threshold: 2, Handler: c.src[a-1]})
	if err := n.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(b, 0), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) get(t testing.TB, a, b, size int) {
	t.Helper()
	n := c.nodes[a-1]
	md := n.MDBind(lnet.MDSpec{Length: size, Threshold: 2, Handler: c.src[a-1]})
	if err := n.Get(lnet.AnyNID, md, nidOf(b, 0), testPortal, 7, 0); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) run(t testing.TB, d sim.Time) {
	t.Helper()
	c.k.SetLimits(sim.Limits{MaxEvents: 200_000_000})
	if err := c.k.RunUntil(c.k.Now() + d); err != nil {
		t.Fatal(err)
	}
	if b, cm := c.lnd.stats.BadConnStates, c.f.CMBadTransitions(); b != 0 || cm != 0 {
		t.Fatalf("illegal state changes refused: %d conn, %d CM id", b, cm)
	}
}

// doneRec is an LNet tracer keeping finished messages.
type doneRec struct {
	recs     []lnet.MsgRecord
	attempts int
}

func (d *doneRec) MsgAttempt(string, uint64, int, sim.Time, lnet.NID, lnet.NID) { d.attempts++ }
func (d *doneRec) MsgDone(r *lnet.MsgRecord)                                    { d.recs = append(d.recs, *r) }
func (d *doneRec) HealthChange(sim.Time, string, lnet.NID, bool, int, int, lnet.HealthCause) {
}

func (d *doneRec) NIStatusChange(sim.Time, string, lnet.NID, lnet.NIStatus, lnet.NIStatus) {}

// last returns the last finished message of type t sent (not received) by the node.
func (d *doneRec) last(t lnet.MsgType) *lnet.MsgRecord {
	for i := len(d.recs) - 1; i >= 0; i-- {
		if d.recs[i].Type == t && !d.recs[i].Received {
			return &d.recs[i]
		}
	}
	return nil
}

// first returns the first finished message of type t sent by the node to dst.
func (d *doneRec) first(t lnet.MsgType, dst lnet.NID) *lnet.MsgRecord {
	for i := range d.recs {
		if r := &d.recs[i]; r.Type == t && !r.Received && r.Dst == dst {
			return r
		}
	}
	return nil
}
