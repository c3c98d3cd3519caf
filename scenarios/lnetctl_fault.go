package scenarios

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// lnetctl fault (lnetctl.c jt_fault, from 2.17; LU-18927): LNet drop and delay rules at run
// time, parsed as jt_fault_add, jt_fault_del_common and jt_fault_reset_common parse them, and
// sent by yaml_lnet_fault_rule to the kernel's lnet_fault_cmd. `fault drop show` and `fault
// delay show` (jt_fault_show_common) are lnetctl checks (LnetctlShowCommands). `fault` with a
// subcommand lnetctl does not have is its own command (checkFaultBare).
func init() {
	for _, kind := range []string{"drop", "delay"} {
		registerCommand(&cmdSpec{verb: "fault " + kind + " add", opts: faultAddOpts(kind == "drop"), check: checkFaultAdd})
		registerCommand(&cmdSpec{verb: "fault " + kind + " del", opts: []cmdOpt{flagOpt('a', "all"), opt('d', "dest"), opt('s', "source")}, ordered: true, check: checkFaultDel})
		registerCommand(&cmdSpec{verb: "fault " + kind + " reset", maxOperands: maxFaultWords, check: checkFaultReset})
	}
	registerCommand(&cmdSpec{verb: "fault", maxOperands: maxFaultWords, check: checkFaultBare})
}

// maxFaultWords bounds the words lnetctl ignores after `fault ... reset` and bare `fault`.
const maxFaultWords = 64

// faultAddOpts are jt_fault_add's options: its long options are the same for both kinds, its
// short ones differ (drop: d:e:i:m:no:p:r:s:t:x, delay: d:l:m:o:p:r:s:). A delay rule's
// --health_error, --random and --drop_all are read and ignored. An option the kind's getopt
// does not know (delay's -e, -i, -n, -t, -x; drop's -l), which lnetctl reports ("Unrecognized
// option") and skips, and a stray word, which it ignores, are refused: the rule would not be
// the one written (`fault delay add -i 5` has no interval). -e, -m and -p may be repeated:
// lnetctl ORs them into the rule's masks.
func faultAddOpts(drop bool) []cmdOpt {
	short := func(c byte) byte {
		if drop || strings.IndexByte("dlmoprs", c) >= 0 {
			return c
		}
		return 0
	}
	multi := func(o cmdOpt) cmdOpt { o.multi = true; return o }
	latency := byte('l')
	if drop {
		latency = 0
	}
	return []cmdOpt{opt('d', "dest"), multi(opt(short('e'), "health_error")), opt(short('i'), "interval"),
		opt(latency, "latency"), multi(opt('m', "message")),
		flagOpt(short('n'), "random"), opt('o', "local_nid"), multi(opt('p', "portal")), opt('r', "rate"),
		opt('s', "source"), opt(short('t'), "rule_type"), flagOpt(short('x'), "drop_all")}
}

// FaultKind is the rule kind of a fault verb: "drop" or "delay".
func FaultKind(c *Command) string { return strings.Fields(c.Verb)[1] }

// faultRelease refuses lnetctl fault on a node whose release's lnetctl has no such command:
// none up to 2.15 (LU-9680 adds it in 2.16), and 2.16's `fault add|del|reset|show --rule_type`,
// which LU-18927 found never to have worked and replaced in 2.17, is not modelled.
func (r *resolver) faultRelease(p string, c *Command) bool {
	m := r.s.Member(c.node)
	if m == nil {
		return true
	}
	rel := r.rel[m.Group]
	switch {
	case rel.Profile.NoLnetctlFault:
		r.errorAt(p, "use action: drop_rule_add or delay_rule_add (lctl net_drop_add, net_delay_add); lnetctl has fault from 2.16 (LU-9680)",
			"%s: no such command in lnetctl (%s runs %s)", c.Verb, c.node, rel.Name)
		return false
	case rel.Profile.FaultRuleTypeForm:
		r.errorAt(p, "use action: drop_rule_add or delay_rule_add; lnetctl has fault drop|delay from 2.17 (LU-18927)",
			"%s: %s runs %s, whose lnetctl has fault add|del|reset|show --rule_type, which lnetsim does not model", c.Verb, c.node, rel.Name)
		return false
	}
	return true
}

// cStrtoul reads s as strtoul(s, NULL, 0) does and keeps the low 32 bits, as lnetctl stores
// it in a __u32: leading blanks, a sign (a negative value wraps), 0x for hex, 0 for octal,
// digits up to the first that is not one (none: 0).
func cStrtoul(s string) uint32 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	base := uint64(10)
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && strings.IndexByte("0123456789abcdefABCDEF", s[2]) >= 0:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte("0123456789abcdef", s[i]|0x20)
		if d < 0 || uint64(d) >= base {
			break
		}
		if v > (1<<64-1-uint64(d))/base {
			v = 1<<64 - 1 // ULONG_MAX on overflow
			break
		}
		v = v*base + uint64(d)
	}
	if neg {
		v = -v
	}
	return uint32(v)
}

// faultNID checks a rule's source, destination or local NID as fault_attr_parse_nid reads it
// ("*" any, "*@NET" any on a net, or a NID), or a node reference; it returns false, having
// said why, when lnetctl would print "Invalid NID".
func (r *resolver) faultNID(p, s string) bool {
	if s == "*" || strings.HasPrefix(s, "*@") && len(s) > 2 {
		if _, err := lnet.ParseNIDPattern(s); err != nil {
			r.errorAt(p, "e.g. *, *@o2ib or 10.0.0.1@o2ib", "Invalid NID: %s", s)
			return false
		}
		return true
	}
	if _, err := lnet.ParseNID(s); err == nil {
		return true
	}
	_, _, ok := r.resolveNI(p, s)
	return ok
}

// checkFaultAdd is jt_fault_add: the masks (-e, -m, -p) as it parses them, then exactly one of
// rate and interval, random only with an interval (drop), a latency (delay), and both source
// and destination; the rule it sends is Command.Rule. What the kernel refuses (a portal filter
// with neither PUT nor GET among the message types) fails at run time.
func checkFaultAdd(r *resolver, p string, c *Command) {
	if !r.faultRelease(p, c) {
		return
	}
	kind := FaultKind(c)
	drop := kind == "drop"
	refuse := func(hint, format string, args ...any) {
		r.errorAt(p, hint, c.Verb+": "+format, args...)
	}
	fr := &FaultRule{Src: c.Args["source"], Dst: c.Args["dest"], LocalNID: c.Args["local_nid"]}
	if _, ok := c.Args["latency"]; ok && drop {
		refuse("--latency is a delay rule's option", "lnetctl stores a drop rule's --latency in the union's la_latency, which is its health error mask; lnetsim does not model that")
		return
	}
	values := func(name string) []string {
		if v, ok := c.Args[name]; ok {
			return strings.Split(v, "\n")
		}
		return nil
	}
	if drop {
		for _, h := range values("health_error") {
			if h = strings.ToLower(h); !healthErrors[h] {
				refuse("e.g. local_timeout, remote_dropped, network_timeout or random", "unknown health error %s (lnetctl fails without a word)", h)
				return
			}
			fr.HealthError = append(fr.HealthError, h)
		}
		_, fr.Random = c.Args["random"]
		_, fr.DropAll = c.Args["drop_all"]
	}
	for _, m := range values("message") {
		if m = strings.ToLower(m); !msgTypes[m] {
			refuse("use PUT, ACK, GET or REPLY", "unknown message type %s", m)
			return
		}
		fr.Message = append(fr.Message, m)
	}
	for _, s := range values("portal") {
		pt := cStrtoulLong(s)
		if pt >= 64 {
			refuse("LNet portals are 0 to 63", "invalid portal: %d", pt)
			return
		}
		fr.Portal = append(fr.Portal, int(pt))
	}
	rate, interval := cStrtoul(c.Args["rate"]), cStrtoul(c.Args["interval"])
	fr.Rate, fr.Interval = int(rate), sim.Time(interval)*sim.Second
	if (rate == 0) == (interval == 0) {
		refuse("give -r RATE or -i SECONDS", "please provide either %s rate or interval but not both at the same time.", kind)
		return
	}
	if drop && fr.Random && interval == 0 {
		refuse("give -i SECONDS with --random", "please provide an interval to randomize")
		return
	}
	if !drop {
		latency := cStrtoul(c.Args["latency"])
		if latency == 0 {
			refuse("give -l SECONDS", "latency cannot be zero")
			return
		}
		fr.Latency = sim.Time(latency) * sim.Second
	}
	if fr.Src == "" || fr.Dst == "" {
		refuse("give -s SRC -d DST (a NID, *@NET or *)", "Please provide both source and destination of %s rule", kind)
		return
	}
	ok := r.faultNID(p, fr.Src) && r.faultNID(p, fr.Dst)
	if ok && fr.LocalNID != "" {
		ok = r.faultNID(p, fr.LocalNID)
	}
	if ok {
		c.Rule = fr
	}
}

// cStrtoulLong is strtoul as fault_attr_ptl_parse keeps it (an unsigned long: a negative
// portal is huge).
func cStrtoulLong(s string) uint64 {
	v := uint64(cStrtoul(s))
	if t := strings.TrimLeft(s, " \t\n\v\f\r"); strings.HasPrefix(t, "-") && v != 0 {
		v |= 0xffffffff00000000
	}
	return v
}

// checkFaultDel is jt_fault_del_common, which reads the options in order: its -a case falls
// into -d's and sets the destination to getopt's argument of -a, none, so a -d before -a is
// forgotten. Then --all, or both --source and --dest (not with --all); Command.Rule holds them
// ("" for any). An option it does not know, at which lnetctl returns success before deleting
// anything, is refused by the parser (a typo would leave the rules in place).
func checkFaultDel(r *resolver, p string, c *Command) {
	if !r.faultRelease(p, c) {
		return
	}
	all := false
	var src, dst string
	var hasSrc, hasDst bool
	for _, o := range c.order {
		switch o {
		case "all":
			all, dst, hasDst = true, "", false
		case "dest":
			dst, hasDst = c.Args["dest"], true
		case "source":
			src, hasSrc = c.Args["source"], true
		}
	}
	switch {
	case !all && !(hasSrc && hasDst):
		r.errorAt(p, "give -s SRC -d DST, or -a", "%s: Failed, please provide source and destination of rule", c.Verb)
		return
	case all && (hasSrc || hasDst):
		r.errorAt(p, "give -a alone", "%s: '-s' or '-d' cannot be combined with '-a'", c.Verb)
		return
	case !all && !(r.faultNID(p, src) && r.faultNID(p, dst)):
		return
	}
	c.Rule = &FaultRule{Src: src, Dst: dst}
}

// checkFaultReset is jt_fault_reset_common, whose check_cmd wants two arguments and counts
// `reset` as one: without a word after it lnetctl prints its usage and fails; the word is
// then ignored.
func checkFaultReset(r *resolver, p string, c *Command) {
	if !r.faultRelease(p, c) {
		return
	}
	if len(c.Operands) == 0 {
		r.errorAt(p, "write a word after reset, e.g. `"+c.Verb+" all` (lnetctl ignores it)",
			"%s: lnetctl prints its usage and fails: its check_cmd wants 2 arguments and counts %q as the first", c.Verb, "reset")
	}
}

// faultOverride are cfs_parser's own commands, which any command table answers.
var faultOverride = set("quit", "exit", "help", "--help", "version", "--version", "list-commands", "--list-commands", "--ignore_errors", "ignore_errors")

// checkFaultBare is `fault` followed by no subcommand lnetctl has (jt_fault, jt_fault_drop,
// jt_fault_delay through cfs_parser): it fails at run time (FaultFailure), as sanity-lnet test
// 410 expects of `fault reset` followed by an empty word. cfs_parser's own commands (help,
// version, ...) are not modelled.
func checkFaultBare(r *resolver, p string, c *Command) {
	if !r.faultRelease(p, c) {
		return
	}
	ops := c.Operands
	for _, w := range ops {
		if faultOverride[w] {
			r.errorAt(p, "remove it", "fault: %s is cfs_parser's own command, which lnetsim does not model", w)
			return
		}
	}
	if len(ops) > 1 && (ops[0] == "drop" || ops[0] == "delay") && ops[1] == "show" {
		r.errorAt(p, "read it with an lnetctl check: {check: lnetctl, node: NODE, command: fault "+ops[0]+" show, present: ...}",
			"fault %s show prints the rules: it is an lnetctl check, not a timeline command", ops[0])
	}
}

// FaultFailure is how lnetctl fails `fault` followed by no subcommand it has: with only
// `fault`, or `fault drop` or `fault delay` alone, check_cmd prints the usage; otherwise
// cfs_parser names the word that is no command. Either returns -1 (LUSTRE_CFG_RC_BAD_PARAM
// from check_cmd, cfs_parser_execarg's own -1), lnetctl's exit status 255.
func FaultFailure(c *Command) (errno int, text string) {
	ops := c.Operands
	switch {
	case len(ops) == 0:
		return lnet.EPERM, "usage: fault {drop | delay | help}"
	case (ops[0] == "drop" || ops[0] == "delay") && len(ops) == 1:
		return lnet.EPERM, "usage: fault " + ops[0] + " {add | del | show | reset}"
	case ops[0] == "drop" || ops[0] == "delay":
		return lnet.EPERM, "'" + ops[1] + "' is not a valid command. See 'lnetctl --list-commands'."
	}
	return lnet.EPERM, "'" + ops[0] + "' is not a valid command. See 'lnetctl --list-commands'."
}
