package scenarios

import (
	"maps"
	"net/netip"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios/ippattern"
)

// nodeInterface is one interface of a node as an ip2nets rule sees it (getifaddrs): its name,
// its IPv4 address and its IPv6 addresses. The model's interfaces have no IPv4 address of
// their own: each takes the address of the NID its first NI has, the NIs of several nets on
// one interface sharing it; their IPv6 addresses are the node's `interfaces` (none unless
// written: not even the link-local one Linux gives each interface).
type nodeInterface struct {
	name string
	addr netip.Addr
	v6   []netip.Addr
}

// nodeInterfaces lists m's interfaces in the order of their first NI.
func nodeInterfaces(m *Member) []nodeInterface {
	var out []nodeInterface
	seen := map[string]bool{}
	for _, ni := range m.NIs {
		if ni.Interface == "" || seen[ni.Interface] {
			continue
		}
		seen[ni.Interface] = true
		x := nodeInterface{name: ni.Interface, addr: ni.NID.Addr}
		for _, mi := range m.Interfaces {
			if mi.Name == ni.Interface {
				for _, p := range mi.IPv6 {
					x.v6 = append(x.v6, p.Addr())
				}
			}
		}
		out = append(out, x)
	}
	return out
}

// ip2netsRule is a rule read at load: its net, the interfaces it names (with where), and
// its address patterns.
type ip2netsRule struct {
	net      string
	ifs      []intfAt
	patterns []ippattern.Pattern
}

// intfAt is an interface name and the path it is written at.
type intfAt struct{ name, path string }

// importIP2Nets is an import's ip2nets section: each rule names a net and either interfaces
// (each must exist and, when the rule has ip-range patterns, have an address one of them
// matches: its IPv4 one or, from 2.17, one of its IPv6 ones), or only patterns (every interface with an address one matches), or neither (the
// node's first interface); a rule that applies adds one NI on its net per interface (`net add
// --net N --if IF`, with --del `net del`), with the rule's tunables. By release:
//   - from 2.17 (handle_net_config_sequence, LU-19159): `net-spec` must be the rule's first
//     key; a rule that does not match is skipped, as is a later rule for a net an earlier
//     one configured; each rule is one Netlink request (Batch) with the tunables, lnd
//     tunables and CPT written in it, as a net entry's (importNet); patterns may be IPv6
//     (LU-19444); when no rule applied the import fails with EINVAL "No ip2nets rules
//     applied";
//   - 2.16 (Profile.ImportNoIP2Nets): lnetctl reads the key as a global one: refused at load
//     ("invalid key 'ip2nets'");
//   - up to 2.15 (handle_yaml_config_ip2nets, Profile.ImportByIoctl): of the interfaces a
//     rule names, those missing or not matching are dropped and the others added; with
//     patterns only, an interface is added once per pattern it matches; a rule that adds
//     nothing succeeds; nets are not checked for repeats (the kernel refuses an NI twice);
//     one ioctl per NI with the rule's tunables as a net entry's (importNetIoctl); --del
//     skips the section (lustre_yaml_del's no-op).
func (r *resolver) importIP2Nets(p, node string, rules []LnetctlIP2Net, del bool, batch int) []*Command {
	m := r.s.Member(node)
	if m == nil {
		return nil
	}
	prof := r.rel[m.Group].Profile
	switch {
	case prof.ImportNoIP2Nets:
		r.errorAt(p, "add the NIs with net add, or import a net section (2.16's lnetctl import has no ip2nets section; 2.15 and 2.17 have)",
			"import: invalid key 'ip2nets'")
		return nil
	case prof.ImportByIoctl && del:
		return nil
	}
	verb := "net add"
	if del {
		verb = "net del"
	}
	ifaces := nodeInterfaces(m)
	var out []*Command
	configured := map[string]bool{}
	applied := 0
	for j := range rules {
		rl := &rules[j]
		np := index(p, j)
		rule, ok := r.ip2netsRule(np, rl, prof.ImportByIoctl)
		if !ok {
			continue
		}
		var args map[string]string
		var ifs []intfAt
		if prof.ImportByIoctl {
			ifs = matchIP2NetsIoctl(rule, ifaces)
			if args, ok = r.ioctlNetArgs(np, m, rule.net, rl.Tunables, rl.LNDTunables); !ok {
				continue
			}
		} else {
			if ifs, ok = matchIP2Nets(rule, ifaces); !ok || configured[rule.net] {
				continue
			}
			configured[rule.net] = true
			args = map[string]string{"net": rule.net}
			if !del {
				var cpts []string
				for _, k := range r.d.keys[np] {
					switch k {
					case "tunables":
						r.netlinkTunables(args, rl.Tunables, np+".tunables")
					case "lnd tunables":
						r.netlinkLNDTunables(args, rl.LNDTunables, np+".lnd tunables")
					case "CPT":
						cpts = r.netlinkCPT(cpts, rl.CPT)
					}
				}
				if len(cpts) > 0 {
					args["cpt"] = "[" + strings.Join(cpts, ",") + "]"
				}
			}
		}
		for _, x := range ifs {
			if x.path == "" {
				x.path = np
			}
			a := maps.Clone(args)
			a["if"] = x.name
			c := r.subCommand(x.path, node, verb, a)
			c.Batch = batch*10000 + j + 1
			out = append(out, c)
		}
		if len(ifs) > 0 {
			applied++
		}
	}
	if applied == 0 && !prof.ImportByIoctl && len(rules) > 0 {
		out = append(out, &Command{Verb: verb, Operands: []string{"ip2nets"}, node: node,
			Fail: &EntryFail{Errno: lnet.EINVAL, Text: "No ip2nets rules applied"}})
	}
	return out
}

// ip2netsRule reads rule rl at np as the node's lnetctl does, refusing at load what lnetctl
// refuses before it reads the node's interfaces.
func (r *resolver) ip2netsRule(np string, rl *LnetctlIP2Net, ioctl bool) (ip2netsRule, bool) {
	var rule ip2netsRule
	keys := r.d.keys[np]
	switch {
	case !ioctl && len(keys) > 0 && keys[0] != "net-spec":
		r.errorAt(join(np, keys[0]), "write net-spec first", "import: Malformed input. Expect 'net-spec' found '%s'", keys[0])
		return rule, false
	case !r.d.has(np + ".net-spec"):
		r.errorAt(np, "give the rule its net: net-spec: o2ib1", "import: the ip2nets rule has no net-spec")
		return rule, false
	case !ioctl && r.d.has(np+".local NI(s)"):
		r.errorAt(np+".local NI(s)", "name the interfaces in the rule's interfaces", "import: local NI(s)' not valid for ip2nets")
		return rule, false
	}
	net, _, err := ParseNet(rl.NetSpec)
	switch {
	case err != nil:
		r.errorAt(np+".net-spec", "", "import: Invalid network ID '%s'", rl.NetSpec)
		return rule, false
	case net == "lo0":
		r.errorAt(np+".net-spec", "name an o2ib or tcp net", "import: the loopback net is not modelled at run time (the kernel refuses it: setting @lo not allowed)")
		return rule, false
	}
	rule.net = net
	ok := true
	for _, k := range r.d.keys[np+".interfaces"] {
		name, path := rl.Interfaces[k], join(np+".interfaces", k)
		if strings.ContainsRune(name, '[') {
			r.errorAt(path, "give the interface without a CPT list (the CPT key sets the rule's)", "import: an interface's CPT list (%s) is not modelled", name)
			ok = false
			continue
		}
		if name != "" {
			rule.ifs = append(rule.ifs, intfAt{name, path})
		}
	}
	if ioctl && r.d.has(np+".interfaces") && len(rule.ifs) == 0 && ok {
		r.errorAt(np+".interfaces", "name an interface, or leave interfaces out", "import: the rule's interfaces list none")
		return rule, false
	}
	for _, k := range r.d.keys[np+".ip-range"] {
		pat, err := ippattern.Parse(rl.IPRange[k], !ioctl)
		if err != nil {
			hint := "an address pattern such as 10.0.0.*, 10.0.[1-3].[2-254/2] or (from 2.17) 2001:db8::/64"
			if ioctl {
				r.errorAt(join(np+".ip-range", k), hint, "import: ip2nets: bad ip-range: %v", err)
			} else {
				r.errorAt(join(np+".ip-range", k), hint, "import: Failed to parse ip-range list rc = -1 (%v)", err)
			}
			ok = false
			continue
		}
		rule.patterns = append(rule.patterns, pat)
	}
	return rule, ok
}

// matches reports whether address a matches one of the patterns.
func matches(pats []ippattern.Pattern, a netip.Addr) bool {
	for _, p := range pats {
		if p.Match(a) {
			return true
		}
	}
	return false
}

// matchesAny reports whether one of interface x's addresses, IPv4 or IPv6, matches one of
// the patterns (ip_addr_in_range over each of its getifaddrs entries).
func matchesAny(pats []ippattern.Pattern, x nodeInterface) bool {
	if matches(pats, x.addr) {
		return true
	}
	for _, a := range x.v6 {
		if matches(pats, a) {
			return true
		}
	}
	return false
}

// matchIP2Nets is lustre_lnet_match_ip_to_intf from 2.17: the interfaces the rule configures,
// false when it does not match (an interface it names is missing or has no address a
// pattern matches, or nothing matches). Without named interfaces it walks getifaddrs' list,
// where the IPv4 addresses of every interface come before the IPv6 ones (the kernel's
// address dump, family by family): an interface is listed once per address of its that
// matches, so an interface with an IPv4 and an IPv6 address that match is listed twice, and
// its second NI is the kernel's to refuse (EEXIST).
func matchIP2Nets(rule ip2netsRule, ifaces []nodeInterface) ([]intfAt, bool) {
	switch {
	case len(rule.ifs) == 0 && len(rule.patterns) == 0:
		if len(ifaces) == 0 {
			return nil, false
		}
		return []intfAt{{name: ifaces[0].name}}, true
	case len(rule.ifs) == 0:
		var out []intfAt
		for _, x := range ifaces {
			if matches(rule.patterns, x.addr) {
				out = append(out, intfAt{name: x.name})
			}
		}
		for _, x := range ifaces {
			for _, a := range x.v6 {
				if matches(rule.patterns, a) {
					out = append(out, intfAt{name: x.name})
				}
			}
		}
		return out, len(out) > 0
	}
	for _, in := range rule.ifs {
		i := slicesIndexIface(ifaces, in.name)
		if i < 0 || len(rule.patterns) > 0 && !matchesAny(rule.patterns, ifaces[i]) {
			return nil, false
		}
	}
	return rule.ifs, true
}

// matchIP2NetsIoctl is lustre_lnet_match_ip_to_intf up to 2.15: the interfaces named that
// exist and match (all, without patterns); with patterns only, each interface once per
// pattern it matches; with neither, the first interface. Only IPv4 addresses are matched
// (its walk skips the other families; its patterns are IPv4 only).
func matchIP2NetsIoctl(rule ip2netsRule, ifaces []nodeInterface) []intfAt {
	var out []intfAt
	switch {
	case len(rule.ifs) == 0 && len(rule.patterns) == 0:
		if len(ifaces) > 0 {
			out = append(out, intfAt{name: ifaces[0].name})
		}
	case len(rule.ifs) == 0:
		for _, x := range ifaces {
			for _, p := range rule.patterns {
				if p.Match(x.addr) {
					out = append(out, intfAt{name: x.name})
				}
			}
		}
	default:
		for _, in := range rule.ifs {
			i := slicesIndexIface(ifaces, in.name)
			if i >= 0 && (len(rule.patterns) == 0 || matches(rule.patterns, ifaces[i].addr)) {
				out = append(out, in)
			}
		}
	}
	return out
}

// slicesIndexIface is the index of the interface named name, -1 if none.
func slicesIndexIface(ifaces []nodeInterface, name string) int {
	for i, x := range ifaces {
		if x.name == name {
			return i
		}
	}
	return -1
}
