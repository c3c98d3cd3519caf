package scenarios

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

// Member returns the member with the given name, or nil.
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
	return nil
}
