package lnet

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// evRec records events.
type evRec struct {
	evs []Event
}

func (r *evRec) OnEvent(ev *Event) { r.evs = append(r.evs, *ev) }

func (r *evRec) count(t EventType) int {
	k := 0
	for _, e := range r.evs {
		if e.Type == t {
			k++
		}
	}
	return k
}

func (r *evRec) last(t EventType) *Event {
	for i := len(r.evs) - 1; i >= 0; i-- {
		if r.evs[i].Type == t {
			return &r.evs[i]
		}
	}
	return nil
}

// traceRec records tracer calls as text.
type traceRec struct {
	lines    []string
	attempts []attempt
	health   []healthRec
	done     []MsgRecord
}

type attempt struct {
	id      uint64
	n       int
	t       sim.Time
	ni, dst NID
}

type healthRec struct {
	t        sim.Time
	nid      NID
	local    bool
	old, new int
	cause    HealthCause
}

func (r *traceRec) MsgAttempt(node string, id uint64, n int, t sim.Time, ni, nh NID) {
	r.attempts = append(r.attempts, attempt{id, n, t, ni, nh})
	r.lines = append(r.lines, fmt.Sprintf("%d %s attempt %d #%d %s->%s", t, node, id, n, ni, nh))
}

func (r *traceRec) MsgDone(m *MsgRecord) {
	r.done = append(r.done, *m)
	r.lines = append(r.lines, fmt.Sprintf("%d %s done %+v", m.End, m.Node, *m))
}

func (r *traceRec) HealthChange(t sim.Time, node string, nid NID, local bool, o, nw int, c HealthCause) {
	r.health = append(r.health, healthRec{t, nid, local, o, nw, c})
	r.lines = append(r.lines, fmt.Sprintf("%d %s health %s %v %d->%d %s", t, node, nid, local, o, nw, c))
}

func (r *traceRec) NIStatusChange(t sim.Time, node string, nid NID, o, nw NIStatus) {
	r.lines = append(r.lines, fmt.Sprintf("%d %s status %s %s->%s", t, node, nid, o, nw))
}

// pair is two nodes A and B on an ideal LND.
type pair struct {
	k      *sim.Kernel
	lnd    *IdealLND
	a, b   *Node
	ta, tb *traceRec
	sink   *evRec // B's portal-4 events
	src    *evRec // A's initiator events
}

const testPortal = 4

func nid(s string) NID { return MustNID(s) }

// newPair builds node A with nA NIs (10.0.0.1@o2ib, 10.0.1.1@o2ib, ...) and B with nB NIs
// (10.0.0.2@o2ib, ...), B has an ME on portal 4 accepting everything.
func newPair(t testing.TB, nA, nB int, tun Tunables, nt NetTunables) *pair {
	t.Helper()
	k := sim.New(1)
	p := &pair{k: k, lnd: NewIdealLND(k, sim.Microsecond), ta: &traceRec{}, tb: &traceRec{}, sink: &evRec{}, src: &evRec{}}
	mk := func(name string, host, nis int, tr *traceRec) *Node {
		n, err := NewNode(k, name, tun)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < nis; i++ {
			if _, err := n.AddNI(nid(fmt.Sprintf("10.0.%d.%d@o2ib", i, host)), p.lnd, nt); err != nil {
				t.Fatal(err)
			}
		}
		n.SetTracer(tr)
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	p.a = mk("a", 1, nA, p.ta)
	p.b = mk("b", 2, nB, p.tb)
	p.b.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET, Handler: p.sink})
	return p
}

// put sends a PUT with ACK of size bytes from A to B's primary NID.
func (p *pair) put(t testing.TB, size int) MDHandle {
	t.Helper()
	md := p.a.MDBind(MDSpec{Length: size, Threshold: 2, Handler: p.src})
	if err := p.a.Put(AnyNID, md, AckReqAck, nid("10.0.0.2@o2ib"), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	return md
}

func (p *pair) run(t testing.TB, d sim.Time) {
	t.Helper()
	if err := p.k.RunUntil(p.k.Now() + d); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, p.a)
	checkInvariants(t, p.b)
}

// checkInvariants fails t when n breaks one of its invariants (Node.checkInvariants, which
// the invariants build tag also runs between events).
func checkInvariants(t testing.TB, n *Node) {
	t.Helper()
	if err := n.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}
