package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// The lnetctl commands a timeline can run, with lnetctl's verbs and option names
// (lnet/utils/lnetctl.c) and liblnetconfig's checks (lnet/utils/lnetconfig/liblnetconfig.c):
// what those refuse is refused here at load; what the kernel refuses is recorded when the
// command runs.
func init() {
	for _, s := range []*cmdSpec{
		{verb: "route add", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway"), opt('c', "hop", "hop-count"), opt('p', "priority"),
			opt(0, "health_sensitivity")}, releaseOpts: map[string]releaseLacks{"health_sensitivity": routeSensitivityLacking},
			check: checkRouteAdd, undo: "route del"},
		{verb: "route del", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway")}, check: checkRoute},
		{verb: "net set", opts: []cmdOpt{opt('n', "nid"), opt('t', "health"), opt('m', "conns-per-peer"), flagOpt('a', "all"),
			opt('i', "net"), opt('l', "lnd-timeout")}, check: checkNetSet},
		{verb: "peer set", opts: []cmdOpt{opt('n', "nid"), opt('t', "health"), opt('s', "state"), flagOpt('a', "all")}, check: checkPeerSet},
		{verb: "peer add", opts: []cmdOpt{opt('k', "prim_nid"), opt('n', "nid"), flagOpt('m', "non_mr"), flagOpt('l', "lock_prim")},
			check: checkPeerAdd},
		{verb: "peer del", opts: []cmdOpt{opt('k', "prim_nid"), opt('n', "nid"), flagOpt('f', "force")}, check: checkPeerDel},
		{verb: "lnet unconfigure", undo: "lnet configure", o2ibOnly: true},
		{verb: "lnet configure", opts: []cmdOpt{flagOpt('a', "all")}},
		{verb: "ping", opts: []cmdOpt{opt('s', "source"), opt('t', "timeout")}, minOperands: 1, maxOperands: 1, check: checkPing},
		{verb: "net add", opts: []cmdOpt{opt('n', "net"), opt('i', "if"), opt(0, "nid"), opt('t', "peer-timeout"),
			opt('c', "peer-credits"), opt('b', "peer-buffer-credits"), opt('r', "credits"), opt('s', "cpt"),
			opt('m', "conns-per-peer"), opt('p', "ip2net"), opt('a', "auth-key"), opt('T', "traffic-class"), opt(0, "tos"),
			{long: []string{"skip-mr-route-setup"}, short: 'k', shortDiffers: true}}, check: checkNetAdd},
		{verb: "net del", opts: []cmdOpt{opt('n', "net"), opt('i', "if"), opt(0, "nid")}, check: checkNetDel},
		{verb: "udsp add", opts: []cmdOpt{opt('s', "src"), opt('d', "dst"), opt('r', "rte"), opt('p', "priority"), opt('i', "idx")},
			check: checkUDSPAdd},
		{verb: "udsp del", opts: []cmdOpt{flagOpt('a', "all"), opt('i', "idx")}, check: checkUDSPDel},
		{verb: "discover", opts: []cmdOpt{flagOpt('f', "force")}, minOperands: 1, maxOperands: 1, check: checkDiscover},
		{verb: "stats reset", check: checkStatsReset},
		{verb: "debug peer", opts: []cmdOpt{{long: []string{"nid"}, short: 'k', arg: true, shortDiffers: true}}, check: checkDebugPeer},
	} {
		registerCommand(s)
	}
	for _, name := range SetNames {
		registerCommand(&cmdSpec{verb: "set " + name, minOperands: 1, maxOperands: 1, check: checkSet, undo: "set " + name})
	}
}

// SetNames are the `lnetctl set` globals a timeline can change, as lnetctl names them.
var SetNames = []string{"routing", "discovery", "drop_asym_route", "retry_count", "transaction_timeout",
	"health_sensitivity", "recovery_interval", "router_sensitivity", "response_tracking", "recovery_limit",
	"max_recovery_ping_interval", "numa_range", "max_interfaces", "tiny_buffers", "small_buffers", "large_buffers"}

// flagOpt is shorthand for an option without a value.
func flagOpt(short byte, long ...string) cmdOpt { return cmdOpt{long: long, short: short} }

// checkSet: lnetctl set NAME VALUE parses VALUE as a number (routing, discovery and
// drop_asym_route as 0 or 1); a negative value fails the kernel's kstrtoul, refused here.
func checkSet(r *resolver, p string, c *Command) {
	name := c.Verb[len("set "):]
	if m := r.s.Member(c.node); m != nil && !setOfRelease(name, r.rel[m.Group].Profile) {
		r.errorAt(p, "remove it (lnetctl has set "+name+" from "+setSince[name]+")",
			"%s: no such command in lnetctl (%s runs %s)", c.Verb, c.node, r.rel[m.Group].Name)
		return
	}
	v, err := strconv.Atoi(c.Operands[0])
	switch {
	case err != nil:
		r.errorAt(p, "", "%s: cannot parse %s value %q", c.Verb, name, c.Operands[0])
	case (name == "routing" || name == "discovery" || name == "drop_asym_route") && v != 0 && v != 1:
		r.errorAt(p, "0 disables, 1 enables", "%s: cannot parse %s value %d", c.Verb, name, v)
	case v < 0:
		r.errorAt(p, "the kernel reads the value as unsigned and refuses it (EINVAL)", "%s: %d is negative", c.Verb, v)
	}
	c.Value = v
}

// setSince names, for each `lnetctl set` subcommand some release lacks, the release and
// ticket that added it: the global parameters jt_show_global prints from that release
// (Profile.GlobalShowKeys), each with its set command.
var setSince = map[string]string{
	"router_sensitivity":         "2.12.55 (LU-11300; 2.15 and later)",
	"response_tracking":          "2.13.56 (LU-13502; 2.15 and later)",
	"recovery_limit":             "2.13.57 (LU-13569; 2.15 and later)",
	"max_recovery_ping_interval": "2.15.51 (LU-14979; 2.16 and later)",
}

// globalShowOrder is master's jt_show_global key order: a release prints (and has the set
// command of) the first Profile.GlobalShowKeys of them.
var globalShowOrder = []string{"numa_range", "max_interfaces", "discovery", "drop_asym_route", "retry_count",
	"transaction_timeout", "health_sensitivity", "recovery_interval", "router_sensitivity", "lnd_timeout",
	"response_tracking", "recovery_limit", "max_recovery_ping_interval"}

// setOfRelease reports whether the release's lnetctl has `set NAME`: the buffers and routing
// are in every release, a global parameter when the release's global show prints it.
func setOfRelease(name string, pr lnet.Profile) bool {
	i := slices.Index(globalShowOrder, name)
	return i < 0 || pr.GlobalShowKeys == 0 || i < pr.GlobalShowKeys
}

// checkHealth reads --health (0..1000, as lnet_ni_set_healthv clamps nothing) and needs --nid
// or --all.
func checkHealthSet(r *resolver, p string, c *Command) {
	checkNIs(r, p, c)
	if r.cmdInt(p, c, "health", &c.Value) && (c.Value < 0 || c.Value > 1000) {
		r.errorAt(p, "", "%s: health value %d: must be 0 to 1000", c.Verb, c.Value)
	}
}

// checkNetSet: net set --health with --nid or --all (lustre_lnet_config_ni_healthv), or
// --conns-per-peer 1 to 127 (2.14+, LU-12815); a negative one is accepted and changes nothing
// (lnetctl's set_value_helper passes a negative value on to no call: `cpp > -1` up to 2.15,
// from 2.16 a -1 with no health value returns at once), as sanity-lnet test 230 checks; or
// from 2.17 --net with --lnd-timeout (checkNetSetLNDTimeout). From 2.17 lnetctl fails --all
// beside --nid (yaml_lnet_config_ni_value: EINVAL, LU-18566), whatever the state, so it is
// refused at load; before, --all wins. 2.15's lnetctl reads the short -a with a value
// (jt_set_ni_value's "a:m:n:t:"), which takes the next word: refused with --all to write.
func checkNetSet(r *resolver, p string, c *Command) {
	var prof lnet.Profile
	m := r.s.Member(c.node)
	if m != nil {
		prof = r.rel[m.Group].Profile
	}
	if slices.Contains(c.shorts, "all") && prof.NIAddByIoctl && !prof.NoNetAddConnsPerPeer {
		r.errorAt(p, "write --all", "%s: %s runs %s, whose lnetctl gives -a a value (short options \"a:m:n:t:\", LU-12815), which takes the next word",
			c.Verb, c.node, r.rel[m.Group].Name)
		return
	}
	_, byNet := c.Args["net"]
	_, tmo := c.Args["lnd-timeout"]
	if byNet || tmo {
		if (!byNet || optionOfRelease(r, p, c, "net", lndTimeoutLacking)) &&
			(!tmo || optionOfRelease(r, p, c, "lnd-timeout", lndTimeoutLacking)) {
			checkNetSetLNDTimeout(r, p, c)
		}
		return
	}
	_, all := c.Args["all"]
	if _, nid := c.Args["nid"]; all && nid && m != nil && !prof.NoNetSetLNDTimeout {
		r.errorAt(p, "give --nid or --all", "%s: lnetctl fails (errno -22): --all with --nid (yaml_lnet_config_ni_value sets no NI for both)", c.Verb)
		return
	}
	_, cpp := c.Args["conns-per-peer"]
	_, health := c.Args["health"]
	switch {
	case cpp && !optionOfRelease(r, p, c, "conns-per-peer", netSetCPPLacking):
	case cpp && health:
		r.errorAt(p, "one value per command", "%s: give --health or --conns-per-peer, not both", c.Verb)
	case cpp:
		checkNIs(r, p, c)
		checkNetSetCPP(r, p, c, prof)
	case !r.missing(p, c, "health"):
		checkHealthSet(r, p, c)
	}
}

// checkNetSetCPP reads net set's --conns-per-peer as each release's lnetctl does: master
// refuses a word or a value above 127 ("invalid conns-per-peer value (valid range 0-127)",
// LU-20398); 2.16 and 2.17 ignore a word (refused here: see cmdInt) and hand a number to the
// kernel, whose Netlink LND tunables refuse one above 127 with ERANGE whatever the state
// (refused here in its words); 2.15 hands it to lnet_ni_set_conns_per_peer unchecked (above
// 127 not modelled). 0, which lnetctl passes on, is refused as not modelled (an NI opens at
// least one connection per peer).
func checkNetSetCPP(r *resolver, p string, c *Command, prof lnet.Profile) {
	s := c.Args["conns-per-peer"]
	if !prof.LaxConnsPerPeerOption {
		if v, err := strconv.Atoi(s); err != nil || v > 127 {
			r.errorAt(p, "1 to 127 (below 0: no change)", "%s: invalid conns-per-peer value (valid range 0-127): %s", c.Verb, s)
			return
		}
	}
	if !r.cmdInt(p, c, "conns-per-peer", &c.Value) {
		return
	}
	switch {
	case c.Value == 0:
		r.errorAt(p, "1 to 127 (below 0: no change)", "%s: conns-per-peer 0 is not modelled (an NI opens at least one connection per peer)", c.Verb)
	case c.Value > 127 && prof.NIAddByIoctl:
		r.errorAt(p, "1 to 127 (the model's LNDs open at most 127 connections per peer)",
			"%s: conns-per-peer %d is not modelled (%s hands it to the kernel unchecked)", c.Verb, c.Value, c.node)
	case c.Value > 127:
		r.errorAt(p, "1 to 127", "%s: the kernel refuses conns-per-peer %d (ERANGE: the LND tunables take 0 to 127)", c.Verb, c.Value)
	}
}

// lndTimeoutLacking: net set --net and --lnd-timeout are lnetctl's from 2.17 (LU-18566).
var lndTimeoutLacking = releaseLacks{func(pr lnet.Profile) bool { return pr.NoNetSetLNDTimeout },
	"set the net's timeout in the scenario's o2ib or socklnd section (lnetctl net set has --lnd-timeout from 2.17, LU-18566)"}

// netSetCPPLacking: net set --conns-per-peer is lnetctl's from 2.14 (LU-12815).
var netSetCPPLacking = releaseLacks{func(pr lnet.Profile) bool { return pr.NoNetAddConnsPerPeer },
	"set conns_per_peer in the scenario's o2ib or socklnd section (lnetctl net set has --conns-per-peer from 2.14, LU-12815)"}

// checkNetSetLNDTimeout: net set --net NET --lnd-timeout S (2.17+, LU-18566) as
// set_value_helper and lustre_lnet_config_lnd_timeout read it: a net libcfs_str2net reads
// ("Invalid network type"), a timeout of 0 or more ("Invalid LND timeout value", 0: the LND
// falls back to lnet_lnd_timeout), --lnd-timeout not without --net ("Specified --lnd-timeout
// without --net option"); an LND without a timeout parameter (lo) fails ("Failed to set LND
// timeout for net lo", -EINVAL) whatever the state, refused here. Deliberate differences,
// refused at load: a timeout that is not a number (lnetctl's atoi reads a word as 0 and
// "5s" as 5), --net without --lnd-timeout (lnetctl ignores it and sets nothing), the other
// options beside them (lnetctl ignores --health and --conns-per-peer, and fails --all with
// --nid), and the nets of LNDs lnetsim lacks (gni, kfi). The net and timeout go in Net and
// Value.
func checkNetSetLNDTimeout(r *resolver, p string, c *Command) {
	v, tmo := c.Args["lnd-timeout"]
	if !tmo {
		r.errorAt(p, "add --lnd-timeout SECONDS (lnetctl ignores --net without it and sets nothing)", "%s: --net alone sets nothing", c.Verb)
		return
	}
	for _, o := range []string{"nid", "all", "health", "conns-per-peer"} {
		if _, ok := c.Args[o]; ok {
			r.errorAt(p, "one value per command: --lnd-timeout sets the LND's timeout module parameter alone",
				"%s: --%s beside --lnd-timeout is not modelled (lnetctl ignores it, or fails --all with --nid)", c.Verb, o)
			return
		}
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		r.errorAt(p, "whole seconds, 0 for the LND to use lnet_lnd_timeout", "%s: --lnd-timeout %q is not a number (lnetctl's atoi would read %d)", c.Verb, v, atoiPrefix(v))
		return
	case n < 0:
		r.errorAt(p, "", "%s: Invalid LND timeout value '%s', must be >= 0", c.Verb, v)
		return
	}
	net, ok := c.Args["net"]
	if !ok {
		r.errorAt(p, "add --net NET: the net whose LND's timeout to set", "%s: Specified --lnd-timeout without --net option", c.Verb)
		return
	}
	cn, _, err := ParseNet(net)
	switch {
	case err != nil && slices.Contains(lnetctlOnlyNets, strings.TrimRight(strings.TrimPrefix(net, "@"), "0123456789")):
		r.errorAt(p, "lnetsim models o2iblnd and socklnd", "%s: --net %s: the timeout of its LND is not modelled", c.Verb, net)
		return
	case err != nil:
		r.errorAt(p, "a net such as o2ib1 or tcp", "%s: Invalid network type: %s", c.Verb, net)
		return
	case cn == "lo0":
		r.errorAt(p, "name an o2ib or tcp net", "%s: lnetctl fails (errno -22): Failed to set LND timeout for net lo (lolnd has no timeout)", c.Verb)
		return
	}
	c.Net, c.Value = cn, n
}

// lnetctlOnlyNets are the LND names libcfs_str2net reads whose LNDs lnetsim does not model.
var lnetctlOnlyNets = []string{"gni", "gip", "ptlf", "kfi", "efa", "bxi3f"}

// atoiPrefix is what C's atoi reads from s: the leading optionally signed decimal digits, 0
// without any.
func atoiPrefix(s string) int {
	s = strings.TrimLeft(s, " \t\n")
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(s[:i])
	return n
}

// checkNIs reads --nid (a NID list) or --all, one of which is required.
func checkNIs(r *resolver, p string, c *Command) {
	_, all := c.Args["all"]
	if nid, ok := c.Args["nid"]; ok && !all {
		c.NIDs = r.cmdNIDs(p, nid)
	} else if !all {
		r.errorAt(p, "", "%s: missing mandatory parameter: --nid (or --all)", c.Verb)
	}
}

// checkPeerSet: peer set --health with --nid or --all (lustre_lnet_config_peer_ni_healthv),
// or --state (2.16+, LU-16709) with the --nid of one peer: the number the kernel stores as
// the peer's lp_state (0 to 2^32-1).
func checkPeerSet(r *resolver, p string, c *Command) {
	_, health := c.Args["health"]
	if !optionOfRelease(r, p, c, "state", peerStateLacking) {
		if !r.missing(p, c, "health") {
			checkHealthSet(r, p, c)
		}
		return
	}
	switch nid, ok := c.Args["nid"]; {
	case health:
		r.errorAt(p, "one value per command", "%s: give --health or --state, not both", c.Verb)
	case !ok:
		r.errorAt(p, "", "%s: --state needs --nid, a NID of the peer", c.Verb)
	default:
		if c.NIDs = r.cmdNIDs(p, nid); len(c.NIDs) != 1 {
			r.errorAt(p, "name one NID of the peer", "%s: --nid takes one NID with --state, got %d", c.Verb, len(c.NIDs))
		}
		if v, err := strconv.ParseUint(c.Args["state"], 0, 32); err != nil {
			r.errorAt(p, "a number from 0 to 4294967295", "%s: cannot parse state %q", c.Verb, c.Args["state"])
		} else {
			c.Value = int(v)
		}
	}
}

// peerStateLacking: peer set --state is lnetctl's from 2.16 (LU-16709).
var peerStateLacking = releaseLacks{func(pr lnet.Profile) bool { return pr.NoPeerLockPrimary }, "remove it (lnetctl has it from 2.16, LU-16709)"}

// checkPeerAdd: lustre_lnet_config_peer_nid needs --prim_nid (one NID); --nid lists the
// peer's other NIDs; --non_mr makes a non-Multi-Rail peer (its short -m takes a value from
// 2.16, so it is refused there); --lock_prim (2.16+) locks its primary NID.
func checkPeerAdd(r *resolver, p string, c *Command) {
	if r.missingPrim(p, c) {
		return
	}
	r.peerNIDs(p, c)
	_, c.NonMR = c.Args["non_mr"]
	if m := r.s.Member(c.node); c.NonMR && slices.Contains(c.shorts, "non_mr") && m != nil && !r.rel[m.Group].Profile.NoPeerLockPrimary {
		r.errorAt(p, "write --non_mr", "%s: %s runs %s, whose lnetctl gives -m a value (short options \"k:m:n:f:l\", LU-14668), which takes the next word", c.Verb, c.node, r.rel[m.Group].Name)
	}
	c.LockPrim = optionOfRelease(r, p, c, "lock_prim", lockPrimLacking)
}

// lockPrimLacking: peer add --lock_prim and peer del --force are lnetctl's from 2.16 (LU-14668).
var lockPrimLacking = releaseLacks{func(pr lnet.Profile) bool { return pr.NoPeerLockPrimary }, "remove it (lnetctl has it from 2.16, LU-14668)"}

// releaseLacks names the releases whose lnetctl lacks an option, and the fix to print.
type releaseLacks struct {
	lacks func(lnet.Profile) bool
	fix   string
}

// optionOfRelease reports whether opt was given and the command's node's release has it; on
// a node whose lnetctl lacks it, it is refused as lnetctl refuses an unknown option.
func optionOfRelease(r *resolver, p string, c *Command, opt string, rl releaseLacks) bool {
	if _, ok := c.Args[opt]; !ok {
		return false
	}
	if m := r.s.Member(c.node); m != nil && rl.lacks(r.rel[m.Group].Profile) {
		r.errorAt(p, rl.fix, "%s: unrecognized option '--%s' (%s runs %s)", c.Verb, opt, c.node, r.rel[m.Group].Name)
		return false
	}
	return true
}

// checkPeerDel: lustre_lnet_del_peer_nid needs --prim_nid; --nid lists the NIDs to remove
// (none: the whole peer); --force (2.16+) deletes a peer whose primary NID is locked.
func checkPeerDel(r *resolver, p string, c *Command) {
	if r.missingPrim(p, c) {
		return
	}
	r.peerNIDs(p, c)
	c.Force = optionOfRelease(r, p, c, "force", lockPrimLacking)
}

// missingPrim refuses peer add or del without --prim_nid, saying how the node's lnetctl
// fails it: with no option at all check_cmd prints the usage (-1); up to 2.15 (liblnetconfig's
// ioctl path, as its import: ImportByIoctl) lustre_lnet_modify_peer fails with "--prim_nid
// must be specified" (LUSTRE_CFG_RC_BAD_PARAM, -1); from 2.16 yaml_lnet_peer sends a request
// with no peer in it (a --nid is left out with the primary NID), which lnet_peer_ni_cmd
// refuses with ENOMSG, "no configuration".
func (r *resolver) missingPrim(p string, c *Command) bool {
	if _, ok := c.Args["prim_nid"]; ok {
		return false
	}
	const hint = "add --prim_nid NID"
	m := r.s.Member(c.node)
	old := m != nil && r.rel[m.Group].Profile.PeerCmdsByNIDList
	_, nids := c.Args["nid"]
	switch {
	case len(c.Args) == 0 && len(c.Operands) == 0:
		r.errorAt(p, hint, "%s: lnetctl prints its usage and fails (check_cmd: -1): --prim_nid is mandatory", c.Verb)
	case old && c.Verb == "peer add" && nids:
		return false // the first --nid is the primary NID (peerNIDs)
	case old && c.Verb == "peer add":
		r.errorAt(p, hint, "peer add: neither --prim_nid nor --nid: lnetctl adds nothing and succeeds (%s runs %s)", c.node, r.rel[m.Group].Name)
	case old:
		r.errorAt(p, hint, "peer del: lnetctl fails (errno -2): Primary nid is not provided")
	case m != nil && r.rel[m.Group].Profile.ImportByIoctl:
		r.errorAt(p, hint, "%s: lnetctl fails (errno -1): --prim_nid must be specified", c.Verb)
	default:
		r.errorAt(p, hint, "%s: lnetctl sends no peer without --prim_nid, which the kernel refuses (lnet_peer_ni_cmd: ENOMSG, \"no configuration\")", c.Verb)
	}
	return true
}

// primRefusal refuses a --prim_nid that is not one NID (nor an NI reference), saying how the
// node's lnetctl fails it: up to 2.15 lustre_lnet_modify_peer's libcfs_str2nid does not read
// it ("badly formatted primary NID", -1); from 2.16 lnetctl hands it to the kernel, whose
// libcfs_strnid does not (lnet_peer_ni_cmd: EINVAL, "unsupported primary NID").
func (r *resolver) primRefusal(p string, c *Command, v string, n int, err error) {
	why := fmt.Sprintf("a list of %d NIDs", n)
	if err != nil {
		why = err.Error()
	}
	const hint = "a NID (10.0.0.5@o2ib) or node:index"
	m := r.s.Member(c.node)
	switch {
	case m != nil && r.rel[m.Group].Profile.PeerCmdsByNIDList && c.Verb == "peer add":
		r.errorAt(p, hint, "peer add: lnetctl fails (errno -2): bad primary NID: '%s' (%s)", v, why)
		return
	case m != nil && r.rel[m.Group].Profile.PeerCmdsByNIDList:
		r.errorAt(p, hint, "peer del: lnetctl fails (errno -1): bad key NID: '%s' (%s)", v, why)
		return
	}
	if m != nil && r.rel[m.Group].Profile.ImportByIoctl {
		r.errorAt(p, hint, "%s: lnetctl fails (errno -1): badly formatted primary NID: %s (%s)", c.Verb, v, why)
		return
	}
	r.errorAt(p, hint, "%s: the kernel refuses the primary NID %s (lnet_peer_ni_cmd: EINVAL, \"unsupported primary NID\"; %s)", c.Verb, v, why)
}

// peerNIDs resolves --prim_nid (exactly one NID) and --nid.
func (r *resolver) peerNIDs(p string, c *Command) {
	v, ok := c.Args["prim_nid"]
	if !ok { // 2.12's peer add: the first --nid is the primary NID
		if nids := r.cmdNIDs(p, c.Args["nid"]); len(nids) > 0 {
			c.Prim, c.NIDs = nids[0], nids[1:]
		}
		return
	}
	prim, err := expandNIDList(v, func(ref string) (string, error) {
		m, i, err := r.s.ResolveNI(ref)
		if err != nil {
			return "", fmt.Errorf("%q is neither a NID nor an NI of the scenario", ref)
		}
		return m.NIs[i].NID.String(), nil
	})
	if err != nil || len(prim) > 1 {
		r.primRefusal(p, c, v, len(prim), err)
		return
	}
	if len(prim) > 0 {
		c.Prim = prim[0]
	}
	if s, ok := c.Args["nid"]; ok {
		c.NIDs = r.cmdNIDs(p, s)
	}
}

// cmdNIDs expands a NID list argument (NIDs, NID ranges, or lnetsim's NI references).
func (r *resolver) cmdNIDs(p, s string) []string {
	nids, err := expandNIDList(s, func(ref string) (string, error) {
		m, i, err := r.s.ResolveNI(ref)
		if err != nil {
			return "", fmt.Errorf("%q is neither a NID nor an NI of the scenario", ref)
		}
		return m.NIs[i].NID.String(), nil
	})
	if err != nil {
		r.errorAt(p, "a NID (10.0.0.5@o2ib), a range (10.0.0.[2-6]@o2ib), a list, or node:index", "%v", err)
	}
	return nids
}

// cmdPingNIDs reads the NID list of lnetctl ping or discover, whose NIDs may name a host
// (HOST@NET): lnetsim's host names are its node names, each resolving to the address of its
// node's first NI (its first interface), as `hostname -i` gives it. A name that does not
// resolve is refused in the words of the node's lnetctl: up to 2.15 liblnetconfig's
// infra_ping_nid reads each NID by libcfs_str2nid and reports "cannot parse NID" (going on
// with the others, which lnetsim does not model: the command is refused); from 2.16 the
// Netlink ping and discover read the list by lustre_lnet_parse_nid_range (LU-17629, which
// resolves host names there) and refuse it whole. import --exec's Netlink sections hand their
// NIDs to the kernel, which reads no host name.
func (r *resolver) cmdPingNIDs(p string, c *Command, s string) []string {
	if c.rawNIDs {
		return r.cmdNIDs(p, s)
	}
	host := func(name string) (string, bool) {
		for i := range r.s.Members {
			if m := &r.s.Members[i]; m.Name == name && len(m.NIs) > 0 {
				addr, _, _ := strings.Cut(m.NIs[0].NID.String(), "@")
				return addr, true
			}
		}
		return "", false
	}
	nids, err := expandNIDListHosts(s, func(ref string) (string, error) {
		m, i, err := r.s.ResolveNI(ref)
		if err != nil {
			return "", fmt.Errorf("%q is neither a NID nor an NI of the scenario", ref)
		}
		return m.NIs[i].NID.String(), nil
	}, host)
	var uh *unresolvedHost
	switch {
	case errors.As(err, &uh):
		const hint = "a host name is a node's name (its first NI's address): name a node of the scenario, or give the address"
		if m := r.s.Member(c.node); m != nil && r.rel[m.Group].Profile.PingByIoctl {
			r.errorAt(p, hint, "%s: cannot parse NID '%s' (host %q does not resolve)", c.Verb, uh.item, uh.name)
		} else {
			r.errorAt(p, hint, "%s: Unable to parse nidlist: invalid NID in nidstr (errno -22: host %q does not resolve)", c.Verb, uh.name)
		}
	case err != nil:
		r.errorAt(p, "a NID (10.0.0.5@o2ib), a host's (client@tcp), a range (10.0.0.[2-6]@o2ib), a list, or node:index", "%v", err)
	}
	return nids
}

// cmdNet reads a --net argument.
func (r *resolver) cmdNet(p string, c *Command, what string) {
	v, ok := c.Args["net"]
	if !ok {
		return
	}
	net, _, err := ParseNet(v)
	if err != nil {
		r.errorAt(p, "", "%s: cannot parse %snet %s: %v", c.Verb, what, v, err)
		return
	}
	c.Net = net
}

// cmdInt reads an integer option; it reports false when the option is absent or bad.
func (r *resolver) cmdInt(p string, c *Command, name string, v *int) bool {
	s, ok := c.Args[name]
	if !ok {
		return false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		// lnetctl ignores an option whose value is not a number, silently: a typo would
		// change what the command does, so lnetsim refuses it.
		r.errorAt(p, "lnetctl would ignore the option silently", "%s: --%s %q is not a number", c.Verb, name, s)
		return false
	}
	*v = n
	return true
}

// missing reports lnetctl's "missing mandatory parameter" for the options not given.
func (r *resolver) missing(p string, c *Command, opts ...string) bool {
	var miss []string
	for _, o := range opts {
		if _, ok := c.Args[o]; !ok {
			miss = append(miss, "--"+o)
		}
	}
	if len(miss) > 0 {
		r.errorAt(p, "", "%s: missing mandatory parameter: %s", c.Verb, strings.Join(miss, ", "))
		return true
	}
	return false
}

// checkRoute checks what route add and del share (lustre_lnet_route_common): --net and
// --gateway are required; the gateway list expands as lustre_lnet_parse_nidstr does.
func checkRoute(r *resolver, p string, c *Command) {
	if r.missing(p, c, "net", "gateway") {
		return
	}
	r.cmdNet(p, c, "remote ")
	c.NIDs = r.cmdNIDs(p, c.Args["gateway"])
}

// checkRouteAdd: lustre_lnet_config_route's hop (1..255, default undefined) and priority
// (default 0) checks.
// -1 means the default for both. The gateway's health sensitivity (checkRouteSensitivity)
// follows.
func checkRouteAdd(r *resolver, p string, c *Command) {
	checkRoute(r, p, c)
	c.Hop, c.Priority = -1, 0
	if r.cmdInt(p, c, "hop", &c.Hop) && c.Hop != -1 && (c.Hop < 1 || c.Hop > 255) {
		r.errorAt(p, "", "route add: invalid hop count %d, must be between 1 and 255", c.Hop)
	}
	if r.cmdInt(p, c, "priority", &c.Priority) && c.Priority == -1 {
		c.Priority = 0
	} else if c.Priority < 0 {
		r.errorAt(p, "", "route add: invalid priority %d, must be greater than 0", c.Priority)
	}
	checkRouteSensitivity(r, p, c)
}

// routeSensitivityLacking: lnetctl route add has --health_sensitivity in 2.15 and 2.16 only
// (LU-11297, f4885dcb32; LU-18444, 98c6b29359, removes it with the gateway's own
// sensitivity): GatewayOwnSensitivity. Elsewhere route add is parsed without it
// (cmdSpec.releaseOpts): lnetctl's "unrecognized option", and --h is --hop-count there.
var routeSensitivityLacking = releaseLacks{func(pr lnet.Profile) bool { return !pr.GatewayOwnSensitivity },
	"remove it (lnetctl route add has --health_sensitivity in 2.15 and 2.16 only: LU-11297, removed by LU-18444)"}

// checkRouteSensitivity reads route add's --health_sensitivity (jt_add_route's "s" case, a
// long option only; a node of another release has no such option: cmdSpec.releaseOpts); -1
// is lnetctl's "not given" (lnet_add_route's default, 1). A value below 1 is refused as the node's release refuses it: on 2.15 by
// liblnetconfig before the kernel (lustre_lnet_config_route: "invalid health sensitivity N,
// must be 1 or greater", LUSTRE_CFG_RC_OUT_OF_RANGE_PARAM), here at load; on 2.16 lnetctl
// hands it to the kernel (yaml_lnet_route), whose Netlink route handler fails it with
// EINVAL at run time (Command.Sensitivity keeps it). A value above an int's range, which
// lnetctl would truncate, is refused as not modelled.
func checkRouteSensitivity(r *resolver, p string, c *Command) {
	var v int
	if !r.cmdInt(p, c, "health_sensitivity", &v) {
		return
	}
	m := r.s.Member(c.node)
	switch {
	case v > math.MaxInt32:
		r.errorAt(p, "give at most 2147483647", "route add: --health_sensitivity %d is not modelled: lnetctl truncates it to an int", v)
	case v == -1:
	case v < 1 && (m == nil || r.rel[m.Group].Profile.ShowByIoctl):
		r.errorAt(p, "give 1 or more (-1: the default, 1)", "route add: invalid health sensitivity %d, must be 1 or greater", v)
	default:
		c.Sensitivity = &v
	}
}

// checkPing: lnetctl ping NID[,NID...] [--source NID] [--timeout S]; the timeout is whole
// seconds (1 when absent, as lnetctl's 1000 ms), at most 180 in the kernel. --source is
// lnetctl's from 2.15 (LU-14939, 2.14.56).
func checkPing(r *resolver, p string, c *Command) {
	c.NIDs = r.cmdPingNIDs(p, c, c.Operands[0])
	if s, ok := c.Args["source"]; ok && optionOfRelease(r, p, c, "source", pingSourceLacking) {
		if src := r.cmdNIDs(p, s); len(src) == 1 {
			c.Prim = src[0]
		} else if len(src) > 1 {
			r.errorAt(p, "", "ping: --source takes one NID")
		}
	}
	if r.cmdInt(p, c, "timeout", &c.Value) && c.Value < 1 {
		r.errorAt(p, "lnetctl ping --timeout is in seconds", "ping: timeout %d: must be at least 1", c.Value)
	}
}

// pingSourceLacking: ping --source is lnetctl's from 2.14.56 (LU-14939).
var pingSourceLacking = releaseLacks{func(pr lnet.Profile) bool { return pr.NoPingSource },
	"remove it: the node picks the source NI (lnetctl ping has --source from 2.15, LU-14939)"}

// udspRelease refuses a udsp command on a node whose lnetctl has none (up to 2.12: LU-9121
// adds it in 2.14.51), as lnetctl refuses an unknown command; it reports whether the command
// goes on.
func udspRelease(r *resolver, p string, c *Command) bool {
	if m := r.s.Member(c.node); m != nil && r.rel[m.Group].Profile.NoUDSP {
		r.errorAt(p, "remove it (lnetctl has udsp from 2.14, LU-9121: 2.15 and later)",
			"%s: no such command in lnetctl (%s runs %s)", c.Verb, c.node, r.rel[m.Group].Name)
		return false
	}
	return true
}

// checkStatsReset: lnetctl stats reset (jt_reset_stats, LU-13299, from 2.14) takes no
// argument; lnetctl before it has no such command, refused as it refuses an unknown one.
func checkStatsReset(r *resolver, p string, c *Command) {
	if m := r.s.Member(c.node); m != nil && r.rel[m.Group].Profile.NoStatsReset {
		r.errorAt(p, "remove it (lnetctl has it from 2.14, LU-13299: 2.15 and later)",
			"stats reset: no such command in lnetctl (%s runs %s)", c.node, r.rel[m.Group].Name)
	}
}

// checkDebugPeer: lnetctl debug peer --nid NID (jt_show_peer_debug_info, 2.16+): the NID is
// mandatory and one NID (lustre_lnet_show_peer_debug_info's libcfs_str2nid).
func checkDebugPeer(r *resolver, p string, c *Command) {
	if m := r.s.Member(c.node); m != nil && r.rel[m.Group].Profile.NoDebugPeer {
		r.errorAt(p, "remove it (lnetctl has it from 2.16, LU-15234)",
			"debug peer: no such command in lnetctl (%s runs %s)", c.node, r.rel[m.Group].Name)
		return
	}
	v, ok := c.Args["nid"]
	if !ok {
		r.errorAt(p, "add --nid NID", "debug peer: --nid must be specified")
		return
	}
	if c.NIDs = r.cmdNIDs(p, v); len(c.NIDs) > 1 {
		r.errorAt(p, "give one NID", "debug peer: badly formatted primary NID: %s", v)
	}
}

// checkDiscover: lnetctl discover [--force] NID[,NID...].
func checkDiscover(r *resolver, p string, c *Command) {
	c.NIDs = r.cmdPingNIDs(p, c, c.Operands[0])
	_, c.Force = c.Args["force"]
}

// checkUDSPAdd: lnetctl udsp add: descriptors as the kernel parses them (or lnetsim's node
// references), priority >= 0 (-1: none given), idx >= -1 (-1: append), and the rule
// combinations lnet_udsp_add_policy accepts. The resolved rule travels in Args.
func checkUDSPAdd(r *resolver, p string, c *Command) {
	c.Value, c.Priority = -1, -1
	if !udspRelease(r, p, c) {
		return
	}
	if r.cmdInt(p, c, "priority", &c.Priority) && c.Priority < 0 {
		r.errorAt(p, "", "udsp add: invalid priority %d, must be 0 or more", c.Priority)
	}
	if r.cmdInt(p, c, "idx", &c.Value) && c.Value < -1 {
		r.errorAt(p, "", "udsp add: invalid index %d", c.Value)
	}
	m := r.s.Member(c.node)
	for _, f := range []string{"src", "dst", "rte"} {
		if v, ok := c.Args[f]; ok && m != nil {
			if d, ok := r.udspDescr(p, v, m, f == "rte"); ok {
				c.Args[f] = d
			}
		}
	}
	spec := lnet.UDSPSpec{Src: c.Args["src"], Dst: c.Args["dst"], Rte: c.Args["rte"], Priority: int64(c.Priority)}
	if err := spec.Validate(); err != nil {
		r.errorAt(p, "", "udsp add: %v", strings.TrimPrefix(err.Error(), "udsp: "))
	}
}

// checkUDSPDel: lnetctl udsp del --idx N (-1: every policy), or --all, as jt_del_udsp reads
// them from 2.16 (LU-16574): "Cannot combine --all with --idx", "Must specify --idx or
// --all", "Invalid index" below -1 or not a number. Up to 2.15 (LegacyUDSPDel) there is no
// --all, and without --idx lnetctl deletes policy 0; an index that is not a number, which it
// reads as 0, is refused (see cmdInt), as is one below -1 (not modelled: lnetctl passes it on).
func checkUDSPDel(r *resolver, p string, c *Command) {
	if !udspRelease(r, p, c) {
		return
	}
	m := r.s.Member(c.node)
	legacy := m != nil && r.rel[m.Group].Profile.LegacyUDSPDel
	_, all := c.Args["all"]
	v, hasIdx := c.Args["idx"]
	switch {
	case legacy && all:
		optionOfRelease(r, p, c, "all", releaseLacks{func(pr lnet.Profile) bool { return pr.LegacyUDSPDel },
			"write --idx -1 (lnetctl has udsp del --all from 2.16, LU-16574)"})
	case legacy && !hasIdx:
		c.Value = 0 // jt_del_udsp's default index
	case legacy:
		if r.cmdInt(p, c, "idx", &c.Value) && c.Value < -1 {
			r.errorAt(p, "an index, or -1 for every policy", "udsp del: index %d is not modelled (lnetctl hands it to the kernel)", c.Value)
		}
	case all && hasIdx:
		r.errorAt(p, "give --idx or --all", "udsp del: Cannot combine --all with --idx")
	case all:
		c.Value = -1
	case !hasIdx:
		r.errorAt(p, "add --idx N or --all", "udsp del: Must specify --idx or --all")
	default:
		if n, err := strconv.Atoi(v); err != nil || n < -1 {
			r.errorAt(p, "an index, or -1 for every policy", "udsp del: Invalid index \"%s\"", v)
		} else {
			c.Value = n
		}
	}
}

// NetAddTunables are the net add options that set the new net's LNet tunables (-1 or
// absent: the o2ib module's value), in Command.Args.
var NetAddTunables = []string{"peer-timeout", "peer-credits", "peer-buffer-credits", "credits"}

// checkNetAdd: lnetctl net add takes --net with --if (an interface of the node), or from
// 2.16 --nid alone (a NID on one of its interfaces' addresses: the net is the NID's, and
// --net with it is refused as lnetctl refuses it); the new NI's NID goes in NIDs. The
// tunables are integers (-1: the module's value); --tos and --conns-per-peer are the
// LND's (netAddLND); --cpt is a CPT list, which the kernel checks against the node's CPTs
// (the NI is then on every CPT: the model has no NI on a subset of them); --ip2net hands
// the kernel ip2nets rules (checkNetAddIP2Net); the options of other LNDs are not modelled.
func checkNetAdd(r *resolver, p string, c *Command) {
	for _, o := range [][2]string{
		{"auth-key", "it is kfilnd's, which the model does not have"},
		{"traffic-class", "it is kfilnd's, which the model does not have"},
	} {
		if _, ok := c.Args[o[0]]; ok {
			r.errorAt(p, o[1], "net add: --%s is not modelled at run time", o[0])
		}
	}
	optionOfRelease(r, p, c, "skip-mr-route-setup", releaseLacks{func(pr lnet.Profile) bool { return pr.NoMRRouteSetup },
		"remove it (lnetctl net add has --skip-mr-route-setup from 2.15, LU-14662)"})
	for _, o := range NetAddTunables {
		var v int
		if r.cmdInt(p, c, o, &v) && v < -1 {
			r.errorAt(p, "-1 is the module's value", "net add: --%s %d must not be negative", o, v)
		}
	}
	if s, ok := c.Args["cpt"]; ok {
		if _, err := ParseCPTList(s); err != nil {
			// lnetctl drops a list cfs_expr_list_parse refuses, silently: the NI would
			// then be on every CPT, which a typo should not decide.
			r.errorAt(p, "a CPT list such as [0,1] (lnetctl would ignore it silently)", "net add: --cpt: %v", err)
		}
	}
	checkNetAddLND(r, p, c)
	if _, ok := c.Args["ip2net"]; ok {
		checkNetAddIP2Net(r, p, c)
		return
	}
	checkNetNI(r, p, c, true)
}

// checkNetAddLND reads net add's LND options as jt_add_ni does. --tos (2.16+, LU-12452) is
// -1..255 (lnetctl refuses another value or a word: "Invalid ToS argument"); -1 is the
// module's tos. --conns-per-peer (2.14+, LU-12815): a value below 1 is the module's; in
// master lnetctl refuses a word or a value above 127 (LU-20398); before, it ignores a word
// (refused here: see cmdInt) and hands any number on, which the Netlink NI add of 2.16 and
// 2.17 fails with ERANGE above 127 (at run time) and the ioctl one of 2.15 takes unchecked
// (refused here: the model's LNDs take at most 127).
func checkNetAddLND(r *resolver, p string, c *Command) {
	m := r.s.Member(c.node)
	var prof lnet.Profile
	if m != nil {
		prof = r.rel[m.Group].Profile
	}
	if optionOfRelease(r, p, c, "tos", releaseLacks{func(pr lnet.Profile) bool { return pr.NIAddByIoctl },
		"remove it (lnetctl has --tos from 2.16, LU-12452)"}) {
		if v, err := strconv.Atoi(c.Args["tos"]); err != nil || v < -1 || v > 0xff {
			r.errorAt(p, "a ToS from -1 (the module's) to 255", "net add: Invalid ToS argument: --tos %s", c.Args["tos"])
		}
	}
	if !optionOfRelease(r, p, c, "conns-per-peer", releaseLacks{func(pr lnet.Profile) bool { return pr.NoNetAddConnsPerPeer },
		"set conns_per_peer in the scenario's o2ib or socklnd section (lnetctl net add has --conns-per-peer from 2.14, LU-12815)"}) {
		return
	}
	s := c.Args["conns-per-peer"]
	if !prof.LaxConnsPerPeerOption {
		if v, err := strconv.Atoi(s); err != nil || v > 127 {
			r.errorAt(p, "0 to 127 (0 or less: the module's)", "net add: invalid conns-per-peer value (valid range 0-127): %s", s)
		}
		return
	}
	var v int
	if r.cmdInt(p, c, "conns-per-peer", &v) && v > 127 && prof.NIAddByIoctl {
		r.errorAt(p, "0 to 127 (the model's LNDs open at most 127 connections per peer)",
			"net add: conns-per-peer %d is not modelled (%s hands it to the kernel unchecked)", v, c.node)
	}
}

// checkNetDel: lnetctl net del --net N [--if IF], or from 2.16 --nid NID alone: without an
// interface or NID, every NI of the net goes.
func checkNetDel(r *resolver, p string, c *Command) {
	checkNetNI(r, p, c, false)
}

// netNIDOption reads net add/del's --nid (jt_add_ni, jt_del_ni): refused on a node whose
// lnetctl lacks it (before 2.16) or beside --net (lnetctl: "--net is invalid with --nid
// option"); otherwise the NID's net is the command's net. It reports whether the command
// goes on.
func netNIDOption(r *resolver, p string, c *Command) bool {
	if _, ok := c.Args["nid"]; !ok {
		return !r.missing(p, c, "net")
	}
	if !optionOfRelease(r, p, c, "nid", releaseLacks{func(pr lnet.Profile) bool { return pr.NoNetNIDOption },
		"name the NI by --net and --if (lnetctl has --nid from 2.16, LU-13642)"}) {
		return false
	}
	if _, ok := c.Args["net"]; ok {
		r.errorAt(p, "remove --net: the NID names the net", "%s: --net is invalid with --nid option", c.Verb)
		return false
	}
	x, err := ParseNID(c.Args["nid"])
	if err != nil {
		r.errorAt(p, "", "%s: %v", c.Verb, err)
		return false
	}
	c.Net = x.Net
	return true
}

// checkNetNI resolves --net and the NI that --if or --nid names on the command's node (one of
// them is required when need).
func checkNetNI(r *resolver, p string, c *Command, need bool) {
	if !netNIDOption(r, p, c) {
		return
	}
	r.cmdNet(p, c, "")
	ifname, byIf := c.Args["if"]
	nid, byNID := c.Args["nid"]
	m := r.s.Member(c.node)
	switch {
	case c.Net == "" || m == nil:
	case byIf && byNID:
		r.errorAt(p, "", "%s: give --if or --nid, not both", c.Verb)
	case byIf:
		for _, ni := range m.NIs {
			if ni.Interface == ifname {
				c.NIDs = []string{NID{Addr: ni.NID.Addr, Net: c.Net}.String()}
				return
			}
		}
		r.errorAt(p, "the node's interfaces are named by its NIs (ib0, ib1, ...)", "%s: %s has no interface %s", c.Verb, m.Name, ifname)
	case byNID:
		x, _ := ParseNID(nid) // read by netNIDOption
		c.NIDs = []string{x.String()}
	case need:
		r.errorAt(p, "", "%s: missing mandatory parameter: --if or --nid", c.Verb)
	}
}
