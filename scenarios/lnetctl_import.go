package scenarios

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/sim"
)

// lnetctl import (lnetctl.c jt_import) reads a YAML document and, with liblnetconfig's
// lustre_yaml_config (default, --add) or lustre_yaml_del (--del), hands each entry of each
// section, in the document's order, to that section's handler; every entry is tried, and the
// import fails with the last failure. lnetsim runs the route, peer and routing sections at run
// time, each entry through the check and the run of the single verb its handler calls
// (handle_yaml_config_route: route add, handle_yaml_peer_common: peer add/del,
// handle_yaml_config_routing: set routing; --del: route del, peer del, set routing 0) and
// the global section (importGlobal).
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
	for _, o := range []string{"show", "exec"} {
		if _, ok := c.Args[o]; ok {
			r.errorAt(p+".lnetctl", "lnetsim runs import (--add) and import --del", "import: --%s is not modelled", o)
			return
		}
	}
	if add && del {
		r.errorAt(p+".lnetctl", "give --add or --del (lnetctl takes the last one given)", "import: --add and --del together")
		return
	}
	yp := p + ".yaml"
	if f.Import == nil {
		return // faultFields said so
	}
	for _, key := range r.d.keys[yp] {
		sp := join(yp, key)
		switch key {
		case "peer":
			for j, pr := range f.Import.Peer {
				c.Sub = append(c.Sub, r.importPeer(index(sp, j), f.Node, pr, del))
			}
		case "route":
			for j, rt := range f.Import.Route {
				c.Sub = append(c.Sub, r.importRoute(index(sp, j), f.Node, rt, del))
			}
		case "global":
			c.Sub = append(c.Sub, r.importGlobal(sp, f.Node, f.Import.Global, del)...)
		case "routing":
			v := 0
			if f.Import.Routing != nil && f.Import.Routing.Enable && !del {
				v = 1
			}
			c.Sub = append(c.Sub, &Command{Verb: "set routing", Operands: []string{strconv.Itoa(v)}, Value: v, node: f.Node})
		default:
			r.errorAt(sp, "configure it at load (nodes.NAME.lnetctl) or with its own lnetctl command", "import: section %s is not modelled at run time (route, peer, routing and global are)", key)
		}
	}
}

// subCommand builds the single-verb command an import entry runs and checks it as that verb.
func (r *resolver) subCommand(p, node, verb string, args map[string]string) *Command {
	c := &Command{Verb: verb, Args: args, node: node}
	actions[verb].Cmd.check(r, p, c)
	return c
}

// importPeer is handle_yaml_peer_common: the primary NID is required; the peer NIs other than
// it are the NIDs added or deleted, and --del of a list holding the primary NID deletes the
// whole peer; Multi-Rail: False adds a non-Multi-Rail peer.
func (r *resolver) importPeer(p, node string, pr LnetctlPeer, del bool) *Command {
	verb := "peer add"
	if del {
		verb = "peer del"
	}
	if pr.PrimaryNID == "" {
		r.errorAt(p, "write the peer's primary nid:", "import: the 'primary nid' must be specified")
		return &Command{Verb: verb, node: node}
	}
	var nids []string
	for _, ni := range pr.PeerNIs {
		if ni.NID == "" {
			continue
		}
		if ni.NID == pr.PrimaryNID {
			if del {
				nids = nil
				break
			}
			continue
		}
		nids = append(nids, ni.NID)
	}
	args := map[string]string{"prim_nid": pr.PrimaryNID}
	if len(nids) > 0 {
		args["nid"] = strings.Join(nids, ",")
	}
	if !pr.MultiRail && !del {
		args["non_mr"] = ""
	}
	return r.subCommand(p, node, verb, args)
}

// importRoute is handle_yaml_config_route (net, gateway, hop and priority when written) or
// handle_yaml_del_route (net and gateway).
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
	return r.subCommand(p, node, "route add", args)
}

// ioctlGlobalOrder is the order in which handle_yaml_config_global_settings (up to 2.15) sets
// the global keys, whatever their order in the document; it has no max_recovery_ping_interval.
var ioctlGlobalOrder = []string{"max_interfaces", "numa_range", "discovery", "drop_asym_route", "retry_count",
	"transaction_timeout", "health_sensitivity", "recovery_interval", "router_sensitivity", "response_tracking",
	"recovery_limit"}

// maxInterfacesDefault is LNET_INTERFACES_MAX_DEFAULT from 2.17 (200 before,
// Profile.SmallMaxInterfaces), what import --del sets max_interfaces to.
const maxInterfacesDefault = 4096

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
		if r.d.empty[kp] && !del {
			if !ioctl {
				r.errorAt(kp, "give the value, or remove the key", "import: no value specified for key '%s'", k)
				continue
			}
			v = 0 // cy_valueint of an empty value
		}
		if del {
			switch {
			case k == "numa_range", k == "drop_asym_route" && ioctl:
				v = 0
			case k == "max_interfaces":
				v = maxInterfacesDefault
				if m != nil && r.rel[m.Group].Profile.SmallMaxInterfaces {
					v = 200
				}
			case k == "discovery":
				v = 1
			default:
				continue
			}
		}
		c := &Command{Verb: "set " + k, Operands: []string{strconv.Itoa(v)}, node: node}
		actions[c.Verb].Cmd.check(r, kp, c)
		out = append(out, c)
	}
	return out
}
