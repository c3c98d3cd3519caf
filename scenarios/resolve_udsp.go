package scenarios

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// udspConfig resolves the selection policies: lnet.udsp (on its nodes, default every node),
// then each node's own from its lnetctl export's udsp section, in order.
func (r *resolver) udspConfig() {
	s := r.s
	for i, u := range s.LNet.UDSP {
		p := index("lnet.udsp", i)
		targets := r.nodesOrAll(p+".nodes", u.Nodes)
		r.addUDSP(p, u, targets)
	}
	for _, g := range r.groups {
		ng := s.Nodes[g]
		if ng.Lnetctl == nil {
			continue
		}
		var members []*Member
		for k := 0; k < ng.Count; k++ {
			members = append(members, s.Member(memberName(g, k, ng.Count)))
		}
		for i, lu := range ng.Lnetctl.UDSP {
			u := UDSP{Src: lu.Src, Dst: lu.Dst, Rte: lu.Rte, Priority: -1, Idx: lu.Idx}
			if lu.Action != nil {
				u.Priority = lu.Action.Priority
			}
			r.addUDSP(index(join("nodes", g)+".lnetctl.udsp", i), u, members)
		}
	}
}

// addUDSP checks one policy and adds it, references resolved, to each target member.
func (r *resolver) addUDSP(p string, u UDSP, targets []*Member) {
	if u.Idx < -1 {
		r.errorAt(p+".idx", "", "must be -1 (append) or an index from 0")
		return
	}
	if u.Priority < -1 {
		r.errorAt(p+".priority", "0 is the highest priority", "must not be negative")
		return
	}
	for _, m := range targets {
		if m == nil {
			continue
		}
		ru := ResolvedUDSP{Priority: u.Priority, Idx: u.Idx}
		var ok bool
		if ru.Src, ok = r.udspDescr(p+".src", u.Src, m, false); !ok {
			return
		}
		if ru.Dst, ok = r.udspDescr(p+".dst", u.Dst, m, false); !ok {
			return
		}
		if ru.Rte, ok = r.udspDescr(p+".rte", u.Rte, m, true); !ok {
			return
		}
		spec := lnet.UDSPSpec{Src: ru.Src, Dst: ru.Dst, Rte: ru.Rte, Priority: ru.Priority}
		if err := spec.Validate(); err != nil {
			r.errorAt(p, "", "%v", strings.TrimPrefix(err.Error(), "udsp: "))
			return
		}
		prio := ru.Rte == "" && (ru.Src == "") != (ru.Dst == "")
		for _, o := range m.UDSP {
			oprio := o.Rte == "" && (o.Src == "") != (o.Dst == "")
			if o.Src == ru.Src && o.Dst == ru.Dst && o.Rte == ru.Rte && !(prio && oprio) {
				r.errorAt(p, "remove one of them", "%s already has this rule", m.Name)
				return
			}
		}
		m.UDSP = append(m.UDSP, ru)
	}
}

// udspDescr resolves one UDSP descriptor field for member m: a NID range or a net is kept
// as written (checked), a node reference becomes a NID (for rte, a router's name means its
// NI on a net m has, as a route's gateway does).
func (r *resolver) udspDescr(p, v string, m *Member, rte bool) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", true
	}
	name, _, _ := strings.Cut(v, ":")
	if !strings.Contains(v, "@") && (r.s.Member(name) != nil || r.s.Nodes[name] != nil) {
		if rte {
			nid, ok := r.gatewayNID(p, v, m)
			return nid.String(), ok
		}
		pm, i, ok := r.resolveNI(p, v)
		if !ok {
			return "", false
		}
		return pm.NIs[i].NID.String(), true
	}
	if _, err := lnet.ParseUDSPDescr(v); err != nil {
		r.errorAt(p, "write a net (o2ib1, o2ib[1-2]), a NID range (10.1.0.[2-5]@o2ib1, *@o2ib1) or a node reference", "%v", err)
		return "", false
	}
	return v, true
}

// nodesOrAll resolves a rule's nodes list (node and group names, located at path), or, when
// the list is empty, returns every member: peers and UDSP rules apply to all nodes by default.
func (r *resolver) nodesOrAll(path string, names []string) []*Member {
	if len(names) > 0 {
		return r.expandNames(path, names)
	}
	all := make([]*Member, len(r.s.Members))
	for mi := range r.s.Members {
		all[mi] = &r.s.Members[mi]
	}
	return all
}
