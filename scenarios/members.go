package scenarios

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Member is one node of the cluster after groups are expanded: a group with count n gives
// members <group>0 .. <group>n-1, a count of 1 the group's own name. Load lists members in
// sorted group order, then by index.
type Member struct {
	Name    string     `json:"name"`
	Group   string     `json:"group"`
	Index   int        `json:"index"`
	Routing bool       `json:"routing"`
	NIs     []MemberNI `json:"nis"`
	// Global is the node's LNet global tunables.
	Global *Globals `json:"-"`
	// Routes and Peers configured on this node, gateways and NIDs resolved.
	Routes []ResolvedRoute `json:"routes,omitempty"`
	Peers  []ResolvedPeer  `json:"peers,omitempty"`
	// UDSP are the node's selection policies in the order they are added, node references
	// resolved to NIDs.
	UDSP []ResolvedUDSP `json:"udsp,omitempty"`
	// Interfaces are the node's interfaces that have IPv6 addresses, in the order written.
	Interfaces []MemberInterface `json:"interfaces,omitempty"`
}

// MemberInterface is an interface of a member with the IPv6 addresses it has (with their
// prefix lengths), this member's when its group counts them up.
type MemberInterface struct {
	Name string         `json:"name"`
	IPv6 []netip.Prefix `json:"ipv6"`
}

// ResolvedUDSP is one policy of a member: descriptors as lnetctl takes them, Priority -1 when
// not given, Idx -1 to append.
type ResolvedUDSP struct {
	Src      string `json:"src,omitempty"`
	Dst      string `json:"dst,omitempty"`
	Rte      string `json:"rte,omitempty"`
	Priority int64  `json:"priority"`
	Idx      int    `json:"idx"`
}

// MemberNI is one NI of a member with its NID assigned and its tunables resolved.
type MemberNI struct {
	NID       NID          `json:"nid"`
	Net       string       `json:"net"`
	Interface string       `json:"interface"`
	HCA       int          `json:"hca"`
	Port      int          `json:"port"`
	Tunables  *NetTunables `json:"-"`
	LND       *O2IBParams  `json:"-"`
}

// HostPorts is how many fabric ports member m's HCAs have cabled (tcp NIs are on Ethernet): each HCA it uses, up to
// the highest port one of its NIs uses (an NI on port 2 alone still cables port 1).
func (m *Member) HostPorts() int {
	ports := map[int]int{}
	for _, ni := range m.NIs {
		if IsTCPNet(ni.Net) {
			continue // on the Ethernet network, not the fabric
		}
		ports[ni.HCA] = max(ports[ni.HCA], ni.Port)
	}
	n := 0
	for _, p := range ports {
		n += p
	}
	return n
}

// ResolvedRoute is a route on a member with its gateway as a NID.
type ResolvedRoute struct {
	Net      string `json:"net"`
	Gateway  NID    `json:"gateway"`
	Hop      int    `json:"hop"`
	Priority int    `json:"priority"`
}

// ResolvedPeer is a configured peer with NIDs resolved.
type ResolvedPeer struct {
	PrimaryNID  NID   `json:"primary_nid"`
	MultiRail   bool  `json:"multi_rail"`
	NIDs        []NID `json:"nids"`
	LockPrimary bool  `json:"lock_prim"`
}

// Member returns the member with the given name, or nil. The only member of a group of one
// answers to both <group> and <group>0.
func (s *Scenario) Member(name string) *Member {
	if len(s.memberIndex) != len(s.Members) {
		s.memberIndex = make(map[string]int, len(s.Members))
		for i := range s.Members {
			s.memberIndex[s.Members[i].Name] = i
		}
	}
	if i, ok := s.memberIndex[name]; ok {
		return &s.Members[i]
	}
	// <group>0 also names the only node of a group of one, so references stay valid when a
	// sweep or --set changes a group's count.
	if g, ok := strings.CutSuffix(name, "0"); ok {
		if ng := s.Nodes[g]; ng != nil && ng.Count == 1 {
			if i, ok := s.memberIndex[g]; ok {
				return &s.Members[i]
			}
		}
	}
	return nil
}

// refError is a reference that names nothing, with a hint.
type refError struct{ msg, hint string }

// Error formats the message with its hint.
func (e *refError) Error() string {
	if e.hint == "" {
		return e.msg
	}
	return e.msg + " (" + e.hint + ")"
}

// ResolveNI resolves an NI reference as scenario files write them: "node:index" (the
// index-th NI of a member), "node" (its first NI) or a NID ("10.0.0.2@o2ib"). It returns the
// member and the NI's index.
func (s *Scenario) ResolveNI(ref string) (*Member, int, error) {
	if strings.Contains(ref, "@") {
		nid, err := ParseNID(ref)
		if err != nil {
			return nil, 0, err
		}
		for mi := range s.Members {
			for i, ni := range s.Members[mi].NIs {
				if ni.NID == nid {
					return &s.Members[mi], i, nil
				}
			}
		}
		return nil, 0, &refError{msg: fmt.Sprintf("no node has NID %s", nid)}
	}
	name, idx, hasIdx := strings.Cut(ref, ":")
	m := s.Member(name)
	if m == nil {
		return nil, 0, &refError{msg: fmt.Sprintf("no node named %q", name), hint: s.nodeHint(name)}
	}
	i := 0
	if hasIdx {
		v, err := strconv.Atoi(idx)
		if err != nil || v < 0 || v >= len(m.NIs) {
			return nil, 0, &refError{msg: fmt.Sprintf("no NI %q on node %s", idx, name), hint: fmt.Sprintf("%s has NIs 0 to %d", name, len(m.NIs)-1)}
		}
		i = v
	}
	if len(m.NIs) == 0 {
		// A node whose nis failed to resolve (reported there): "node" alone meant NI 0.
		return nil, 0, &refError{msg: fmt.Sprintf("node %s has no NIs", name)}
	}
	return m, i, nil
}

// Expand resolves node and group names (a group means all of its members, in index order)
// to members.
func (s *Scenario) Expand(names []string) ([]*Member, error) {
	var out []*Member
	for _, n := range names {
		if ng, ok := s.Nodes[n]; ok {
			for k := 0; k < ng.Count; k++ {
				if m := s.Member(memberName(n, k, ng.Count)); m != nil {
					out = append(out, m)
				}
			}
			continue
		}
		m := s.Member(n)
		if m == nil {
			return nil, &refError{msg: fmt.Sprintf("no node named %q", n), hint: s.nodeHint(n)}
		}
		out = append(out, m)
	}
	return out, nil
}

// nodeHint explains group member naming when name is a group of several nodes, or lists
// the first node names.
func (s *Scenario) nodeHint(name string) string {
	if ng, ok := s.Nodes[name]; ok && ng.Count > 1 {
		return fmt.Sprintf("%s is a group of %d; its nodes are %s to %s", name, ng.Count, memberName(name, 0, ng.Count), memberName(name, ng.Count-1, ng.Count))
	}
	var names []string
	for _, m := range s.Members {
		names = append(names, m.Name)
		if len(names) == 8 {
			names = append(names, "...")
			break
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "nodes are " + strings.Join(names, ", ")
}
