package o2ib

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// readParams are the default parameters with bulk: read and the given read_depth.
func readParams(depth int) Params {
	p := DefaultParams()
	p.Bulk, p.ReadDepth = BulkRead, depth
	return p
}

// TestBulkReadNegotiation: a write net's conns offer 0/0 as the kernel does (no READ);
// a read net's offer the queue depth (8) or read_depth both ways, and a read NI meeting a
// write NI (per-NI parameters) gets 0 on both QPs and stays on the write path.
func TestBulkReadNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		params   Params
		ni2      *Params
		rd, dest uint8
		canRead  bool
	}{
		{"write", DefaultParams(), nil, 0, 0, false},
		{"read", readParams(0), nil, 8, 8, true},
		{"read depth 2", readParams(2), nil, 2, 2, true},
		{"read depth 16 above queue depth", readParams(16), nil, 16, 16, true},
		{"read meets write", readParams(0), &Params{}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ni := map[lnet.NID]Params{}
			if tc.ni2 != nil {
				ni[nidOf(2, 0)] = DefaultParams()
			}
			c := newClusterWith(t, clusterOpt{params: tc.params, noTrace: true}, ni)
			c.put(t, 1, 2, 1024)
			c.run(t, sim.Second)
			if len(c.lnd.conns) != 2 {
				t.Fatalf("%d conns", len(c.lnd.conns))
			}
			for _, cn := range c.lnd.conns {
				a := cn.qp.Attr()
				if a.MaxRdAtomic != tc.rd || a.MaxDestRdAtomic != tc.dest || cn.canRead() != tc.canRead {
					t.Errorf("%s: max_rd_atomic %d max_dest_rd_atomic %d canRead %v, want %d %d %v",
						cn.peer.net.ni.NID(), a.MaxRdAtomic, a.MaxDestRdAtomic, cn.canRead(), tc.rd, tc.dest, tc.canRead)
				}
			}
		})
	}
}

// TestBulkParamsValidate: bulk and read_depth are checked like the kernel's parameters.
func TestBulkParamsValidate(t *testing.T) {
	p := DefaultParams()
	p.Bulk = "pull"
	p.ReadDepth = 17
	err := p.Validate()
	want := "bulk must be write or read (got \"pull\")\nread_depth must be in 0..16 (got 17)"
	if err == nil || err.Error() != want {
		t.Fatalf("Validate = %v, want %q", err, want)
	}
}

// putsAt sends n PUTs of size bytes from node 1 to node 2 at once and returns when the
// receiver finalized each (its received PUT records) and when the sender got each ACK.
func putsAt(t *testing.T, p Params, n, size int) (recv, acked []sim.Time) {
	c := newCluster(t, clusterOpt{params: p, noTrace: true})
	c.put(t, 1, 2, 8) // connect and discover first
	c.run(t, sim.Second)
	start := c.k.Now()
	for i := 0; i < n; i++ {
		c.put(t, 1, 2, size)
	}
	c.run(t, sim.Second)
	for _, r := range c.done[1].recs {
		if r.Type == lnet.MsgPUT && r.Received && r.Size == size {
			recv = append(recv, r.End-start)
		}
	}
	for _, r := range c.done[0].recs {
		if r.Type == lnet.MsgPUT && !r.Received && r.Size == size {
			acked = append(acked, r.End-start)
		}
	}
	return recv, acked
}

// TestBulkReadDepthQueues: four 256 KiB PUTs at once. With the default depth (8) the four
// READs are issued together and each PUT lands 15-36 ns before the write path's. With
// read_depth 1 the receiver's QP issues one READ at a time, each after the previous one's
// last response chunk (0.6 us more per PUT), and the PUT_RDDONEs and ACKs posted behind
// a waiting READ wait with it (the send queue is in order): the first PUT is acked at
// 65.753 us instead of 22.333 us, together with the second and third.
func TestBulkReadDepthQueues(t *testing.T) {
	got := ""
	for _, tc := range []struct {
		name string
		p    Params
	}{{"write", DefaultParams()}, {"read depth 8", readParams(0)}, {"read depth 1", readParams(1)}} {
		recv, acked := putsAt(t, tc.p, 4, 256<<10)
		got += fmt.Sprintf("%s: received %v acked %v\n", tc.name, recv, acked)
	}
	want := `write: received [22.046us 43.161us 64.276us 85.392us] acked [22.348us 43.464us 64.578us 85.695us]
read depth 8: received [22.026us 43.136us 64.246us 85.356us] acked [22.333us 43.443us 64.552us 85.663us]
read depth 1: received [22.024us 43.735us 65.443us 87.166us] acked [65.753us 65.772us 65.79us 87.473us]
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// routedOps runs, after a warm-up, one 1 MiB PUT and then one 1 MiB GET from the client
// through the router to the server, and reports when each completed (from its start) and
// the LND messages posted for them.
func routedOps(t *testing.T, p Params) string {
	rf := newRoutedFabricP(t, lnet.DefaultTunables(), lnet.DefaultTunables(), 1, p)
	src := &evRec{k: rf.k}
	md := rf.c.MDBind(lnet.MDSpec{Length: 8, Threshold: 2, Handler: src})
	if err := rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	rf.run(t, sim.Second)
	out := ""
	for _, op := range []string{"PUT", "GET"} {
		rf.obs.posts = nil
		start := rf.k.Now()
		md = rf.c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
		var err error
		want := lnet.EventACK
		if op == "PUT" {
			err = rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 7, 0, 0)
		} else {
			err = rf.c.Get(lnet.AnyNID, md, rf.sNID, testPortal, 7, 0)
			want = lnet.EventREPLY
		}
		if err != nil {
			t.Fatal(err)
		}
		rf.run(t, sim.Second)
		ev := src.last(want)
		if ev == nil || ev.Status != 0 || ev.MLength != 1<<20 {
			t.Fatalf("%s: %v = %+v", op, want, ev)
		}
		// the event's time: the last line the recorder would have logged
		out += fmt.Sprintf("%s %s posts", op, src.at[len(src.at)-1]-start)
		for _, typ := range []MsgType{MsgIMMEDIATE, MsgPUT_REQ, MsgPUT_ACK, MsgPUT_DONE, MsgGET_REQ, MsgGET_DONE, MsgPUT_RDREQ, MsgPUT_RDDONE} {
			if n := rf.obs.posts[typ]; n > 0 {
				out += fmt.Sprintf(" %s=%d", typ, n)
			}
		}
		out += "\n"
	}
	return out
}

// TestBulkReadRouted: a 1 MiB PUT and GET through one router (EDR, both hops idle). The
// GET request goes IMMEDIATE to the router (the sink is beyond it, kiblnd_send's rule), so
// the REPLY is sent like a PUT on each hop: on a read net each hop's receiver pulls it
// (PUT_RDREQ/PUT_RDDONE on both hops), as it pulls the PUT. A direct GET is not changed
// by the variant: its GET_REQ already carries the sink and the target WRITEs into it,
// which is the pull's latency without a READ (the thread's "send the sink descriptor").
func TestBulkReadRouted(t *testing.T) {
	got := "write:\n" + routedOps(t, DefaultParams()) + "read:\n" + routedOps(t, readParams(0))
	want := `write:
PUT 171.331us posts IMMEDIATE=2 PUT_REQ=2 PUT_ACK=2 PUT_DONE=2
GET 171.332us posts IMMEDIATE=2 PUT_REQ=2 PUT_ACK=2 PUT_DONE=2
read:
PUT 171.307us posts IMMEDIATE=2 PUT_RDREQ=2 PUT_RDDONE=2
GET 171.303us posts IMMEDIATE=2 PUT_RDREQ=2 PUT_RDDONE=2
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestBulkReadDirectGetUnchanged: a direct 1 MiB GET on a read net is the write net's,
// message for message and nanosecond for nanosecond (GET_REQ with the sink, RDMA WRITE of
// the REPLY, GET_DONE).
func TestBulkReadDirectGetUnchanged(t *testing.T) {
	var traces [2][]string
	for i, p := range []Params{DefaultParams(), readParams(0)} {
		c := newCluster(t, clusterOpt{params: p})
		c.get(t, 1, 2, 1<<20)
		c.run(t, sim.Second)
		if c.obs.posts[MsgGET_REQ] != 1 || c.obs.posts[MsgGET_DONE] != 1 || c.obs.posts[MsgPUT_RDREQ] != 0 {
			t.Fatalf("posts %v", c.obs.posts)
		}
		traces[i] = c.log
	}
	if fmt.Sprint(traces[0]) != fmt.Sprint(traces[1]) {
		t.Fatalf("traces differ:\n%s\n%s", strings.Join(traces[0], "\n"), strings.Join(traces[1], "\n"))
	}
}
