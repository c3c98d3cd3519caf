package lnet

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/sim"
)

// TestDataDriven runs the story scripts in testdata/*.txt: each builds nodes on one ideal LND
// (a second `nodes` starts over), adds routes, sends PUTs and GETs, injects failures, changes
// tunables and routing, and prints routes, health, peers, gateways, router pools, events and
// counters at each step (ddCommands; datadriven_more_test.go holds the later commands).
// `go test ./model/lnet -run TestDataDriven -rewrite` regenerates the expected output.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		w := &ddWorld{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := w.exec(d)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

// ddWorld is the state one script builds: the nodes on one ideal LND, what each received and
// the tracer lines not yet printed.
type ddWorld struct {
	k       *sim.Kernel
	lnd     *IdealLND
	nodes   []*Node
	byName  map[string]*Node
	ev      map[string]*evRec // each node's initiator and portal events
	tr      *ddTrace
	down    map[NID]bool // NIs whose link silently loses every message
	holds   []ddHold     // delays by the message's origin
	started bool
}

// ddTrace is a Tracer printing health and NI status changes as they happen.
type ddTrace struct {
	lines    []string
	attempts string // the node whose send attempts are printed ("" none)
	msgs     string // the node whose finalized messages are printed ("" none)
}

func (r *ddTrace) MsgAttempt(node string, id uint64, n int, t sim.Time, ni, nh NID) {
	if node == r.attempts {
		r.lines = append(r.lines, fmt.Sprintf("%s %s: msg %d try %d %s -> %s", ddTime(t), node, id, n, ni, nh))
	}
}

func (r *ddTrace) MsgDone(m *MsgRecord) {
	if m.Node != r.msgs {
		return
	}
	dir := "sent"
	if m.Received {
		dir = "received"
	}
	r.lines = append(r.lines, fmt.Sprintf("%s %s: %s %s %s -> %s size %d status %d", ddTime(m.End), m.Node, dir, m.Type, m.Src, m.Dst, m.Size, m.Status))
}

func (r *ddTrace) HealthChange(t sim.Time, node string, nid NID, local bool, o, nw int, c HealthCause) {
	kind := "peer"
	if local {
		kind = "local"
	}
	r.lines = append(r.lines, fmt.Sprintf("%s %s: %s ni %s health %d -> %d (%s)", ddTime(t), node, kind, nid, o, nw, c))
}

func (r *ddTrace) NIStatusChange(t sim.Time, node string, nid NID, o, nw NIStatus) {
	r.lines = append(r.lines, fmt.Sprintf("%s %s: ni %s %s -> %s", ddTime(t), node, nid, o, nw))
}

// ddTime prints a virtual time in seconds with microsecond precision.
func ddTime(t sim.Time) string {
	return fmt.Sprintf("t=%d.%06ds", t/sim.Second, (t%sim.Second)/sim.Microsecond)
}

// ddCommands are the script commands; those printing nothing are wrapped by quiet.
var ddCommands = map[string]func(*ddWorld, *datadriven.TestData) (string, error){
	"nodes":       quiet((*ddWorld).cmdNodes),
	"route":       quiet((*ddWorld).cmdRoute),
	"put":         (*ddWorld).cmdPut,
	"run":         (*ddWorld).cmdRun,
	"link":        quiet((*ddWorld).cmdLink),
	"ni-fatal":    quiet((*ddWorld).cmdNIFatal),
	"net-del":     quiet((*ddWorld).cmdNetDel),
	"peer-add":    quiet((*ddWorld).cmdPeerAdd),
	"add-peer":    quiet((*ddWorld).cmdAddPeer),
	"peer-state":  quiet((*ddWorld).cmdPeerState),
	"fail":        quiet((*ddWorld).cmdFail),
	"delay":       quiet((*ddWorld).cmdDelay),
	"set-health":  quiet((*ddWorld).cmdSetHealth),
	"notify":      quiet((*ddWorld).cmdNotify),
	"show":        (*ddWorld).cmdShow,
	"get":         (*ddWorld).cmdGet,
	"routing":     quiet((*ddWorld).cmdRouting),
	"set":         quiet((*ddWorld).cmdSet),
	"peer-health": quiet((*ddWorld).cmdPeerHealth),
	"lnd":         quiet((*ddWorld).cmdLND),
	"stats-reset": quiet((*ddWorld).cmdStatsReset),
	"discover":    quiet((*ddWorld).cmdDiscover),
}

// cmdDiscover is `discover node=n nid=NID [force]` (lnetctl discover [--force]).
func (w *ddWorld) cmdDiscover(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n := a.node("node")
	nid := a.nid("nid")
	if a.err != nil {
		return a.err
	}
	n.DiscoverPeer(nid, a.has("force"))
	return nil
}

// cmdStatsReset is `stats-reset node=n` (lnetctl stats reset).
func (w *ddWorld) cmdStatsReset(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n := a.node("node")
	if a.err != nil {
		return a.err
	}
	n.ResetStats()
	return nil
}

func quiet(f func(*ddWorld, *datadriven.TestData) error) func(*ddWorld, *datadriven.TestData) (string, error) {
	return func(w *ddWorld, d *datadriven.TestData) (string, error) { return "", f(w, d) }
}

// exec runs one command.
func (w *ddWorld) exec(d *datadriven.TestData) (string, error) {
	cmd := ddCommands[d.Cmd]
	switch {
	case cmd == nil:
		return "", fmt.Errorf("unknown command %q", d.Cmd)
	case d.Cmd != "nodes" && w.k == nil:
		return "", fmt.Errorf("%s before nodes", d.Cmd)
	}
	return cmd(w, d)
}

// ddArgs are one command's key=value arguments (a bare word is a key with value ""), read
// by typed getters that keep the first error.
type ddArgs struct {
	w   *ddWorld
	m   map[string]string
	err error
}

func newArgs(w *ddWorld, d *datadriven.TestData) *ddArgs {
	a := &ddArgs{w: w, m: make(map[string]string, len(d.CmdArgs))}
	for _, c := range d.CmdArgs {
		a.m[c.Key] = strings.Join(c.Vals, ",")
	}
	return a
}

func (a *ddArgs) has(k string) bool { _, ok := a.m[k]; return ok }

func (a *ddArgs) fail(k string, err error) {
	if a.err == nil && err != nil {
		a.err = fmt.Errorf("%s=%q: %w", k, a.m[k], err)
	}
}

func (a *ddArgs) nid(k string) NID {
	id, err := ParseNID(a.m[k])
	a.fail(k, err)
	return id
}

// nids reads a comma-separated list of NIDs.
func (a *ddArgs) nids(k string) []NID {
	var nids []NID
	for _, s := range strings.Split(a.m[k], ",") {
		id, err := ParseNID(s)
		a.fail(k, err)
		nids = append(nids, id)
	}
	return nids
}

func (a *ddArgs) pattern(k string) NIDPattern {
	p, err := ParseNIDPattern(a.m[k])
	a.fail(k, err)
	return p
}

// int reads an integer, def when the argument is absent.
func (a *ddArgs) int(k string, def int) int {
	if !a.has(k) {
		return def
	}
	v, err := strconv.Atoi(a.m[k])
	a.fail(k, err)
	return v
}

func (a *ddArgs) dur(k string) sim.Time {
	d, err := ddDuration(a.m[k])
	a.fail(k, err)
	return d
}

func (a *ddArgs) node(k string) *Node {
	n := a.w.byName[a.m[k]]
	if n == nil {
		a.fail(k, fmt.Errorf("no such node"))
	}
	return n
}

// localNI reads a node's own NI: the node from key "node", the NI from key "ni".
func (a *ddArgs) localNI() (*Node, *NI) {
	n, id := a.node("node"), a.nid("ni")
	if a.err != nil {
		return nil, nil
	}
	ni := n.NI(id)
	if ni == nil {
		a.fail("ni", fmt.Errorf("node %s has no such NI", n.Name()))
	}
	return n, ni
}

// cmdNodes builds the nodes listed in the input, one a line: `name nids=A,B [routing=on]`.
// The command's own arguments are global tunables by their lnetctl names
// (alive_router_check_interval=10), applied to every node. A second `nodes` starts a new
// world: a script can tell the same story under other tunables.
func (w *ddWorld) cmdNodes(d *datadriven.TestData) error {
	*w = ddWorld{}
	if _, err := ddTunables(DefaultTunables(), d.CmdArgs); err != nil {
		return err
	}
	w.k = sim.New(1)
	w.lnd = NewIdealLND(w.k, sim.Microsecond)
	w.lnd.Hook = w.hook
	w.byName, w.ev, w.tr, w.down = map[string]*Node{}, map[string]*evRec{}, &ddTrace{}, map[NID]bool{}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if err := w.addNode(line, d.CmdArgs); err != nil {
			w.k = nil
			return fmt.Errorf("%q: %w", line, err)
		}
	}
	return nil
}

// ddTunables starts from tun and sets each argument by its yaml name; an unknown name is an
// error.
func ddTunables(tun Tunables, args []datadriven.CmdArg) (Tunables, error) {
	var y strings.Builder
	for _, a := range args {
		fmt.Fprintf(&y, "%s: %s\n", a.Key, strings.Join(a.Vals, ","))
	}
	dec := yaml.NewDecoder(strings.NewReader(y.String()))
	dec.KnownFields(true)
	if err := dec.Decode(&tun); err != nil && y.Len() > 0 {
		return tun, err
	}
	return tun, nil
}

// addNode builds one node from `name nids=A,B [routing=on] [credits=N] [peer_credits=N]
// [release=2.15] [tunable=V ...]`: the node starts from its release's defaults and rules
// (master when not given), then takes the nodes command's tunables (args), then its own
// (the line's other fields, by their yaml names).
func (w *ddWorld) addNode(line string, args []datadriven.CmdArg) error {
	f := strings.Fields(line)
	if len(f) == 0 {
		return fmt.Errorf("empty node line")
	}
	rel, err := LookupRelease(DefaultRelease)
	for _, kv := range f[1:] {
		if v, ok := strings.CutPrefix(kv, "release="); ok {
			rel, err = LookupRelease(v)
		}
	}
	if err != nil {
		return err
	}
	tun, err := ddTunables(rel.Tunables(), args)
	if err != nil {
		return err
	}
	var own []datadriven.CmdArg
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "release", "nids", "routing", "credits", "peer_credits":
		default:
			own = append(own, datadriven.CmdArg{Key: k, Vals: []string{v}})
		}
	}
	if tun, err = ddTunables(tun, own); err != nil {
		return err
	}
	n, err := NewNode(w.k, f[0], tun)
	if err != nil {
		return err
	}
	nt, routing, nids := DefaultNetTunables(), false, []string(nil)
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "release":
		case "nids":
			nids = strings.Split(v, ",")
		case "routing":
			routing = v == "on"
		case "credits":
			nt.Credits, err = strconv.Atoi(v)
		case "peer_credits":
			nt.PeerCredits, err = strconv.Atoi(v)
		}
		if err != nil {
			return err
		}
	}
	for _, s := range nids {
		if err := w.addNI(n, s, nt); err != nil {
			return err
		}
	}
	n.SetRouting(routing)
	n.SetTracer(w.tr)
	ev := &evRec{}
	n.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET, Handler: ev})
	w.nodes = append(w.nodes, n)
	w.byName[f[0]] = n
	w.ev[f[0]] = ev
	return nil
}

// addNI adds one NI.
func (w *ddWorld) addNI(n *Node, s string, nt NetTunables) error {
	id, err := ParseNID(s)
	if err != nil {
		return err
	}
	_, err = n.AddNI(id, w.lnd, nt)
	return err
}

// ddHold delays every message of type typ sent from NI from whose header source is origin.
type ddHold struct {
	from   NIDPattern
	origin NID
	typ    MsgType
	by     sim.Time
}

// hook silently loses every message sent from or to an NI whose link is down, and delays
// those a hold names.
func (w *ddWorld) hook(m *Msg) IdealVerdict {
	ni := m.TxNI()
	if (ni != nil && w.down[ni.NID()]) || w.down[m.Target()] {
		return IdealVerdict{Action: IdealDrop}
	}
	for _, h := range w.holds {
		if ni != nil && h.from.Match(ni.NID()) && m.Hdr.Src == h.origin && m.Hdr.Type == h.typ {
			return IdealVerdict{Delay: h.by}
		}
	}
	return IdealVerdict{}
}

// cmdRoute is `route add node=c net=o2ib1 gw=10.0.0.3@o2ib [priority=N] [hops=N]`.
func (w *ddWorld) cmdRoute(d *datadriven.TestData) error {
	a := newArgs(w, d)
	if !a.has("add") {
		return fmt.Errorf("route: only `route add` is supported")
	}
	n, gw, prio, hops := a.node("node"), a.nid("gw"), a.int("priority", 0), a.int("hops", -1)
	net, err := ParseNet(a.m["net"])
	a.fail("net", err)
	if a.err != nil {
		return a.err
	}
	return n.AddRoute(net, gw, hops, prio)
}

// start starts every node once, before the first message or run.
func (w *ddWorld) start() error {
	if w.started {
		return nil
	}
	w.started = true
	for _, n := range w.nodes {
		if err := n.Startup(); err != nil {
			return err
		}
	}
	return nil
}

// cmdPut is `put from=c to=NID [src=NID] [size=4096] [count=1] [bits=B] [noack]`: PUTs to
// portal 4 (match bits B, B+1, ...; from local NI src when given), with ACK unless noack
// (which also leaves them without a response tracker); it prints the send attempts they make
// at once (none while discovery holds them).
func (w *ddWorld) cmdPut(d *datadriven.TestData) (string, error) {
	if err := w.start(); err != nil {
		return "", err
	}
	a := newArgs(w, d)
	n, dst, size, count, bits := a.node("from"), a.nid("to"), a.int("size", 4096), a.int("count", 1), a.int("bits", 0)
	src := AnyNID
	if a.has("src") {
		src = a.nid("src")
	}
	if a.err != nil {
		return "", a.err
	}
	w.tr.attempts = n.Name()
	defer func() { w.tr.attempts = "" }()
	ack, thr := AckReqAck, 2
	if a.has("noack") {
		ack, thr = AckReqNone, 1
	}
	for i := 0; i < count; i++ {
		md := n.MDBind(MDSpec{Length: size, Threshold: thr, Handler: w.ev[n.Name()]})
		if err := n.Put(src, md, ack, dst, testPortal, uint64(bits+i), 0, 0); err != nil {
			return "", err
		}
	}
	return w.flush(), nil
}

// cmdRun is `run for=1s [attempts=node] [msgs=node]`: advances virtual time, checks every node's
// invariants and prints the health and NI status changes that happened (and the node's send
// attempts: message, try, local NI -> next hop), then the time reached.
func (w *ddWorld) cmdRun(d *datadriven.TestData) (string, error) {
	if err := w.start(); err != nil {
		return "", err
	}
	a := newArgs(w, d)
	dur := a.dur("for")
	if a.err != nil {
		return "", a.err
	}
	w.tr.attempts, w.tr.msgs = a.m["attempts"], a.m["msgs"]
	defer func() { w.tr.attempts, w.tr.msgs = "", "" }()
	if err := w.k.RunUntil(w.k.Now() + dur); err != nil {
		return "", err
	}
	for _, n := range w.nodes {
		if err := n.checkInvariants(); err != nil {
			return "", err
		}
	}
	return w.flush() + ddTime(w.k.Now()) + "\n", nil
}

// flush returns the tracer lines not yet printed.
func (w *ddWorld) flush() string {
	var b strings.Builder
	for _, l := range w.tr.lines {
		b.WriteString(l + "\n")
	}
	w.tr.lines = nil
	return b.String()
}

// ddDuration reads 1s, 250ms or 10us.
func ddDuration(s string) (sim.Time, error) {
	for _, u := range []struct {
		suf string
		d   sim.Time
	}{{"ms", sim.Millisecond}, {"us", sim.Microsecond}, {"s", sim.Second}} {
		if v, ok := strings.CutSuffix(s, u.suf); ok {
			x, err := strconv.Atoi(v)
			if err != nil || x < 0 {
				return 0, fmt.Errorf("duration %q: want a whole number of s, ms or us", s)
			}
			return sim.Time(x) * u.d, nil
		}
	}
	return 0, fmt.Errorf("duration %q: want a whole number of s, ms or us", s)
}

// cmdLink is `link down ni=NID` / `link up ni=NID`: while down, every message sent from or to
// that NI is lost without an error (a dead cable).
func (w *ddWorld) cmdLink(d *datadriven.TestData) error {
	a := newArgs(w, d)
	id := a.nid("ni")
	if a.err == nil && a.has("up") == a.has("down") {
		return fmt.Errorf("link: say up or down")
	}
	w.down[id] = a.has("down")
	return a.err
}

// cmdNIFatal is `ni-fatal node=n ni=NID on|off`: the LND reports the port dead or active.
func (w *ddWorld) cmdNIFatal(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, ni := a.localNI()
	if a.err != nil {
		return a.err
	}
	n.SetNIFatal(ni, a.has("on"))
	return nil
}

// cmdNetDel is `net-del node=n ni=NID`: the NI is deleted at run time (lnetctl net del).
func (w *ddWorld) cmdNetDel(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, ni := a.localNI()
	if a.err != nil {
		return a.err
	}
	return n.DelNI(ni.NID())
}

// cmdPeerAdd is `peer-add node=n prim=NID [nids=NID[,NID]] [lock=true]`: a multi-rail peer
// configured by hand (lnetctl peer add [--lock_prim]).
func (w *ddWorld) cmdPeerAdd(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, prim := a.node("node"), a.nid("prim")
	var nids []NID
	if a.has("nids") {
		nids = a.nids("nids")
	}
	if a.err != nil {
		return a.err
	}
	if a.has("lock") {
		return n.ConfigPeer(prim, nids, true, a.m["lock"] == "true")
	}
	_, err := n.AddPeer(prim, nids, false)
	return err
}

// cmdPeerState is `peer-state node=n nid=NID state=S` (lnetctl peer set --state).
func (w *ddWorld) cmdPeerState(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, id, st := a.node("node"), a.nid("nid"), a.int("state", 0)
	if a.err != nil {
		return a.err
	}
	return n.SetPeerState(id, uint32(st))
}

// cmdAddPeer is `add-peer node=n nids=NID[,NID]`: Lustre's LNetAddPeer (lctl add_uuid).
func (w *ddWorld) cmdAddPeer(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n := a.node("node")
	nids := a.nids("nids")
	if a.err != nil {
		return a.err
	}
	n.AddPeerNIDs(nids)
	return nil
}

// cmdFail is `fail [ni=NID] [to=NID] [type=PUT] [count=N] [status=local_error] [after=D]`:
// the next N (-1: every) matching sends fail in the LND with the given health status, D later.
// With `recv` instead they arrive, and the receiver's LND fails their receive (IdealRecvFail:
// the received message is finalized with -EIO, the send completes OK).
func (w *ddWorld) cmdFail(d *datadriven.TestData) error {
	a := newArgs(w, d)
	hs, ok := LNET_MSG_STATUS_LOCAL_ERROR, true
	if a.has("status") {
		hs, ok = ParseHStatus(a.m["status"])
	}
	if !ok {
		a.fail("status", fmt.Errorf("unknown health status"))
	}
	var after sim.Time
	if a.has("after") {
		after = a.dur("after")
	}
	if a.has("recv") {
		return w.rule(a, IdealVerdict{Action: IdealRecvFail})
	}
	return w.rule(a, IdealVerdict{Action: IdealFail, HStatus: hs, Delay: after})
}

// cmdDelay is `delay ni=NID [to=NID] [type=PUT] by=1ms count=N`: the next N matching sends
// complete (and arrive) that much later, holding their credits meanwhile. With
// origin=NID instead of to and count, every message of that type leaving ni whose header
// source is origin (a router's forwards of one sender) is delayed.
func (w *ddWorld) cmdDelay(d *datadriven.TestData) error {
	a := newArgs(w, d)
	if !a.has("origin") {
		return w.rule(a, IdealVerdict{Action: IdealDeliver, Delay: a.dur("by")})
	}
	h := ddHold{from: a.pattern("ni"), origin: a.nid("origin"), typ: ddMsgTypes[a.m["type"]], by: a.dur("by")}
	if _, ok := ddMsgTypes[a.m["type"]]; !ok {
		a.fail("type", fmt.Errorf("want PUT, GET, ACK or REPLY"))
	}
	if a.err == nil {
		w.holds = append(w.holds, h)
	}
	return a.err
}

// rule adds an LND rule giving the next count=N sends from ni=pattern to to=pattern (both
// any when absent) of type=T (PUT, GET, ACK, REPLY; any when absent) verdict v.
func (w *ddWorld) rule(a *ddArgs, v IdealVerdict) error {
	from, to, count := a.pattern("ni"), a.pattern("to"), a.int("count", 1)
	var types uint32
	if a.has("type") {
		t, ok := ddMsgTypes[a.m["type"]]
		if !ok {
			a.fail("type", fmt.Errorf("want PUT, GET, ACK or REPLY"))
		}
		types = 1 << t
	}
	if a.err != nil {
		return a.err
	}
	w.lnd.AddRule(IdealRule{From: from, To: to, Types: types, Count: count, Verdict: v})
	return nil
}

// ddMsgTypes are the message types a rule can name.
var ddMsgTypes = map[string]MsgType{"PUT": MsgPUT, "GET": MsgGET, "ACK": MsgACK, "REPLY": MsgREPLY}

// cmdNotify is `notify node=n ni=NID peer=NID up|down [reset]`: n's LND on its NI ni reports
// peer NID alive or dead (lnet_notify, the report dated now).
func (w *ddWorld) cmdNotify(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, ni := a.localNI()
	peer := a.nid("peer")
	if a.err == nil && a.has("up") == a.has("down") {
		return fmt.Errorf("notify: say up or down")
	}
	if a.err != nil {
		return a.err
	}
	return n.Notify(ni, peer, a.has("up"), a.has("reset"), w.k.Now())
}

// cmdSetHealth is `set-health node=n ni=NID value=V` (`lnetctl net set --health`).
func (w *ddWorld) cmdSetHealth(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, ni := a.localNI()
	v := a.int("value", 0)
	if a.err != nil {
		return a.err
	}
	return n.SetNIHealth(ni.NID(), v)
}

// cmdShow is `show WHAT node=n`, WHAT one of ddShows.
func (w *ddWorld) cmdShow(d *datadriven.TestData) (string, error) {
	a := newArgs(w, d)
	n := a.node("node")
	if a.err != nil {
		return "", a.err
	}
	for _, s := range ddShows {
		if a.has(s.what) {
			return s.f(w, n), nil
		}
	}
	return "", fmt.Errorf("show: want one of %s", ddShowNames())
}

// ddRoutes prints `lnetctl route show -v` one route a line.
func ddRoutes(n *Node) string {
	var b strings.Builder
	for _, r := range n.Routes() {
		fmt.Fprintf(&b, "net %s gw %s hops %d priority %d health %d %s\n", r.Net, r.Gateway, r.Hop, r.Priority, r.Health, r.State)
	}
	return b.String()
}

// ddHealth prints each local NI's health and status, then each peer NI's health.
func ddHealth(n *Node) string {
	var b strings.Builder
	for _, ni := range n.NIs() {
		fmt.Fprintf(&b, "local %s health %d %s\n", ni.NID(), ni.Health(), ni.Status())
	}
	for _, p := range n.ShowPeers() {
		for _, pn := range p.PeerNIs {
			fmt.Fprintf(&b, "peer %s health %d\n", pn.NID, pn.HealthStats.HealthValue)
		}
	}
	return b.String()
}

// ddStats prints each local NI's send/recv/drop counts, the node's PUT SEND events (and how
// many failed), ACKs and PUTs received, and
// for a router the messages it forwarded.
func (w *ddWorld) ddStats(n *Node) string {
	var b strings.Builder
	for _, ni := range n.NIs() {
		s := ni.Stats()
		fmt.Fprintf(&b, "%s send %d recv %d drop %d\n", ni.NID(), s.SendCount, s.RecvCount, s.DropCount)
	}
	ev, failed := w.ev[n.Name()], 0
	for _, e := range ev.evs {
		if e.Type == EventSEND && e.Status != 0 {
			failed++
		}
	}
	fmt.Fprintf(&b, "sends %d failed %d acks %d puts-received %d\n", ev.count(EventSEND), failed, ev.count(EventACK), ev.count(EventPUT))
	if f := n.RouterStats().Forwarded; f > 0 {
		fmt.Fprintf(&b, "forwarded %d\n", f)
	}
	return b.String()
}
