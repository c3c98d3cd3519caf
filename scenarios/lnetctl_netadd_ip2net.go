package scenarios

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// maxIP2NetLen is LNET_MAX_STR_LEN: the room lic_legacy_ip2nets has for net add's --ip2net
// string and its terminating NUL.
const maxIP2NetLen = 128

// checkNetAddIP2Net reads `net add --ip2net RULES`, which every release hands to the kernel
// whole (up to 2.15 lustre_lnet_config_ni puts it in the ioctl's lic_legacy_ip2nets; from
// 2.16 yaml_lnet_config_ni sends it as the net's "ip2net" key), where
// lnet_handle_legacy_ip2nets reads it as the module option ip2nets= is read
// (lnet_parse_ip2nets against the node's interface addresses, then lnet_parse_networks) and
// adds the nets in order with lnet_add_net_common, stopping at the first that fails (the
// ones before it stay). The kernel's reading depends only on the node's interfaces, which
// do not change during a run, so it is done here: c.Sub are the NIs it starts, one `net add
// --net N --if IF` each (an NI without an interface on the LND's default, ib0 or eth0), in
// one Batch so that the first refusal (EEXIST for an interface the net has, as sanity-lnet
// 199 checks) ends the command at run time. What the kernel refuses before adding anything
// is a Sub that fails: no interface address matched (ENOENT), an entry that does not parse
// (EINVAL). An interface the node does not have fails its NI with EINVAL (lnet_inet_select)
// after the NIs before it. lnetctl's words: up to 2.15 "cannot add network: STRERROR",
// from 2.16 "cannot setup ip2nets". The net tunables go with the rule up to 2.15
// (lnet_add_net_common gets the ioctl's); from 2.16 the kernel passes none (the module's);
// --cpt, --tos and --conns-per-peer are not used on this path in any release (the kernel's
// legacy path reads none of them). Deliberate differences: --net, --if or --nid beside
// --ip2net are refused (2.16+ lnetctl then sends the net and drops the rule, up to 2.15 it
// drops the net), as is a string of 128 characters or more (lnetctl up to 2.15, "ip2net
// string too long"; from 2.16 the kernel, E2BIG) and a net of an LND lnetsim lacks.
func checkNetAddIP2Net(r *resolver, p string, c *Command) {
	text := c.Args["ip2net"]
	for _, o := range []string{"net", "if", "nid"} {
		if _, ok := c.Args[o]; ok {
			r.errorAt(p, "give --ip2net alone: its rules name the nets and interfaces", "net add: --%s with --ip2net is not modelled (lnetctl uses one of them and ignores the other)", o)
			return
		}
	}
	m := r.s.Member(c.node)
	if m == nil {
		return
	}
	if len(text) >= maxIP2NetLen {
		r.errorAt(p, "write the rules in fewer than 128 characters", "net add: ip2net string too long %d", len(text))
		return
	}
	prof := r.rel[m.Group].Profile
	fail := func(errno int, why string) {
		msg := "cannot setup ip2nets"
		if prof.NIAddByIoctl {
			msg = "cannot add network: " + strerror(errno)
		}
		c.Sub = append(c.Sub, &Command{Verb: "net add", Operands: []string{"ip2net"}, node: c.node, Batch: 1,
			Fail: &EntryFail{Errno: errno, Text: msg + " (" + why + ")"}})
	}
	ifaces := nodeInterfaces(m)
	addrs := make([]netip.Addr, len(ifaces))
	for i, x := range ifaces {
		addrs[i] = x.addr
	}
	d := r.moduleDialect(m.Group)
	match, err := d.MatchIP2Nets(text, addrs)
	if err != nil {
		errno, why := lnet.EINVAL, err.Error()
		if strings.Contains(err.Why, "ENOENT") { // no address, or none matching
			errno, why = lnet.ENOENT, err.Msg
		}
		fail(errno, why)
		return
	}
	nets, err := d.ParseNetworks(match.Networks)
	if err != nil {
		fail(lnet.EINVAL, err.Error())
		return
	}
	args := map[string]string{}
	if prof.NIAddByIoctl {
		for _, o := range NetAddTunables {
			if v, ok := c.Args[o]; ok {
				args[o] = v
			}
		}
	}
	for _, n := range nets {
		t := n.ID.Type()
		if t != lnet.O2IBLND && t != lnet.SOCKLND {
			r.errorAt(p, "name o2ib or tcp nets in the rules", "net add: --ip2net: net %s is not modelled", n.ID.LnetctlString())
			c.Sub = nil
			return
		}
		for _, ni := range n.NIs {
			iface := ni.Interface
			if iface == "" {
				iface = defaultInterface(t)
			}
			if slicesIndexIface(ifaces, iface) < 0 {
				fail(lnet.EINVAL, fmt.Sprintf("%s: failed to find UP interface %s", n.ID.LnetctlString(), iface))
				return
			}
			a := map[string]string{"net": n.ID.String(), "if": iface}
			for k, v := range args {
				a[k] = v
			}
			sub := r.subCommand(p, c.node, "net add", a)
			sub.Batch = 1
			c.Sub = append(c.Sub, sub)
		}
	}
}

// strerror is the C library's text for the errnos net add --ip2net reports.
func strerror(errno int) string {
	switch errno {
	case lnet.ENOENT:
		return "No such file or directory"
	case lnet.EINVAL:
		return "Invalid argument"
	}
	return lnet.ErrnoName(errno)
}
