package scenarios

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
	"gopkg.in/yaml.v3"
)

// lnetctl import (lnetctl.c jt_import) reads a YAML document and, with liblnetconfig's
// lustre_yaml_config (default, --add) or lustre_yaml_del (--del), hands each entry of each
// section, in the document's order, to that section's handler; every entry is tried, and the
// import fails with the last failure. lnetsim runs the route, peer and routing sections at run
// time, each entry through the check and the run of the single verb its handler calls
// (handle_yaml_config_route: route add, handle_yaml_peer_common: peer add/del,
// handle_yaml_config_routing: set routing; --del: route del, peer del, set routing 0), the
// global section (importGlobal) and, from 2.17, the net section (importNet).
func init() {
	spec := &cmdSpec{verb: "import", opts: []cmdOpt{flagOpt('a', "add"), flagOpt('d', "del"), flagOpt('s', "show"), flagOpt('e', "exec")}}
	register(&Action{Name: "import", Fields: []string{"node", "lnetctl", "yaml", "name"}, Optional: []string{"name"},
		Cmd: spec, check: checkImport})
}

// checkImport expands an import's document into the commands it runs (Command.Sub), each
// checked as the single verb is: what lnetctl refuses before calling the kernel is refused at
// load, at the entry's line and column.
func checkImport(r *resolver, _ *faultCtx, p string, i int, f *Fault) {
	if f.Name == "" {
		f.Name = "cmd" + strconv.Itoa(i)
	}
	c := f.Cmd
	if c == nil {
		return
	}
	c.node = f.Node
	_, del := c.Args["del"]
	_, add := c.Args["add"]
	_, exec := c.Args["exec"]
	for _, o := range []string{"show"} {
		if _, ok := c.Args[o]; ok {
			r.errorAt(p+".lnetctl", "lnetsim runs import (--add), import --del and import --exec", "import: --%s is not modelled", o)
			return
		}
	}
	if add && del || exec && (add || del) {
		r.errorAt(p+".lnetctl", "give one of --add, --del, --exec (lnetctl takes the last one given)", "import: more than one of --add, --del, --exec")
		return
	}
	yp := p + ".yaml"
	if f.Import == nil {
		return // faultFields said so
	}
	m := r.s.Member(f.Node)
	ioctl := m != nil && r.rel[m.Group].Profile.ImportByIoctl
	netRaw := m != nil && r.rel[m.Group].Profile.ImportNetRaw // 2.16: no net or ip2nets under --exec
	for ki, key := range r.d.keys[yp] {
		sp := join(yp, key)
		switch {
		case exec && (key == "ping" || key == "discover"):
			e := f.Import.Ping
			if key == "discover" {
				e = f.Import.Discover
			}
			c.Sub = append(c.Sub, r.importExec(sp, f.Node, key, e)...)
			continue
		case key == "ping" || key == "discover":
			continue // lustre_yaml_config's and lustre_yaml_del's no-op
		case exec && ioctl:
			continue // lustre_yaml_exec's no-op
		case exec && !netRaw && (key == "net" || key == "ip2nets"):
			// from 2.17 jt_import hands them to handle_net_config_sequence whatever the
			// command: under --exec they add
		case exec:
			r.errorAt(sp, "import --exec runs ping and discover sections", "import: invalid key '%s'", key)
			continue
		}
		batch := 0 // from 2.16 the section is one Netlink message
		if !ioctl {
			batch = ki + 1
		}
		switch key {
		case "peer":
			for j, pr := range f.Import.Peer {
				e := r.importPeer(index(sp, j), f.Node, pr, del, ioctl)
				e.Batch = batch
				c.Sub = append(c.Sub, e)
			}
		case "route":
			for j, rt := range f.Import.Route {
				e := r.importRoute(index(sp, j), f.Node, rt, del)
				e.Batch = batch
				c.Sub = append(c.Sub, e)
			}
		case "global":
			c.Sub = append(c.Sub, r.importGlobal(sp, f.Node, f.Import.Global, del)...)
		case "net":
			c.Sub = append(c.Sub, r.importNet(sp, f.Node, f.Import.Net, del, batch)...)
		case "ip2nets":
			c.Sub = append(c.Sub, r.importIP2Nets(sp, f.Node, f.Import.IP2Nets, del, ki+1)...)
		case "numa":
			c.Sub = append(c.Sub, r.importNuma(sp, f.Node, f.Import.Numa, del)...)
		case "buffers":
			c.Sub = append(c.Sub, r.importBuffers(sp, f.Node, f.Import.Buffers, del)...)
		case "routing":
			v := 0
			if f.Import.Routing != nil && f.Import.Routing.Enable && !del {
				v = 1
			}
			c.Sub = append(c.Sub, &Command{Verb: "set routing", Operands: []string{strconv.Itoa(v)}, Value: v, node: f.Node})
		default:
			r.errorAt(sp, "configure it at load (nodes.NAME.lnetctl) or with its own lnetctl command", "import: section %s is not modelled at run time (net, ip2nets, route, peer, routing, buffers, numa and global are; ping and discover with --exec)", key)
		}
	}
}

// subCommand builds the single-verb command an import entry runs and checks it as that verb.
func (r *resolver) subCommand(p, node, verb string, args map[string]string) *Command {
	c := &Command{Verb: verb, Args: args, node: node}
	actions[verb].Cmd.check(r, p, c)
	return c
}

// importPeer is a peer entry: the primary NID is required; the peer NIs other than it are the
// NIDs added or deleted, and --del of a list holding the primary NID deletes the whole peer.
// Multi-Rail is read as the node's release reads it:
//   - up to 2.15 (Profile.ImportByIoctl) handle_yaml_peer_common (2.12:
//     handle_yaml_config_peer) reads it on add only, by its string value, which cYAML gives
//     none for true, false, null and numbers (assign_type_value; only master's cYAML also
//     takes True and False as booleans, LU-9680, and its import goes by Netlink): those leave
//     the peer Multi-Rail, True is Multi-Rail, False is --non_mr, and any other word fails the
//     entry before the kernel is called (mrRefusal); the other entries still run;
//   - from 2.16 the section is one Netlink message to lnet_peer_ni_cmd, which resets its
//     Multi-Rail flag for each key of the entry, so every peer is added Multi-Rail; a value
//     that yaml_fill_scalar_data does not send as a number fails the entry with -EINVAL
//     "invalid MR flag param" (netlinkMRWord) after what the entry's earlier keys did (the
//     primary NID is added at `primary nid`, its NIs at `peer ni`). As any failing entry, it
//     ends the message and, on add, deletes the primary NID again (UndoPrim).
func (r *resolver) importPeer(p, node string, pr LnetctlPeer, del, ioctl bool) *Command {
	verb := "peer add"
	if del {
		verb = "peer del"
	}
	if pr.PrimaryNID == "" {
		r.errorAt(p, "write the peer's primary nid:", "import: the 'primary nid' must be specified")
		return &Command{Verb: verb, node: node}
	}
	var nids, before []string // before: the NIDs listed before the primary's
	seenPrim := false
	for _, ni := range pr.PeerNIs {
		if ni.NID == "" {
			continue
		}
		if ni.NID == pr.PrimaryNID {
			seenPrim = true
			if del {
				nids = nil
				break
			}
			continue
		}
		nids = append(nids, ni.NID)
		if !seenPrim {
			before = append(before, ni.NID)
		}
	}
	args := map[string]string{"prim_nid": pr.PrimaryNID}
	word := string(pr.MultiRail)
	switch {
	case ioctl && del: // handle_yaml_del_peer does not read Multi-Rail
	case ioctl && !cyamlString(word):
	case ioctl && word == "False":
		args["non_mr"] = ""
	case ioctl && word != "True":
		c := r.subCommand(p, node, verb, args)
		c.Fail = r.mrRefusal(node, word)
		return c
	case !ioctl && word != "" && !netlinkMRWord(word):
		return r.netlinkMRFail(p, node, pr.PrimaryNID, nids, before, del)
	}
	if len(nids) > 0 {
		args["nid"] = strings.Join(nids, ",")
	}
	c := r.subCommand(p, node, verb, args)
	c.UndoPrim = !ioctl && !del
	return c
}

// cfgBadParam is the errno lnetctl prints for liblnetconfig's own refusal
// LUSTRE_CFG_RC_BAD_PARAM (-1), which reads as -EPERM.
const cfgBadParam = lnet.EPERM

// mrRefusal is handle_yaml_peer_common's refusal of a Multi-Rail word other than True and
// False, in the node's release's words (2.12: ImportBadMRTerse).
func (r *resolver) mrRefusal(node, word string) *EntryFail {
	if m := r.s.Member(node); m != nil && r.rel[m.Group].Profile.ImportBadMRTerse {
		return &EntryFail{Errno: cfgBadParam, Text: "Bad MR value"}
	}
	return &EntryFail{Errno: cfgBadParam, Text: `Multi-Rail must be set to "True" or "False" found "` + word + `"`}
}

// netlinkMRFail is a 2.16+ peer entry whose Multi-Rail the kernel refuses: what the keys
// written before it did runs first (the primary NID added, with the NIs of a `peer ni` list
// written before it; on --del that list's NIDs before the primary's deleted), then the entry
// fails; the primary NID is deleted again only when `primary nid` came before.
func (r *resolver) netlinkMRFail(p, node, prim string, nids, before []string, del bool) *Command {
	order := r.d.keys[p]
	pos := func(k string) int {
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order)
	}
	mr, primFirst, nisFirst := pos("Multi-Rail"), pos("primary nid"), pos("peer ni")
	fail := &EntryFail{Errno: lnet.EINVAL, Text: "invalid MR flag param"}
	args := map[string]string{"prim_nid": prim}
	verb := "peer add"
	switch {
	case del:
		verb = "peer del"
		fail.Run = primFirst < mr && nisFirst < mr && len(before) > 0
		if fail.Run {
			args["nid"] = strings.Join(before, ",")
		}
	case primFirst < mr:
		fail.Run = true
		if nisFirst < mr && len(nids) > 0 {
			args["nid"] = strings.Join(nids, ",")
		}
	}
	c := r.subCommand(p, node, verb, args)
	c.Fail, c.UndoPrim = fail, !del && primFirst < mr
	return c
}

// cyamlString reports whether cYAML (assign_type_value, up to 2.16) gives a scalar a string
// value: not for null, true, false, and what parse_number reads whole as a number.
func cyamlString(s string) bool {
	switch s {
	case "", "null", "true", "false":
		return false
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return true
	}
	i := 0
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	}
	if i < len(s) && s[i] >= '1' && s[i] <= '9' {
		digits()
	}
	if i+1 < len(s) && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
		i++
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		digits()
	}
	return i != len(s)
}

// netlinkMRWord reports whether yaml_fill_scalar_data sends a mapping's value as a number
// (LN_SCALAR_ATTR_INT_VALUE): yes, true, on, y (1) and no, false, off, n (0) in any case, or
// a word of digits and '-' only.
func netlinkMRWord(s string) bool {
	switch strings.ToLower(s) {
	case "yes", "true", "on", "y", "no", "false", "off", "n":
		return true
	}
	return s != "" && strings.Trim(s, "-0123456789") == ""
}

// importRoute is handle_yaml_config_route (net, gateway, hop and priority when written, and on
// 2.15 and 2.16 health_sensitivity, which 2.15's handler and 2.16's kernel read and the
// others skip) or handle_yaml_del_route (net and gateway).
func (r *resolver) importRoute(p, node string, rt LnetctlRoute, del bool) *Command {
	args := map[string]string{}
	if rt.Net != "" {
		args["net"] = rt.Net
	}
	if rt.Gateway != "" {
		args["gateway"] = rt.Gateway
	}
	if del {
		return r.subCommand(p, node, "route del", args)
	}
	if r.d.has(p + ".hop") {
		args["hop"] = strconv.Itoa(rt.Hop)
	}
	if r.d.has(p + ".priority") {
		args["priority"] = strconv.Itoa(rt.Priority)
	}
	if m := r.s.Member(node); rt.HealthSensitivity.set && m != nil && !routeSensitivityLacking.lacks(r.rel[m.Group].Profile) {
		args["health_sensitivity"] = rt.HealthSensitivity.text
	}
	return r.subCommand(p, node, "route add", args)
}

// ioctlGlobalOrder is the order in which handle_yaml_config_global_settings (up to 2.15) sets
// the global keys, whatever their order in the document; it has no max_recovery_ping_interval.
var ioctlGlobalOrder = []string{"max_interfaces", "numa_range", "discovery", "drop_asym_route", "retry_count",
	"transaction_timeout", "health_sensitivity", "recovery_interval", "router_sensitivity", "response_tracking",
	"recovery_limit"}

// importGlobal is the global section: one `set NAME VALUE` per key written, checked as that
// command is. From 2.16 the Netlink import (yaml_import_global_settings) sets the keys in the
// document's order, and --del resets numa_range (0), max_interfaces (the default) and
// discovery (1) only; up to 2.15 (Profile.ImportByIoctl) handle_yaml_config_global_settings
// sets them in its own order and handle_yaml_del_global_settings also resets drop_asym_route
// (0). lnd_timeout, which export prints, is read-only and skipped.
func (r *resolver) importGlobal(p, node string, g *LnetctlGlobal, del bool) []*Command {
	if g == nil {
		return nil
	}
	keys := make([]string, 0, len(r.d.keys[p]))
	written := map[string]string{} // key -> as written (max_intf is max_interfaces' legacy name)
	for _, w := range r.d.keys[p] {
		k := w
		if k == "max_intf" {
			k = "max_interfaces"
		}
		keys = append(keys, k)
		written[k] = w
	}
	m := r.s.Member(node)
	ioctl := m != nil && r.rel[m.Group].Profile.ImportByIoctl
	if ioctl {
		var ordered []string
		for _, k := range ioctlGlobalOrder {
			if slices.Contains(keys, k) {
				ordered = append(ordered, k)
			}
		}
		keys = ordered
	}
	secs := func(t sim.Time) int { return int(t / sim.Second) }
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	gl := g.Globals
	var out []*Command
	for _, k := range keys {
		var v int
		switch k {
		case "numa_range":
			v = gl.NumaRange
		case "max_interfaces":
			v = gl.MaxInterfaces
		case "discovery":
			v = b(gl.Discovery)
		case "drop_asym_route":
			v = b(gl.DropAsymRoute)
		case "retry_count":
			v = gl.RetryCount
		case "transaction_timeout":
			v = secs(gl.TransactionTimeout)
		case "health_sensitivity":
			v = gl.HealthSensitivity
		case "recovery_interval":
			v = secs(gl.RecoveryInterval)
		case "router_sensitivity":
			v = gl.RouterSensitivity
		case "response_tracking":
			v = gl.ResponseTracking
		case "recovery_limit":
			v = secs(gl.RecoveryLimit)
		case "max_recovery_ping_interval":
			v = secs(gl.MaxRecoveryPingInterval)
		default:
			continue // lnd_timeout
		}
		kp := join(p, written[k])
		word, ok := g.words[k]
		switch {
		case del:
		case r.d.empty[kp] || ok && word == "" && !ioctl:
			if !ioctl {
				r.errorAt(kp, "give the value, or remove the key", "import: no value specified for key '%s'", k)
				continue
			}
			v = 0 // cy_valueint of an empty value
		case ok && ioctl:
			v = cyamlInt(word)
		case ok:
			n, err := parseLong(word)
			if err != nil {
				r.errorAt(kp, "a number, as lnetctl export prints it", "import: invalid value '%s' for key '%s'", word, k)
				continue
			}
			v = n
		}
		if del {
			switch {
			case k == "numa_range", k == "drop_asym_route" && ioctl:
				v = 0
			case k == "max_interfaces": // LNET_INTERFACES_MAX_DEFAULT of the node's release
				var prof lnet.Profile
				if m != nil {
					prof = r.rel[m.Group].Profile
				}
				v = prof.MaxInterfacesDefault()
			case k == "discovery":
				v = 1
			default:
				continue
			}
		}
		if m != nil && !setOfRelease(k, r.rel[m.Group].Profile) {
			// handle_yaml_config_global_settings of this release has no such key: lnetctl
			// skips it, which lnetsim refuses as it refuses what lnetctl ignores.
			r.errorAt(kp, "remove the key", "import: %s runs %s, whose lnetctl does not read %s (it skips the key)", node, r.rel[m.Group].Name, k)
			continue
		}
		c := &Command{Verb: "set " + k, Operands: []string{strconv.Itoa(v)}, node: node}
		actions[c.Verb].Cmd.check(r, kp, c)
		out = append(out, c)
	}
	return out
}

// parseLong reads a global value as lnetctl's parse_long does from 2.16 (LU-17895): strtol
// in base 0 (0x hex, 0 octal) over the whole word, leading blanks and a sign allowed; a word
// it does not read whole, or out of a long's range, fails.
func parseLong(s string) (int, error) {
	bad := fmt.Errorf("not a number: %q", s)
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	base := 10
	switch {
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && strings.IndexByte("0123456789abcdefABCDEF", t[2]) >= 0:
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	if t == "" || t[0] == '+' || t[0] == '-' {
		return 0, bad
	}
	v, err := strconv.ParseInt(t, base, 64)
	if err != nil {
		return 0, bad
	}
	if neg {
		v = -v
	}
	return int(v), nil
}

// cyamlInt is the cy_valueint liblnetconfig's cYAML gives a global value up to 2.15
// (assign_type_value, parse_number): true 1, false 0, a word parse_number reads whole (a
// sign, digits after at most one leading 0, a fraction, an exponent) as that number truncated
// to an int, anything else (True, foo, 0x10, 007) 0.
func cyamlInt(s string) int {
	switch s {
	case "true":
		return 1
	case "false", "":
		return 0
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return 0
	}
	digit := func(j int, lo byte) bool { return j < len(s) && s[j] >= lo && s[j] <= '9' }
	i, sign := 0, 1.0
	if s[0] == '-' {
		sign, i = -1, 1
	}
	if i < len(s) && s[i] == '0' {
		i++
	}
	var n float64
	scale := 0
	if digit(i, '1') {
		for digit(i, '0') {
			n = n*10 + float64(s[i]-'0')
			i++
		}
	}
	if i < len(s) && s[i] == '.' && digit(i+1, '0') {
		i++
		for digit(i, '0') {
			n = n*10 + float64(s[i]-'0')
			scale--
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		esign := 1
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			if s[i] == '-' {
				esign = -1
			}
			i++
		}
		e := 0
		for digit(i, '0') {
			if e < 10000 {
				e = e*10 + int(s[i]-'0')
			}
			i++
		}
		scale += esign * e
	}
	if i != len(s) {
		return 0
	}
	v := sign * n * math.Pow(10, float64(scale))
	if v < math.MinInt32 || v > math.MaxInt32 || math.IsNaN(v) {
		return math.MinInt32 // what x86's conversion gives a double out of an int's range
	}
	return int(int32(v))
}

// LnetctlExec is a ping or discover section of an import --exec document, in either shape
// lnetctl reads: from 2.16 the Netlink request's mapping `{nids: NIDs}` (a list, a mapping
// of indexes to NIDs, or one NID), up to 2.15 lustre_yaml_exec's list of entries
// `{primary nid: NID, timeout: MS, source_nid: NID, force: 0|1}`.
type LnetctlExec struct {
	Netlink bool
	Entries []LnetctlExecEntry
}

// LnetctlExecEntry is one ping or discovery: its NIDs, and up to 2.15 its timeout (ms; 0:
// lnetctl's 1000), source NID and force flag.
type LnetctlExecEntry struct {
	NIDs      []string
	Path      string
	TimeoutMS int
	Source    string
	Force     bool
}

func (e *LnetctlExec) decodeYAML(d *decoder, n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		e.Netlink = true
		ent := LnetctlExecEntry{Path: path}
		keys, vals := d.mappingPairs(n, path)
		seen := false
		for i, k := range keys {
			p := join(path, k.Value)
			if k.Value != "nids" {
				d.errorf(k, p, "the Netlink form takes nids: [NID, ...]", "unknown field %q", k.Value)
				continue
			}
			seen = true
			v, _ := d.resolve(vals[i])
			switch v.Kind {
			case yaml.ScalarNode:
				ent.NIDs = append(ent.NIDs, v.Value)
			case yaml.SequenceNode:
				for _, x := range v.Content {
					if s, ok := d.scalar(x, p, "a NID"); ok {
						ent.NIDs = append(ent.NIDs, s)
					}
				}
			case yaml.MappingNode:
				for j := 1; j < len(v.Content); j += 2 {
					if s, ok := d.scalar(v.Content[j], p, "a NID"); ok {
						ent.NIDs = append(ent.NIDs, s)
					}
				}
			default:
				d.errorf(v, p, "", "expected NIDs, got %s", describe(v))
			}
		}
		if len(ent.NIDs) == 0 {
			if !seen {
				d.errorf(n, path, "e.g. {nids: [10.0.0.9@o2ib]}", "no nids")
			}
			return
		}
		e.Entries = append(e.Entries, ent)
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := index(path, i)
			ent := LnetctlExecEntry{Path: p}
			keys, vals := d.mappingPairs(item, p)
			seen := item.Kind != yaml.MappingNode // mappingPairs said so
			for j, k := range keys {
				kp := join(p, k.Value)
				switch k.Value {
				case "primary nid":
					seen = true
					if s, ok := d.scalar(vals[j], kp, "a NID"); ok {
						ent.NIDs = []string{s}
					}
				case "source_nid":
					ent.Source, _ = d.scalar(vals[j], kp, "a NID")
				case "timeout":
					d.decode(vals[j], reflectValue(&ent.TimeoutMS), kp, fieldOpts{})
				case "force":
					d.decode(vals[j], reflectValue(&ent.Force), kp, fieldOpts{})
				default:
					d.errorf(k, kp, "an entry takes primary nid, timeout, source_nid, force", "unknown field %q", k.Value)
				}
			}
			if len(ent.NIDs) == 0 {
				if !seen {
					d.errorf(item, p, "write the entry's primary nid:", "the 'primary nid' must be specified")
				}
				continue
			}
			e.Entries = append(e.Entries, ent)
		}
	default:
		d.errorf(n, path, "e.g. {nids: [10.0.0.9@o2ib]} (from 2.16) or [{primary nid: 10.0.0.9@o2ib}]", "expected a mapping or a list, got %s", describe(n))
	}
}

// importExec is a ping or discover section of import --exec: one ping or discover command per
// entry (the Netlink form: one for all its NIDs), checked as that command is. The form must be
// the node's release's: the list up to 2.15 (Profile.ImportByIoctl), the mapping from 2.16.
func (r *resolver) importExec(p, node, verb string, e *LnetctlExec) []*Command {
	if e == nil {
		return nil
	}
	if m := r.s.Member(node); m != nil && e.Netlink == r.rel[m.Group].Profile.ImportByIoctl {
		if e.Netlink {
			r.errorAt(p, "write [{primary nid: NID}] (lustre_yaml_exec's form)", "import --exec: %s runs %s, whose lnetctl does not send %s by Netlink", node, r.rel[m.Group].Name, verb)
		} else {
			r.errorAt(p, "write {nids: [NID, ...]} (the Netlink request's form)", "import --exec: %s runs %s, whose lnetctl sends %s by Netlink", node, r.rel[m.Group].Name, verb)
		}
		return nil
	}
	var out []*Command
	for _, ent := range e.Entries {
		c := &Command{Verb: verb, Args: map[string]string{}, Operands: []string{strings.Join(ent.NIDs, ",")}, node: node, rawNIDs: e.Netlink}
		if ent.TimeoutMS > 0 && verb == "ping" {
			c.Args["timeout"] = strconv.Itoa((ent.TimeoutMS + 999) / 1000)
		}
		if ent.Source != "" && verb == "ping" {
			c.Args["source"] = ent.Source
		}
		if ent.Force && verb == "discover" {
			c.Args["force"] = ""
		}
		actions[verb].Cmd.check(r, ent.Path, c)
		out = append(out, c)
	}
	return out
}

// setCommand is `set NAME VALUE`, checked as that command is.
func (r *resolver) setCommand(p, node, name string, v int) *Command {
	c := &Command{Verb: "set " + name, Operands: []string{strconv.Itoa(v)}, node: node}
	actions[c.Verb].Cmd.check(r, p, c)
	return c
}

// importNuma is handle_yaml_config_numa (`numa: {range: N}`: set numa_range N) or
// handle_yaml_del_numa (set numa_range 0).
func (r *resolver) importNuma(p, node string, n *LnetctlNuma, del bool) []*Command {
	switch {
	case del:
		return []*Command{r.setCommand(p, node, "numa_range", 0)}
	case n == nil || !r.d.has(p+".range"):
		r.errorAt(p, "e.g. numa: {range: 1}", "import: numa needs range")
		return nil
	}
	return []*Command{r.setCommand(p+".range", node, "numa_range", n.Range)}
}

// importBuffers is handle_yaml_config_buffers (lustre_lnet_config_buffers): the router
// buffer totals written (tiny, small, large; one not written is left as it is); --del has
// no handler for it.
func (r *resolver) importBuffers(p, node string, b *LnetctlBuffers, del bool) []*Command {
	if del || b == nil {
		return nil
	}
	var out []*Command
	for _, k := range r.d.keys[p] {
		kp := join(p, k)
		v := 0
		switch k {
		case "tiny":
			v = b.Tiny
		case "small":
			v = b.Small
		case "large":
			v = b.Large
		default:
			continue
		}
		out = append(out, r.setCommand(kp, node, k+"_buffers", v))
	}
	return out
}

// netImportTunables are the LNet tunables of a net entry and the net add options they become.
var netImportTunables = [][2]string{{"peer_timeout", "peer-timeout"}, {"peer_credits", "peer-credits"},
	{"peer_buffer_credits", "peer-buffer-credits"}, {"credits", "credits"}}

// importNet is the net section as lnetctl reads it from 2.17 (handle_net_config_sequence,
// LU-19386): each entry, its `net type` first, is one rule whose NIs are every interface of
// its local NIs (none: the node's first interface, as lustre_lnet_match_ip_to_intf takes
// the first one up), each added with the entry's tunables and lnd tunables
// (yaml_lnet_config_ni: `net add --net N --if IF ...`) or, with --del, deleted (`net del --net
// N --if IF`). The tunables are read into one set in the document's order, so what is
// written last wins, whether the net's or an NI's; the CPTs written anywhere in the entry
// (handle_cpt_sequence) make one list, and one that does not parse stops the import (refused
// at load). Each entry is one Netlink request (numbered from batch): its first NI the
// kernel refuses ends it. Up to 2.15 the section is liblnetconfig's (importNetIoctl); 2.16
// hands it to the kernel as written (Profile.ImportNetRaw): refused at load as not
// modelled.
func (r *resolver) importNet(p, node string, nets []LnetctlNet, del bool, batch int) []*Command {
	m := r.s.Member(node)
	if m == nil {
		return nil
	}
	rel := r.rel[m.Group]
	if rel.Profile.ImportNetRaw {
		r.errorAt(p, "configure the nets at load (nodes.NAME.lnetctl) or with net add and net del",
			"import: section net is not modelled at run time on %s (%s's lnetctl hands it to the kernel as written)", node, rel.Name)
		return nil
	}
	verb := "net add"
	if del {
		verb = "net del"
	}
	var out []*Command
	for j := range nets {
		n := &nets[j]
		np := index(p, j)
		if rel.Profile.ImportByIoctl {
			out = append(out, r.importNetIoctl(np, m, n, del, batch*10000+j+1)...)
			continue
		}
		if keys := r.d.keys[np]; len(keys) > 0 && keys[0] != "net type" {
			r.errorAt(join(np, keys[0]), "write net type first", "import: Malformed input. Expect 'net type' found '%s'", keys[0])
			continue
		}
		net, _, err := ParseNet(n.NetType)
		switch {
		case err != nil:
			r.errorAt(np+".net type", "", "import: Invalid network ID '%s'", n.NetType)
			continue
		case net == "lo0":
			r.errorAt(np+".net type", "import what export --backup writes, which leaves the loopback net out",
				"import: the loopback net is not modelled at run time (the kernel refuses it: setting @lo not allowed)")
			continue
		}
		args := map[string]string{"net": net}
		type intf struct{ name, path string }
		var ifs []intf
		var cpts []string
		tunables := func(t *LnetctlTunables, tp string) { r.netlinkTunables(args, t, tp) }
		lndTunables := func(o *O2IBParams, lp string) {
			if !del {
				r.netlinkLNDTunables(args, o, lp)
			}
		}
		cpt := func(c LnetctlCPT) { cpts = r.netlinkCPT(cpts, c) }
		for _, k := range r.d.keys[np] {
			switch k {
			case "tunables":
				if !del {
					tunables(n.Tunables, np+".tunables")
				}
			case "lnd tunables":
				lndTunables(n.LNDTunables, np+".lnd tunables")
			case "local NI(s)":
				for i := range n.LocalNIs {
					ni := &n.LocalNIs[i]
					lp := index(np+".local NI(s)", i)
					for _, k2 := range r.d.keys[lp] {
						switch k2 {
						case "interfaces":
							for _, ik := range r.d.keys[lp+".interfaces"] {
								ifs = append(ifs, intf{ni.Interfaces[ik], join(lp+".interfaces", ik)})
							}
						case "tunables":
							if !del {
								tunables(ni.Tunables, lp+".tunables")
							}
						case "lnd tunables":
							lndTunables(ni.LNDTunables, lp+".lnd tunables")
						case "CPT":
							cpt(ni.CPT)
						}
					}
				}
			}
		}
		if len(cpts) > 0 && !del {
			args["cpt"] = "[" + strings.Join(cpts, ",") + "]"
		}
		if len(ifs) == 0 && len(m.NIs) > 0 && m.NIs[0].Interface != "" {
			ifs = append(ifs, intf{m.NIs[0].Interface, np})
		}
		for _, x := range ifs {
			a := maps.Clone(args)
			a["if"] = x.name
			c := r.subCommand(x.path, node, verb, a)
			c.Batch = batch*10000 + j + 1
			out = append(out, c)
		}
	}
	return out
}

// netlinkTunables puts the tunables written at tp into net add's options (2.17+ import: a
// key written is sent, -1 being the module's).
func (r *resolver) netlinkTunables(args map[string]string, t *LnetctlTunables, tp string) {
	if t == nil {
		return
	}
	for _, k := range netImportTunables {
		if !r.d.has(join(tp, k[0])) {
			continue
		}
		v := map[string]int{"peer_timeout": int(t.PeerTimeout / sim.Second), "peer_credits": t.PeerCredits,
			"peer_buffer_credits": t.PeerBufferCredits, "credits": t.Credits}[k[0]]
		args[k[1]] = strconv.Itoa(v)
	}
}

// netlinkLNDTunables puts the lnd tunables written at lp that the model reads (conns_per_peer,
// tos) into net add's options.
func (r *resolver) netlinkLNDTunables(args map[string]string, o *O2IBParams, lp string) {
	if o == nil {
		return
	}
	if r.d.has(lp + ".conns_per_peer") {
		args["conns-per-peer"] = strconv.Itoa(o.ConnsPerPeer)
	}
	if r.d.has(lp + ".tos") {
		args["tos"] = strconv.Itoa(o.TOS)
	}
}

// netlinkCPT adds a CPT list written in an entry to cpts, as handle_cpt_sequence joins them;
// one that does not parse is refused at load (lnetctl stops the import).
func (r *resolver) netlinkCPT(cpts []string, c LnetctlCPT) []string {
	if !c.Written() {
		return cpts
	}
	if _, err := c.CPTs(); err != nil {
		r.errorAt(c.Path, "a CPT list such as \"[0,1]\"", "import: %v", err)
		return cpts
	}
	if c.Seq {
		return append(cpts, c.Items...)
	}
	return append(cpts, strings.TrimSuffix(strings.TrimPrefix(c.Text, "["), "]"))
}

// importNetIoctl is a net entry as liblnetconfig reads it up to 2.15 (Profile.ImportByIoctl):
// handle_yaml_config_ni adds one NI per interface of all its local NIs, in order (one ioctl
// each: the first the kernel refuses ends the entry), with the net's tunables only (a local
// NI's tunables, lnd tunables and CPT are not read): a key written 0 or -1, or not written, is
// the default (lnet_set_tune_defaults); the net's lnd tunables only beside its tunables,
// where conns_per_peer not written is 1 (yaml_extract_o2ib_tun); the CPT in its tunables
// when it parses (one that does not is dropped). handle_yaml_del_ni deletes the NI of each
// interface, every one tried, or the whole net when none is written. The loopback net is
// skipped (lustre_lnet_config_ni, lustre_lnet_del_ni); an entry without net type, local
// NI(s) or, to add, any interface is refused at load, as lnetctl refuses it.
func (r *resolver) importNetIoctl(np string, m *Member, n *LnetctlNet, del bool, batch int) []*Command {
	node := m.Name
	switch {
	case !r.d.has(np + ".net type"):
		r.errorAt(np, "write the entry's net type", "import: missing mandatory parameters in NI config: 'network'")
		return nil
	case !r.d.has(np + ".local NI(s)"):
		r.errorAt(np, "write the entry's local NI(s) with their interfaces", "import: the entry has no local NI(s)")
		return nil
	}
	net, _, err := ParseNet(n.NetType)
	switch {
	case err != nil:
		r.errorAt(np+".net type", "", "import: cannot parse net '%s'", n.NetType)
		return nil
	case net == "lo0":
		return nil
	}
	type intf struct{ name, path string }
	var ifs []intf
	for i := range n.LocalNIs {
		lp := index(np+".local NI(s)", i)
		for _, ik := range r.d.keys[lp+".interfaces"] {
			ifs = append(ifs, intf{n.LocalNIs[i].Interfaces[ik], join(lp+".interfaces", ik)})
		}
	}
	if del {
		if len(ifs) == 0 {
			return []*Command{r.subCommand(np, node, "net del", map[string]string{"net": net})}
		}
		var out []*Command
		for _, x := range ifs {
			out = append(out, r.subCommand(x.path, node, "net del", map[string]string{"net": net, "if": x.name}))
		}
		return out
	}
	if len(ifs) == 0 {
		r.errorAt(np+".local NI(s)", "give each local NI its interfaces: {0: ib0}", "import: no interface name provided")
		return nil
	}
	args, ok := r.ioctlNetArgs(np, m, net, n.Tunables, n.LNDTunables)
	if !ok {
		return nil
	}
	var out []*Command
	for _, x := range ifs {
		a := maps.Clone(args)
		a["if"] = x.name
		c := r.subCommand(x.path, node, "net add", a)
		c.Batch = batch
		out = append(out, c)
	}
	return out
}

// ioctlNetArgs are net add's options for the tunables of an entry at np as liblnetconfig's
// yaml_extract_tunables reads them up to 2.15: the `tunables` keys above 0, the CPT in them
// when it parses, and the lnd tunables only beside them (conns_per_peer not written: 1);
// false when the entry is refused (2.12's lnd tunables).
func (r *resolver) ioctlNetArgs(np string, m *Member, net string, t *LnetctlTunables, o *O2IBParams) (map[string]string, bool) {
	args := map[string]string{"net": net}
	if t == nil || !r.d.has(np+".tunables") {
		return args, true
	}
	tp := np + ".tunables"
	vals := map[string]int{"peer_timeout": int(t.PeerTimeout / sim.Second), "peer_credits": t.PeerCredits,
		"peer_buffer_credits": t.PeerBufferCredits, "credits": t.Credits}
	for _, k := range netImportTunables {
		if v := vals[k[0]]; r.d.has(join(tp, k[0])) && v > 0 {
			args[k[1]] = strconv.Itoa(v)
		}
	}
	if t.CPT != "" {
		if _, err := ParseCPTList(t.CPT); err == nil {
			args["cpt"] = t.CPT
		}
	}
	if o != nil && r.d.has(np+".lnd tunables") {
		cpp := 1
		if r.d.has(np + ".lnd tunables.conns_per_peer") {
			cpp = o.ConnsPerPeer
		}
		if r.rel[m.Group].Profile.NoNetAddConnsPerPeer {
			r.errorAt(np+".lnd tunables", "leave the lnd tunables out (the net's o2ib conns_per_peer applies)",
				"import: the lnd tunables of a 2.12 import are not modelled at run time")
			return nil, false
		}
		args["conns-per-peer"] = strconv.Itoa(cpp)
	}
	return args, true
}
