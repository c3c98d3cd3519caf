package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// resolver checks a decoded scenario and completes it: node groups expanded, NIDs assigned,
// lnetctl sections imported, per-net and per-NI tunables resolved, references checked.
type resolver struct {
	d *decoder
	s *Scenario
	// groups lists group names sorted; netKey maps a canonical net to the key written in
	// lnet.nets / o2ib (for error paths).
	groups []string
	nets   map[string]bool
	// addNets are the nets of the timeline's net add commands (netAddNets; nil until read).
	addNets map[string]bool
	nids    map[NID]string // NID -> member name, to detect duplicates
	routes  routeTable
	rel     map[string]lnet.Release // group -> its release
	// ip2nets are the groups whose NIs come from the module's ip2nets= (moduleIP2Nets).
	ip2nets []string
}

func newResolver(d *decoder, s *Scenario) *resolver {
	return &resolver{d: d, s: s, nets: map[string]bool{}, nids: map[NID]string{}}
}

func (r *resolver) errorAt(path, hint, format string, args ...any) {
	r.d.errorAt(path, hint, format, args...)
}

// rootAt records a problem that makes the checks depending on path meaningless: it is
// listed first, and later problems about path itself are not reported.
func (r *resolver) rootAt(path, hint, format string, args ...any) {
	n := len(r.d.errs)
	r.errorAt(path, hint, format, args...)
	if len(r.d.errs) > n {
		r.d.errs[n].root = true
	}
	r.d.bad[path] = true
}

func (r *resolver) run() {
	s := r.s
	if !r.d.has("duration") {
		r.errorAt("duration", "e.g. duration: 120s", "duration is required")
	} else if s.Duration <= 0 {
		r.errorAt("duration", "", "must be greater than zero")
	}
	r.fabric()
	r.members()
	r.interfaceAddrs()
	r.fabricFits()
	r.releases()
	r.netTables()
	r.ethernet()
	r.globals("lnet", &s.LNet.Globals)
	r.nodeConfig()
	r.routeLoops()
	r.udspConfig()
	r.workloads()
	r.faults()
	r.faultLimits()
	r.workloadReach()
	r.expectations()
}

func (r *resolver) fabric() {
	f := &r.s.Fabric
	switch f.Topology {
	case "single-switch":
		if r.d.has("fabric.radix") || r.d.has("fabric.oversubscription") {
			r.errorAt("fabric.topology", "set topology: fat-tree, or remove radix and oversubscription", "radix and oversubscription apply to a fat-tree only")
		}
	case "fat-tree", "fat-tree-3":
		if f.Radix < 4 || f.Radix > 256 || f.Radix%2 != 0 {
			r.errorAt("fabric.radix", "real switches have 36, 40 or 64 ports", "must be an even number of ports from 4 to 256, got %d", f.Radix)
		}
		if f.Oversubscription.Down+f.Oversubscription.Up > f.Radix && f.Radix >= 4 {
			r.errorAt("fabric.oversubscription", "", "%d:%d needs more than the %d ports of a switch", f.Oversubscription.Down, f.Oversubscription.Up, f.Radix)
		}
	default:
		r.errorAt("fabric.topology", "", "unknown topology %q (use single-switch, fat-tree or fat-tree-3)", f.Topology)
	}
	switch f.MTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		r.errorAt("fabric.mtu", "", "IB MTU must be 256, 512, 1024, 2048 or 4096 bytes, got %d", f.MTU)
	}
	switch f.Granularity {
	case "", "fixed":
		f.Granularity = ""
	case "adaptive":
	default:
		r.errorAt("fabric.granularity", "use fixed or adaptive", "unknown granularity %q", f.Granularity)
	}
	switch {
	case f.ChunkPackets == ib.DefaultChunkPackets:
		f.ChunkPackets = 0
	case f.ChunkPackets < 0 || f.ChunkPackets > ib.MaxChunkPackets:
		r.errorAt("fabric.chunk_packets", "leave it out for the default of 16", "must be 1 to %d packets, got %d", ib.MaxChunkPackets, f.ChunkPackets)
	}
	switch f.SwitchArbitration {
	case "", "fifo":
		f.SwitchArbitration = ""
	case "round-robin":
		if f.Granularity == "adaptive" {
			r.errorAt("fabric.switch_arbitration", "use granularity fixed with it, or fifo", "round-robin arbitration does not work with adaptive granularity")
		}
	default:
		r.errorAt("fabric.switch_arbitration", "use fifo or round-robin", "unknown switch arbitration %q", f.SwitchArbitration)
	}
	cp := f.ChunkPackets
	if cp <= 0 || cp > ib.MaxChunkPackets {
		cp = ib.DefaultChunkPackets
	}
	switch buf, least := int64(f.SwitchBuffer), ib.FullChunkBytes(cp); {
	case buf == 0 || buf == ib.DefaultBufferBytes:
		f.SwitchBuffer = 0
		if least > ib.DefaultBufferBytes {
			r.errorAt("fabric.chunk_packets", fmt.Sprintf("set fabric.switch_buffer to at least %d bytes, or use smaller chunks", least),
				"a chunk of %d packets (%d bytes on the wire) does not fit the default switch buffer of %d bytes", cp, least, ib.DefaultBufferBytes)
		}
	case buf < least:
		r.errorAt("fabric.switch_buffer", fmt.Sprintf("at least %d bytes: one chunk of %d packets with its headers", least, cp),
			"a switch input buffer of %d bytes cannot hold one chunk", buf)
	case buf > maxSwitchBuffer:
		r.errorAt("fabric.switch_buffer", "", "at most %s per switch input port, got %s", units.Size(maxSwitchBuffer), f.SwitchBuffer)
	}
}

// maxSwitchBuffer caps fabric.switch_buffer: far above any real switch's buffer per port.
const maxSwitchBuffer = 1 << 30

// maxNIs is the most NIs a node can have: one per HCA (0 to 63) and port (1 or 2).
const maxNIs = 128

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// memberName is the name of member i of a group of count nodes.
func memberName(group string, i, count int) string {
	if count == 1 {
		return group
	}
	return group + strconv.Itoa(i)
}

// members expands groups into members, imports lnetctl nets, and assigns NIDs.
func (r *resolver) members() {
	s := r.s
	if len(s.Nodes) == 0 {
		r.errorAt("nodes", "e.g. nodes: {client: {nis: [o2ib0, o2ib0]}, server: {nis: [o2ib0]}}", "at least one node is required")
		return
	}
	for name := range s.Nodes {
		r.groups = append(r.groups, name)
	}
	sort.Strings(r.groups)
	names := map[string]string{} // member name -> group
	total := 0
	for _, g := range r.groups {
		ng := s.Nodes[g]
		p := join("nodes", g)
		if !nameRE.MatchString(g) {
			r.errorAt(p, "start with a letter; use letters, digits, - and _", "invalid node name %q", g)
		}
		if ng.Count < 1 || ng.Count > 100000 {
			r.errorAt(p+".count", "", "must be from 1 to 100000, got %d", ng.Count)
			ng.Count = 1
		}
		total += ng.Count
		if total > 1_000_000 {
			r.errorAt(p+".count", "", "too many nodes in total (more than 1000000)")
			return
		}
		switch {
		case ng.Module != nil:
			r.moduleNets(g, ng)
		case ng.Lnetctl != nil:
			r.importNets(g, ng)
		}
		if len(ng.NIs) > maxNIs {
			r.rootAt(p+".nis", "each NI needs its own HCA (0 to 63) and port (1 or 2)", "node %q has %d NIs; a node has at most %d", g, len(ng.NIs), maxNIs)
			ng.NIs = nil
		} else if len(ng.NIs) == 0 {
			r.errorAt(p+".nis", "e.g. nis: [o2ib0] or nis: [o2ib0, o2ib0] for two rails", "node %q has no NI", g)
		}
		for i := range ng.NIs {
			r.niSpec(p, g, ng, i)
		}
		for i := 0; i < ng.Count; i++ {
			m := memberName(g, i, ng.Count)
			if other, dup := names[m]; dup {
				r.errorAt(p, "rename one of the groups", "node name %q is used by groups %q and %q", m, other, g)
			}
			names[m] = g
		}
	}
	r.assignNIDs()
	r.moduleIP2Nets()
}

// niSpec checks and completes NI i of group g.
func (r *resolver) niSpec(p, g string, ng *NodeGroup, i int) {
	ni := &ng.NIs[i]
	np := ni.srcPath
	if np == "" {
		np = index(p+".nis", i)
		ni.srcPath, ni.tunablesPath, ni.lndPath = np, np+".tunables", np+".lnd_tunables"
	}
	net, _, err := ParseNet(ni.Net)
	switch {
	case ni.Net == "":
		r.errorAt(np+".net", "", "net is required, e.g. net: o2ib0")
	case err != nil:
		r.errorAt(np+".net", "", "%v", err)
	case net == "lo0":
		r.errorAt(np+".net", "", "the loopback net is implicit; list only o2ib NIs")
	default:
		ni.Net = net
		r.nets[net] = true
	}
	if !ni.NID.IsZero() && err == nil && ni.NID.Net != ni.Net {
		r.errorAt(np+".nid", "", "NID %s is not on net %s", ni.NID, ni.Net)
		ni.NID = NID{}
	}
	if j := sharedInterface(ng.NIs[:i], ni); j >= 0 {
		o := ng.NIs[j]
		ni.shares = j + 1
		if ni.HCA < 0 {
			ni.HCA, ni.Port = o.HCA, o.Port
		}
		if ni.Interface == "" {
			ni.Interface = o.Interface
		}
	}
	if ni.HCA < 0 {
		ni.HCA = i
	}
	if ni.HCA > 63 {
		r.errorAt(np+".hca", "", "HCA index must be from 0 to 63, got %d", ni.HCA)
	}
	if ni.Port < 1 || ni.Port > 2 {
		r.errorAt(np+".port", "HCAs have ports 1 and 2", "port must be 1 or 2, got %d", ni.Port)
	}
	if ni.Interface == "" {
		ni.Interface = "ib" + strconv.Itoa(i)
		if IsTCPNet(ni.Net) {
			ni.Interface = "eth" + strconv.Itoa(i)
		}
		for _, o := range ng.NIs[:i] {
			if o.HCA == ni.HCA && o.Port == ni.Port {
				ni.Interface = o.Interface // the port's interface
				break
			}
		}
	}
	for j := 0; j < i; j++ {
		if r.samePort(np, i, ni, j, ng.NIs[j]) {
			break
		}
	}
}

// sharedInterface returns the first of nis whose interface ni also uses (the same
// explicit address, or the same interface name), -1 none.
func sharedInterface(nis []NISpec, ni *NISpec) int {
	for j, o := range nis {
		if !ni.NID.IsZero() && !o.NID.IsZero() && ni.NID.Addr == o.NID.Addr ||
			ni.Interface != "" && ni.Interface == o.Interface {
			return j
		}
	}
	return -1
}

// samePort checks NI i against an earlier NI j of the node: NIs of different nets may share
// a port as one IPoIB interface with one address (lnetctl net add --if ib0 for two nets);
// two NIs of one net on it, two interface names, two addresses, or one address on two
// ports are refused. It reports whether NI j decided (shares the port or the address).
func (r *resolver) samePort(np string, i int, ni *NISpec, j int, o NISpec) bool {
	same := o.HCA == ni.HCA && o.Port == ni.Port
	sameAddr := !ni.NID.IsZero() && !o.NID.IsZero() && ni.NID.Addr == o.NID.Addr
	switch {
	case same && o.Net == ni.Net:
		r.errorAt(np, "give each NI of a net its own hca or port", "NI %d uses HCA %d port %d, like NI %d of the same net %s", i, ni.HCA, ni.Port, j, ni.Net)
	case same && o.Interface != ni.Interface:
		r.errorAt(np+".interface", "a port is one IPoIB interface", "HCA %d port %d is NI %d's interface %s, not %s", ni.HCA, ni.Port, j, o.Interface, ni.Interface)
	case same && !ni.NID.IsZero() && !o.NID.IsZero() && !sameAddr:
		r.errorAt(np+".nid", "NIs sharing an interface use its address", "interface %s has NI %d's address %s, not %s", ni.Interface, j, o.NID.Addr, ni.NID.Addr)
	case !same && sameAddr:
		r.errorAt(np, "one address is one interface: leave hca and port out to share its port", "address %s is NI %d's, on HCA %d port %d", ni.NID.Addr, j, o.HCA, o.Port)
	}
	return same || sameAddr
}

// assignNIDs builds the member list, giving each NI without a NID the next free address of
// its net: 10.<net number>.<n/256>.<n%256>, n counting from 1 in member order.
func (r *resolver) assignNIDs() {
	s := r.s
	// Given NIDs first, so automatic ones skip them.
	for _, g := range r.groups {
		ng := s.Nodes[g]
		for _, ni := range ng.NIs {
			if ni.NID.IsZero() || ni.Net == "" {
				continue
			}
			for k := 0; k < ng.Count; k++ {
				nid, ok := ni.NID.next(k)
				if !ok {
					r.errorAt(ni.srcPath+".nid", "", "group of %d runs past the end of the address space", ng.Count)
					break
				}
				m := memberName(g, k, ng.Count)
				if other, dup := r.nids[nid]; dup {
					r.errorAt(ni.srcPath+".nid", "", "NID %s is also used by %s", nid, other)
				}
				r.nids[nid] = m
			}
		}
	}
	next := map[string]uint32{}
	for _, g := range r.groups {
		ng := s.Nodes[g]
		for k := 0; k < ng.Count; k++ {
			m := Member{Name: memberName(g, k, ng.Count), Group: g, Index: k, Routing: ng.Routing}
			for _, ni := range ng.NIs {
				mni := MemberNI{Net: ni.Net, Interface: ni.Interface, HCA: ni.HCA, Port: ni.Port}
				switch {
				case ni.Net == "":
				case !ni.NID.IsZero():
					mni.NID, _ = ni.NID.next(k)
				case ni.shares > 0 && m.NIs[ni.shares-1].NID.Addr.IsValid():
					// another net on the same interface: the interface's address
					mni.NID = NID{Addr: m.NIs[ni.shares-1].NID.Addr, Net: ni.Net}
					r.nids[mni.NID] = m.Name
				default:
					_, num, _ := ParseNet(ni.Net)
					for next[ni.Net] < 65535 {
						next[ni.Net]++
						n := next[ni.Net]
						nid := NID{Addr: addr4(10, byte(num), byte(n>>8), byte(n)), Net: ni.Net}
						if n == 65535 {
							r.rootAt("nodes", "give NIDs explicitly", "more than 65534 NIs on net %s to number automatically", ni.Net)
							break
						}
						if _, used := r.nids[nid]; !used {
							r.nids[nid] = m.Name
							mni.NID = nid
							break
						}
					}
				}
				m.NIs = append(m.NIs, mni)
			}
			s.Members = append(s.Members, m)
		}
	}
}

// overlay replaces *src by a copy of *base in which only the fields written at path (in the
// file or by an override) keep src's values. base and src point to the same struct type.
func (r *resolver) overlay(base, src any, path string) {
	bv, sv := reflect.ValueOf(base).Elem(), reflect.ValueOf(src).Elem()
	si := fieldsOf(bv.Type())
	out := reflect.New(bv.Type()).Elem()
	out.Set(bv)
	for _, f := range si.fields {
		if r.d.has(join(path, f.name)) {
			out.FieldByIndex(f.index).Set(sv.FieldByIndex(f.index))
		}
	}
	sv.Set(out)
}

// resolveNI resolves an NI reference, reporting a located error when it names nothing.
func (r *resolver) resolveNI(path, ref string) (*Member, int, bool) {
	if ref == "" {
		return nil, 0, false
	}
	m, i, err := r.s.ResolveNI(ref)
	if err != nil {
		var re *refError
		if errors.As(err, &re) {
			r.errorAt(path, re.hint, "%s", re.msg)
		} else {
			r.errorAt(path, "", "%v", err)
		}
		return nil, 0, false
	}
	return m, i, true
}

// resolveNode resolves a member name.
//
// A name may also be <group>0 for the only node of a group of one (see Member); when name is
// a field of the scenario, canonicalNode rewrites it to the member's own name afterwards so
// that the runner compares names as they are.
func (r *resolver) resolveNode(path, name string) *Member {
	m := r.s.Member(name)
	if m == nil {
		r.errorAt(path, r.s.nodeHint(name), "no node named %q", name)
	}
	return m
}

// canonicalNode resolves the node named by *name and rewrites *name to the member's own name
// ("client0" for the only node of group client becomes "client").
func (r *resolver) canonicalNode(path string, name *string) *Member {
	m := r.resolveNode(path, *name)
	if m != nil {
		*name = m.Name
	}
	return m
}

// expandNames resolves group or member names to members (a group means all of its members).
func (r *resolver) expandNames(path string, names []string) []*Member {
	var out []*Member
	for i, n := range names {
		p := path
		if len(names) > 1 {
			p = index(path, i)
		}
		if ng, ok := r.s.Nodes[n]; ok {
			for k := 0; k < ng.Count; k++ {
				out = append(out, r.s.Member(memberName(n, k, ng.Count)))
			}
			continue
		}
		if m := r.resolveNode(p, n); m != nil {
			out = append(out, m)
			names[i] = m.Name // canonical, as canonicalNode
		}
	}
	return out
}

// checkTime reports a time beyond the run's duration.
func (r *resolver) checkTime(path string, t sim.Time) {
	if r.s.Duration > 0 && t > r.s.Duration {
		r.errorAt(path, "make the run longer or the time earlier", "%s is after the end of the run (duration %s)", t, r.s.Duration)
	}
}

// allowed reports fields written at path that the given kind does not use.
func (r *resolver) allowed(path, what string, ok map[string]bool) {
	for _, k := range r.d.keys[path] {
		if !ok[k] {
			r.errorAt(join(path, k), "remove it", "%s is not used by %s", k, what)
		}
	}
}

func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}
