package o2ib

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// TestSequences runs the wire-sequence scripts in testdata/sequences: each builds a small IB
// fabric with o2iblnd, sends PUTs and GETs, injects faults and prints what crossed the wire
// (every o2iblnd message posted, RDMA WRITE, connection step and LNet event), so a sequence
// reads with its inputs. `go test ./model/o2ib -run TestSequences -rewrite` regenerates the
// expected output.
func TestSequences(t *testing.T) {
	datadriven.Walk(t, "testdata/sequences", func(t *testing.T, path string) {
		w := &seqWorld{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := w.exec(t, d)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

// seqWorld is what one script built: a fabric, its LND's trace and the LNet nodes by name.
type seqWorld struct {
	k      *sim.Kernel
	f      *ib.Fabric
	lnd    *LND
	obs    *traceObs
	log    *[]string
	nodes  map[string]*lnet.Node
	src    map[string]*evRec // each node's initiator events
	checks func(t *testing.T)
}

// exec runs one command.
func (w *seqWorld) exec(t *testing.T, d *datadriven.TestData) (string, error) {
	args := map[string]string{}
	for _, a := range d.CmdArgs {
		args[a.Key] = strings.Join(a.Vals, ",")
	}
	if d.Cmd != "cluster" && d.Cmd != "routed" && w.k == nil {
		return "", fmt.Errorf("%s before cluster or routed", d.Cmd)
	}
	switch d.Cmd {
	case "cluster":
		return "", w.cluster(t, args)
	case "routed":
		w.routed(t)
		return "", nil
	case "put", "get":
		return "", w.send(d.Cmd, args)
	case "reject":
		return "", w.reject(args)
	case "run":
		return w.run(t, args)
	case "show":
		return w.show(args)
	case "failloc":
		return "", w.failLoc(args)
	}
	return "", fmt.Errorf("unknown command %q: want cluster, routed, put, get, reject, failloc, run or show", d.Cmd)
}

// cluster is `cluster [nodes=2] [bulk=write|read]`: nodes n1..nN, one EDR rail each on one
// switch, NIDs 10.0.0.h@o2ib; bulk=read sets the net's Params.Bulk.
func (w *seqWorld) cluster(t *testing.T, args map[string]string) error {
	o := clusterOpt{}
	if v, ok := args["bulk"]; ok {
		o.params = DefaultParams()
		o.params.Bulk = v
		if err := o.params.Validate(); err != nil {
			return err
		}
	}
	if v, ok := args["nodes"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			return fmt.Errorf("nodes=%q: want a whole number >= 2", v)
		}
		o.nodes = n
	}
	c := newCluster(t, o)
	w.k, w.f, w.lnd, w.obs, w.log = c.k, c.f, c.lnd, c.obs, &c.log
	w.nodes, w.src = map[string]*lnet.Node{}, map[string]*evRec{}
	for i, n := range c.nodes {
		w.nodes[n.Name()], w.src[n.Name()] = n, c.src[i]
	}
	w.checks = func(t *testing.T) {
		if b, cm := c.lnd.stats.BadConnStates, c.f.CMBadTransitions(); b != 0 || cm != 0 {
			t.Fatalf("illegal state changes refused: %d conn, %d CM id", b, cm)
		}
	}
	return nil
}

// routed is `routed`: client n1 (10.0.0.1@o2ib), router n2 (10.0.0.2@o2ib, 10.0.1.2@o2ib1),
// server n9 (10.0.1.9@o2ib1), one switch per net, after the 2 s in which the router
// checker's pings bring the routes up (their trace is dropped).
func (w *seqWorld) routed(t *testing.T) {
	rf := newRoutedFabric(t, lnet.DefaultTunables())
	*rf.obs.lines = nil
	w.k, w.obs, w.log = rf.k, rf.obs, rf.obs.lines
	w.nodes = map[string]*lnet.Node{rf.c.Name(): rf.c, rf.r.Name(): rf.r, rf.s.Name(): rf.s}
	w.src = map[string]*evRec{rf.c.Name(): {k: rf.k}}
	w.checks = func(*testing.T) {}
}

// send is `put|get from=n1 to=n2 size=N [bits=7]`: a PUT with ACK (or a GET) from portal 4
// to the destination node's first NID.
func (w *seqWorld) send(op string, args map[string]string) error {
	from, to := w.nodes[args["from"]], w.nodes[args["to"]]
	if from == nil || to == nil {
		return fmt.Errorf("%s: from=%q to=%q: want node names", op, args["from"], args["to"])
	}
	size, err := strconv.Atoi(args["size"])
	if err != nil || size < 0 {
		return fmt.Errorf("%s: size=%q: want bytes", op, args["size"])
	}
	bits := uint64(7)
	if v, ok := args["bits"]; ok {
		if bits, err = strconv.ParseUint(v, 10, 64); err != nil {
			return fmt.Errorf("%s: bits=%q: %w", op, v, err)
		}
	}
	src := w.src[from.Name()]
	if src == nil {
		src = &evRec{k: w.k}
		w.src[from.Name()] = src
	}
	md := from.MDBind(lnet.MDSpec{Length: size, Threshold: 2, Handler: src})
	dst := to.NIs()[0].NID()
	if op == "get" {
		return from.Get(lnet.AnyNID, md, dst, testPortal, bits, 0)
	}
	return from.Put(lnet.AnyNID, md, lnet.AckReqAck, dst, testPortal, bits, 0, 0)
}

// reject is `reject node=n2 [count=1]`: the node's CM rejects the next count connection
// requests as stale (IB_CM_REJ_STALE_CONN).
func (w *seqWorld) reject(args map[string]string) error {
	n := w.nodes[args["node"]]
	if n == nil {
		return fmt.Errorf("reject: node=%q: no such node", args["node"])
	}
	count := 1
	if v, ok := args["count"]; ok {
		var err error
		if count, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("reject: count=%q: %w", v, err)
		}
	}
	w.f.InjectCMReject(nidAddr(n.NIs()[0].NID()), ib.RejStaleConn, nil, count)
	return nil
}

// failLoc is `failloc node=n1 loc=0x8000f201 [val=0]`: lctl set_param fail_loc=LOC
// fail_val=VAL on the node.
func (w *seqWorld) failLoc(args map[string]string) error {
	n := w.nodes[args["node"]]
	if n == nil {
		return fmt.Errorf("failloc: node=%q: no such node", args["node"])
	}
	loc, err := strconv.ParseUint(args["loc"], 0, 32)
	if err != nil {
		return fmt.Errorf("failloc: loc=%q: %w", args["loc"], err)
	}
	var val uint64
	if v, ok := args["val"]; ok {
		if val, err = strconv.ParseUint(v, 0, 32); err != nil {
			return fmt.Errorf("failloc: val=%q: %w", v, err)
		}
	}
	n.SetFailLoc(uint32(loc), uint32(val))
	return nil
}

// run is `run for=1s [only=conn] [quiet]`: advances virtual time and prints the trace since
// the last run (only the connection steps and CONNREQ/CONNACK with only=conn; nothing with
// quiet).
func (w *seqWorld) run(t *testing.T, args map[string]string) (string, error) {
	d, err := seqDuration(args["for"])
	if err != nil {
		return "", err
	}
	w.k.SetLimits(sim.Limits{MaxEvents: 200_000_000})
	if err := w.k.RunUntil(w.k.Now() + d); err != nil {
		return "", err
	}
	w.checks(t)
	lines := *w.log
	*w.log = nil
	if _, ok := args["quiet"]; ok {
		return "", nil
	}
	if args["only"] == "conn" {
		lines = connLines(lines)
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// seqDuration reads 1s, 10ms or 100us.
func seqDuration(s string) (sim.Time, error) {
	for _, u := range []struct {
		suf string
		d   sim.Time
	}{{"ms", sim.Millisecond}, {"us", sim.Microsecond}, {"s", sim.Second}} {
		if v, ok := strings.CutSuffix(s, u.suf); ok {
			if x, err := strconv.Atoi(v); err == nil && x >= 0 {
				return sim.Time(x) * u.d, nil
			}
		}
	}
	return 0, fmt.Errorf("for=%q: want a whole number of s, ms or us", s)
}

// show is `show posts` (o2iblnd messages posted, by type, since the start), `show lnd`
// (the LND's connection counters) or `show fmr` (each node's FastReg pools, in name order).
func (w *seqWorld) show(args map[string]string) (string, error) {
	var b strings.Builder
	switch {
	case has(args, "posts"):
		var types []MsgType
		for ty := range w.obs.posts {
			types = append(types, ty)
		}
		slices.Sort(types)
		for _, ty := range types {
			fmt.Fprintf(&b, "%s %d\n", ty, w.obs.posts[ty])
		}
	case has(args, "lnd"):
		s := w.lnd.Stats()
		fmt.Fprintf(&b, "conns created %d closed %d rejected %d reconnects %d\n", s.ConnsCreated, s.ConnsClosed, s.Rejected, s.Reconnects)
	case has(args, "fmr"):
		var names []string
		for name := range w.nodes {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			p, _ := w.lnd.FMRPools(w.nodes[name].NIs()[0])
			fmt.Fprintf(&b, "%s pools %d descriptors %d in use %d maps %d errors %d unmaps %d\n", name, p.Pools, p.Descs, p.InUse, p.Maps, p.MapErrors, p.Unmaps)
		}
	default:
		return "", fmt.Errorf("show: want posts, lnd or fmr")
	}
	return b.String(), nil
}

func has(m map[string]string, k string) bool { _, ok := m[k]; return ok }
