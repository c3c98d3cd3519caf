package runner

import (
	"fmt"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// evCmdPingTimeout ends an lnetctl ping that had no REPLY by its timeout (arg: its index).
const evCmdPingTimeout = evFaultUndo + 1

// evCmdMetaTimeout ends the metadata ping of an lnetctl ping that had no REPLY by
// lnet.MetadataPingTimeout (arg: the ping's index).
const evCmdMetaTimeout = evFaultUndo + 2

// cmdPing is one lnetctl ping of one NID in flight: its MD's events decide the outcome.
type cmdPing struct {
	f      *faultState
	n      *node
	ft     *scenarios.Fault
	target lnet.NID
	md     lnet.MDHandle
	start  sim.Time
	done   bool
	gaveUp bool
	status int
	// answeredBy is the NID whose REPLY came back.
	answeredBy string
	// meta is the metadata ping that goes first under CFS_FAIL_TEST_PING_MD (nil: none).
	meta *metaPing
}

// pingCmd is lnetctl ping NID[,NID...] [--source NID] [--timeout S] (lnet_ping, one per NID):
// a GET of the target's ping buffer on the reserved portal. Each ends with its REPLY (ok,
// recording the NID that answered and the NIDs it lists), a failed send (its errno, at once;
// up to 2.15 at the timeout, Profile.PingWaitsAfterSendFailure), or no REPLY by the timeout (1 s by default, as lnetctl's; at most 180 s): the MD is unlinked and
// the ping fails with EIO, as lnet_ping reports it. The outcome is recorded when it ends.
// When the node's CFS_FAIL_TEST_PING_MD check fails (2.17 and later), the Netlink ping
// handler first fetches the target's NID metadata (startMeta), and the ping goes when that
// ends, whatever its outcome.
func pingCmd(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	for _, s := range ft.Cmd.NIDs {
		target, err := lnet.ParseNID(s)
		if err != nil {
			continue
		}
		p := &cmdPing{f: f, n: n, ft: ft, target: target, start: f.cluster.k.Now()}
		if reason := f.cmdBlocked(n, ft); reason != nil {
			p.record(reason.Result, reason.Detail)
			continue
		}
		f.pings = append(f.pings, p)
		if n.ln.FailCheck(lnet.FailTestPingMD) {
			p.startMeta(len(f.pings) - 1)
			continue
		}
		p.send(len(f.pings) - 1)
	}
}

// metaPing is lnet_discover_nid_metadata's ping of an lnetctl ping's target, made before the
// ping itself under CFS_FAIL_TEST_PING_MD: a GET of the target's ping buffer from the first
// local NI on its net, into a buffer with room for metadata (lnet.Node.NIDMetadataPing).
// The REPLY is read by lnet.Node.NIDMetadataReply, which logs the entries it finds. It ends
// when its MD is unlinked (lnet_ping_event_handler's completion): at the REPLY, at a failed
// send, or after lnet.MetadataPingTimeout when the timeout unlinks it.
type metaPing struct {
	p    *cmdPing
	idx  int
	md   lnet.MDHandle
	done bool
}

// startMeta starts the metadata ping; the ping itself is sent when it ends.
func (p *cmdPing) startMeta(idx int) {
	ln := p.n.ln
	src, sink, err := ln.NIDMetadataPing(p.target)
	if err != nil {
		p.send(idx) // the Netlink handler ignores the metadata ping's result
		return
	}
	m := &metaPing{p: p, idx: idx}
	p.meta = m
	m.md = ln.MDBind(lnet.MDSpec{Length: sink, Threshold: 2, Handler: m, Options: lnet.MD_TRUNCATE})
	if err := ln.Get(src, m.md, p.target, lnet.ReservedPortal, lnet.PingMatchBits, 0); err != nil {
		_ = ln.MDUnlink(m.md)
		m.end()
		return
	}
	p.f.cluster.k.After(lnet.MetadataPingTimeout, p.f.hid, evCmdMetaTimeout, uint64(idx))
}

// timedOut unlinks the MD of a metadata ping without its REPLY; its UNLINK event ends it.
func (m *metaPing) timedOut() {
	if !m.done && m.p.n.ln.MDUnlink(m.md) != nil {
		m.end()
	}
}

// OnEvent reads the REPLY's metadata and ends the metadata ping when its MD is unlinked.
func (m *metaPing) OnEvent(ev *lnet.Event) {
	if m.done {
		return
	}
	if ev.Type == lnet.EventREPLY && ev.Status == 0 {
		b, _ := ev.Data.(*lnet.PingBuffer)
		_ = m.p.n.ln.NIDMetadataReply(m.p.target, b, ev.MLength)
		if !ev.Unlinked {
			_ = m.p.n.ln.MDUnlink(m.md)
		}
	}
	if ev.Unlinked {
		m.end()
	}
}

// end sends the ping the metadata ping went before.
func (m *metaPing) end() {
	if m.done {
		return
	}
	m.done = true
	m.p.send(m.idx)
}

// send posts the GET and arms the timeout.
func (p *cmdPing) send(idx int) {
	ln, c := p.n.ln, p.ft.Cmd
	src := lnet.AnyNID
	if c.Prim != "" {
		src, _ = lnet.ParseNID(c.Prim)
		if ln.NI(src) == nil {
			p.record(lnet.ErrnoName(lnet.EINVAL), "source "+c.Prim+" is not a local NID")
			return
		}
	}
	p.md = ln.MDBind(lnet.MDSpec{Length: 16 + 16*16, Threshold: 2, Handler: p, Options: lnet.MD_TRUNCATE})
	if err := ln.Get(src, p.md, p.target, lnet.ReservedPortal, lnet.PingMatchBits, 0); err != nil {
		p.record(lnet.ErrnoName(lnet.EIO), err.Error())
		return
	}
	timeout := min(max(sim.Time(c.Value)*sim.Second, 0), pingTimeoutMax)
	if c.Value == 0 {
		timeout = pingTimeoutDefault
	}
	p.f.cluster.k.After(timeout, p.f.hid, evCmdPingTimeout, uint64(idx))
}

// timedOut unlinks the MD of a ping without its REPLY; its UNLINK event ends it.
func (p *cmdPing) timedOut() {
	if p.done {
		return
	}
	p.gaveUp = true
	if p.n.ln.MDUnlink(p.md) != nil {
		p.record(lnet.ErrnoName(lnet.EIO), "no reply")
	}
}

// OnEvent ends the ping on its REPLY, a failed SEND, or the UNLINK after its timeout.
func (p *cmdPing) OnEvent(ev *lnet.Event) {
	if p.done {
		return
	}
	switch {
	case ev.Type == lnet.EventSEND && ev.Status != 0:
		p.status = ev.Status
		if !p.n.ln.Tunables().Profile.PingWaitsAfterSendFailure {
			// LU-16290: the failed SEND completes the ping; lnet_ping unlinks the MD.
			p.record(lnet.ErrnoName(ev.Status), "send failed")
			if !ev.Unlinked {
				_ = p.n.ln.MDUnlink(p.md)
			}
			return
		}
	case ev.Type == lnet.EventREPLY && ev.Status == 0:
		p.answeredBy = ev.Initiator.String()
		p.record("ok", p.replyDetail(ev))
		if !ev.Unlinked {
			_ = p.n.ln.MDUnlink(p.md)
		}
		return
	case ev.Type == lnet.EventREPLY:
		p.status = ev.Status
	}
	if ev.Unlinked || (p.status != 0 && ev.Type == lnet.EventREPLY) {
		st := p.status
		if st == 0 {
			st = -lnet.EIO
		}
		p.record(lnet.ErrnoName(st), "no reply")
	}
}

// replyDetail gives the ping's round trip and the NIDs the answer's ping buffer lists.
func (p *cmdPing) replyDetail(ev *lnet.Event) string {
	var nids []string
	if b, ok := ev.Data.(*lnet.PingBuffer); ok {
		for _, ni := range b.NIs {
			if ni.NID != lnet.LoNID {
				nids = append(nids, ni.NID.String())
			}
		}
	}
	return fmt.Sprintf("after %s; NIDs %s", p.f.cluster.k.Now()-p.start, strings.Join(nids, ","))
}

// record writes the ping's outcome (once).
func (p *cmdPing) record(result, detail string) {
	if p.done {
		return
	}
	p.done = true
	f := p.f
	f.cmds = append(f.cmds, record.Command{Time: f.cluster.k.Now(), Node: p.ft.Node, Name: p.ft.Name,
		Command: cmdText(p.ft, p.target.String()), Result: result, AnsweredBy: p.answeredBy, Detail: detail})
}

// cmdBlocked returns the record of a command its node cannot run (down or LNet
// unconfigured), or nil.
func (f *faultState) cmdBlocked(n *node, ft *scenarios.Fault) *record.Command {
	switch {
	case n.down:
		return &record.Command{Result: "not_run", Detail: "the node is down"}
	case n.unconfigured && !strings.HasPrefix(ft.Action, "lnet "):
		// lnetctl's ioctls fail while LNet is not configured.
		return &record.Command{Result: lnet.ErrnoName(lnet.ENETDOWN), Detail: "LNet is not configured"}
	}
	return nil
}

// cmdDiscover is one lnetctl discover of one NID in flight.
type cmdDiscover struct {
	ft      *scenarios.Fault
	nid     string
	id      lnet.NID // nid parsed
	primary lnet.NID
	start   sim.Time
}

// discoverCmd is lnetctl discover NID[,NID...] (lnet_discover, one per NID): each peer's
// discovery, recorded when it ends: ok with the peer's primary NID as answered_by and the
// NIDs the peer now has, or the discovery's errno.
func discoverCmd(f *faultState, _ int, ft *scenarios.Fault, _ bool) {
	n := f.cluster.byName[ft.Node]
	for _, s := range ft.Cmd.NIDs {
		if b := f.cmdBlocked(n, ft); b != nil {
			f.cmds = append(f.cmds, record.Command{Time: f.cluster.k.Now(), Node: ft.Node, Name: ft.Name,
				Command: cmdText(ft, s), Result: b.Result, Detail: b.Detail})
			continue
		}
		nid, err := lnet.ParseNID(s)
		if err != nil {
			continue
		}
		n.ln.SetDiscoveryHook(func(peer lnet.NID, rc int) { f.discovered(n, peer, rc) })
		// Waiting before discovery starts: a discovery can end within the call (a send
		// refused at once), and its hook must find the command.
		d := &cmdDiscover{ft: ft, nid: s, id: nid, start: f.cluster.k.Now(), primary: n.ln.PeerPrimaryOf(nid)}
		f.discovers = append(f.discovers, d)
		d.primary = n.ln.DiscoverNID(nid, ft.Cmd.Force)
	}
}

// discovered records the end of every discover command waiting for peer on node n: those
// whose NID belongs to it (lnet_discover waits on the NID's peer, whose primary NID the
// discovery may have changed) or, the NID having left it, that began with its primary NID.
func (f *faultState) discovered(n *node, peer lnet.NID, rc int) {
	keep := f.discovers[:0]
	for _, d := range f.discovers {
		owner := d.primary
		if lpni := n.ln.PeerNI(d.id); lpni != nil {
			owner = lpni.Peer().Primary()
		}
		if owner != peer || f.cluster.byName[d.ft.Node] != n {
			keep = append(keep, d)
			continue
		}
		rec := record.Command{Time: f.cluster.k.Now(), Node: d.ft.Node, Name: d.ft.Name, Command: cmdText(d.ft, d.nid), Result: "ok"}
		if rc != 0 {
			rec.Result, rec.Detail = lnet.ErrnoName(rc), "discovery failed"
		} else {
			rec.AnsweredBy = peer.String()
			rec.Detail = fmt.Sprintf("after %s; NIDs %s", f.cluster.k.Now()-d.start, peerNIDs(n, peer))
		}
		f.cmds = append(f.cmds, rec)
	}
	f.discovers = keep
}

// peerNIDs lists the NIDs node n knows for the peer with that primary NID, in the order
// lnet_discover copies them out (lnet_get_next_peer_ni_locked).
func peerNIDs(n *node, primary lnet.NID) string {
	var out []string
	if lpni := n.ln.PeerNI(primary); lpni != nil {
		for _, x := range lpni.Peer().WalkNIs() {
			out = append(out, x.NID().String())
		}
	}
	return strings.Join(out, ",")
}

// cmdText is a one-NID command's text in commands.csv: as written, with the NID it is for.
func cmdText(ft *scenarios.Fault, nid string) string {
	return strings.TrimPrefix(ft.Lnetctl, "lnetctl ") + " [" + nid + "]"
}
