package lnet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// User Defined Selection Policies (UDSP, lnet/lnet/udsp.c). A rule matches local nets/NIs
// (src), peer nets/NIs (dst) and gateways (rte) by NID descriptors, and sets the selection
// priorities or preferred lists that lnet_select_pathway, lnet_get_best_ni,
// lnet_select_peer_ni and lnet_find_route_locked consult:
//
//	src only           priority of local nets (net rule) or local NIs (ni/net_sel_priority)
//	dst only           priority of peer nets (net rule) or peer NIs (lpn/lpni_sel_priority)
//	dst + src          preferred local NIs of matching peer NIs (lpni_pref)
//	dst + rte          preferred gateways of matching peer NIs (lpni_rtr_pref_nids)
//
// Priorities: lower is preferred; an unset priority is UINT_MAX.

// UDSP action types (enum lnet_udsp_action_type).
const (
	udspActionPriority = iota // EN_LNET_UDSP_ACTION_PRIORITY
	udspActionPref            // EN_LNET_UDSP_ACTION_PREFERRED_LIST
)

// numRange is one range of a cfs_expr_list: lo..hi every stride.
type numRange struct{ lo, hi, stride uint32 }

// exprList is a cfs_expr_list: a value matches if some range holds it.
type exprList []numRange

func (l exprList) match(v uint32) bool {
	for _, r := range l {
		if v >= r.lo && v <= r.hi && (v-r.lo)%r.stride == 0 {
			return true
		}
	}
	return false
}

// parseExprList reads one number expression as cfs_expr_list_parse does: a number, "*"
// (any), or "[a,b-c,d-e/s]" (lists of values and ranges with an optional stride).
func parseExprList(s string, max uint32) (exprList, error) {
	if s == "*" {
		return exprList{{0, max, 1}}, nil
	}
	if !strings.HasPrefix(s, "[") {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil || uint32(v) > max {
			return nil, fmt.Errorf("bad number %q", s)
		}
		return exprList{{uint32(v), uint32(v), 1}}, nil
	}
	if !strings.HasSuffix(s, "]") || len(s) < 3 {
		return nil, fmt.Errorf("bad range expression %q (want [a-b,c])", s)
	}
	var out exprList
	for _, part := range strings.Split(s[1:len(s)-1], ",") {
		r := numRange{stride: 1}
		body, stride, hasStride := strings.Cut(part, "/")
		if hasStride {
			v, err := strconv.ParseUint(stride, 10, 32)
			if err != nil || v == 0 {
				return nil, fmt.Errorf("bad stride in %q", s)
			}
			r.stride = uint32(v)
		}
		lo, hi, isRange := strings.Cut(body, "-")
		if !isRange {
			hi = lo
		}
		l, err1 := strconv.ParseUint(lo, 10, 32)
		h, err2 := strconv.ParseUint(hi, 10, 32)
		if err1 != nil || err2 != nil || l > h || uint32(h) > max {
			return nil, fmt.Errorf("bad range %q in %q", part, s)
		}
		r.lo, r.hi = uint32(l), uint32(h)
		out = append(out, r)
	}
	return out, nil
}

// UDSPDescr is a UDSP NID descriptor (struct lnet_ud_nid_descr), parsed from the ip2nets-like
// syntax lnetctl accepts (cfs_parse_nid_parts): a net ("o2ib", "o2ib1", "o2ib[1-3]") or an
// address range on a net ("10.1.0.[2-5]@o2ib1", "10.1.*.*@o2ib1", "*.*.*.*@o2ib1"; an IP
// address has four parts, so lnetctl refuses "*@o2ib1", while "*@lo" is a number range).
// The zero value is an absent descriptor.
type UDSPDescr struct {
	text    string
	lnd     LNDType
	netNums exprList   // empty: only net number 0 matches (cfs_match_net)
	addr    []exprList // nil: a net rule; otherwise 4 octets (IPv4) or 1 number
}

// ParseUDSPDescr reads a UDSP NID descriptor; "" is an absent one.
func ParseUDSPDescr(s string) (UDSPDescr, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return UDSPDescr{}, nil
	}
	d := UDSPDescr{text: s}
	netPart := s
	addrPart, hasAddr := "", false
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		addrPart, netPart, hasAddr = s[:at], s[at+1:], true
	}
	name := ""
	for _, l := range lndNames {
		if strings.HasPrefix(netPart, l.name) && len(l.name) > len(name) {
			d.lnd, name = l.t, l.name
		}
	}
	if name == "" {
		return UDSPDescr{}, fmt.Errorf("%q: unknown network type in %q (want o2ib, tcp or lo; also gni, gip, ptlf, kfi, efa or bxi3f)", s, netPart)
	}
	num := netPart[len(name):]
	if num != "" {
		l, err := parseExprList(num, 0xffff)
		if err != nil {
			return UDSPDescr{}, fmt.Errorf("%q: network number: %v", s, err)
		}
		d.netNums = l
	}
	if !hasAddr {
		return d, nil
	}
	ipv4 := d.lnd.IPAddressed()
	switch {
	case ipv4: // cfs_ip_addr_parse: four parts, so "*@o2ib" is refused ("*.*.*.*@o2ib" is not)
		parts := strings.Split(addrPart, ".")
		if len(parts) != 4 {
			return UDSPDescr{}, fmt.Errorf("%q: address is not four dot-separated parts", s)
		}
		for _, p := range parts {
			l, err := parseExprList(p, 255)
			if err != nil {
				return UDSPDescr{}, fmt.Errorf("%q: address: %v", s, err)
			}
			d.addr = append(d.addr, l)
		}
	default:
		l, err := parseExprList(addrPart, ^uint32(0))
		if err != nil {
			return UDSPDescr{}, fmt.Errorf("%q: address: %v", s, err)
		}
		d.addr = []exprList{l}
	}
	return d, nil
}

// String returns the descriptor as written.
func (d UDSPDescr) String() string { return d.text }

// Shown returns the descriptor as lnetctl's udsp show prints it, rebuilt from the kernel's
// copy (lustre_lnet_nid_descr2str): the address expressions (cfs_expr2str), "@" if there
// are any, the net type's name, then the net number expressions; "" for an absent one.
// The rebuild is not always the text given: "o2ib01" shows as "o2ib1", "*@o2ib" as
// "[0-255].[0-255].[0-255].[0-255]@o2ib", and an expression listing single values, such
// as "o2ib[0,2]", as lnetctl joins them ("o2ib0.2").
func (d UDSPDescr) Shown() string {
	if !d.present() {
		return ""
	}
	var b strings.Builder
	exprsToString(&b, d.addr)
	if b.Len() > 0 {
		b.WriteByte('@')
	}
	b.WriteString(d.lnd.String())
	if len(d.netNums) > 0 {
		exprsToString(&b, []exprList{d.netNums})
	}
	return b.String()
}

// exprsToString appends lists as cfs_expr2str writes them: each single value followed by
// ".", a range as "[lo-hi," (or "lo-hi," after the first of its list, "/stride" when above
// 1), a list that held a range closed with "]." over its last ",", and the final "." dropped.
func exprsToString(b *strings.Builder, lists []exprList) {
	if len(lists) == 0 {
		return
	}
	start := b.Len()
	for _, l := range lists {
		bracket := false
		for i, r := range l {
			switch {
			case r.lo == r.hi:
				fmt.Fprintf(b, "%d.", r.lo)
			default:
				if i == 0 {
					b.WriteByte('[')
				}
				fmt.Fprintf(b, "%d-%d", r.lo, r.hi)
				if r.stride > 1 {
					fmt.Fprintf(b, "/%d", r.stride)
				}
				b.WriteByte(',')
				bracket = true
			}
		}
		if bracket { // the last character becomes "]" and a "." follows
			str := b.String()
			b.Reset()
			b.WriteString(str[:len(str)-1])
			b.WriteString("].")
		}
	}
	if b.Len() > start {
		str := b.String()
		b.Reset()
		b.WriteString(str[:len(str)-1])
	}
}

// present is lnet_udsp_criteria_present.
func (d UDSPDescr) present() bool { return d.text != "" }

// isNetRule is lnet_udsp_is_net_rule: no address range.
func (d UDSPDescr) isNetRule() bool { return d.addr == nil }

// matchNet models cfs_match_net: same LND type, and the net number in the list (an empty list
// matches net number 0 only).
func (d UDSPDescr) matchNet(net NetID) bool {
	if !d.present() || net.Type() != d.lnd {
		return false
	}
	if len(d.netNums) == 0 {
		return net.Num() == 0
	}
	return d.netNums.match(uint32(net.Num()))
}

// matchNID models cfs_match_nid_net: a net rule never matches a NID; otherwise the address
// and the net must match.
func (d UDSPDescr) matchNID(nid NID) bool {
	if d.addr == nil || !d.matchNet(nid.Net()) {
		return false
	}
	a := nid.Addr()
	if len(d.addr) == 4 {
		return d.addr[0].match(a>>24) && d.addr[1].match(a>>16&0xff) && d.addr[2].match(a>>8&0xff) && d.addr[3].match(a&0xff)
	}
	return d.addr[0].match(a)
}

// UDSPSpec is one `lnetctl udsp add --src S --dst D --rte R --priority P` (Priority < 0: no
// --priority given).
type UDSPSpec struct {
	Src, Dst, Rte string
	Priority      int64
}

// Validate checks a spec as AddUDSP does (descriptor syntax and rule combinations).
func (s UDSPSpec) Validate() error {
	_, err := parseUDSP(s)
	return err
}

// udsp is one policy (struct lnet_udsp).
type udsp struct {
	src, dst, rte UDSPDescr
	action        int
	priority      uint32
}

func (u *udsp) sameMatch(o *udsp) bool {
	return u.src.text == o.src.text && u.dst.text == o.dst.text && u.rte.text == o.rte.text
}

// parseUDSP validates a spec as lustre_lnet_add_udsp and the kernel's
// lnet_udsp_apply_single_policy do: at least one of src, dst, rte; not src with rte; rte only
// with dst; a priority only for a src-only or dst-only rule, which gets priority 0 when none
// is given; the pair (dst+src) and router (dst+rte) rules are preferred lists. The kernel
// accepts an rte-only rule or a pair/router rule with --priority into its list and then
// ignores it (CERROR "Bad UDSP policy" / "Bad action type"); the model refuses them.
func parseUDSP(s UDSPSpec) (*udsp, error) {
	var u udsp
	var err error
	if u.src, err = ParseUDSPDescr(s.Src); err != nil {
		return nil, fmt.Errorf("udsp src: %v", err)
	}
	if u.dst, err = ParseUDSPDescr(s.Dst); err != nil {
		return nil, fmt.Errorf("udsp dst: %v", err)
	}
	if u.rte, err = ParseUDSPDescr(s.Rte); err != nil {
		return nil, fmt.Errorf("udsp rte: %v", err)
	}
	src, dst, rte := u.src.present(), u.dst.present(), u.rte.present()
	switch {
	case !src && !dst && !rte:
		return nil, fmt.Errorf("udsp: give src, dst or rte")
	case src && rte:
		return nil, fmt.Errorf("udsp: src and rte cannot be combined")
	case rte && !dst:
		return nil, fmt.Errorf("udsp: rte needs dst (the peers that prefer the routers)")
	case s.Priority > int64(^uint32(0)-1):
		return nil, fmt.Errorf("udsp: priority %d out of range", s.Priority)
	}
	if !rte && src != dst { // src-only or dst-only: a priority rule
		u.action = udspActionPriority
		u.priority = uint32(max(s.Priority, 0))
		return &u, nil
	}
	if s.Priority >= 0 {
		return nil, fmt.Errorf("udsp: a priority applies to a src-only or dst-only rule, not to a preferred-%s list", map[bool]string{true: "router", false: "NI"}[rte])
	}
	u.action = udspActionPref
	return &u, nil
}

// AddUDSP adds a policy at index idx (-1 or past the end: appended) and applies every policy
// to the node's nets, NIs, peer nets and peer NIs as IOC_LIBCFS_ADD_UDSP does
// (lnet_udsp_add_policy, then lnet_udsp_apply_policies(NULL)): policies are applied from the
// last to the first, so the first matching rule wins. A rule whose src, dst and rte equal an
// existing one's updates that one's priority (both priority rules) or is refused
// (-EALREADY). Net-only dst rules reach only peer nets that exist now: a peer NI created
// later gets only the rules that name NIDs (lnet_udsp_apply_policies_on_lpni runs without a
// peer net), and a new peer net only the net priority rules (..._on_lpn).
func (n *Node) AddUDSP(spec UDSPSpec, idx int) error {
	u, err := parseUDSP(spec)
	if err != nil {
		return err
	}
	for _, o := range n.udsps {
		if o.sameMatch(u) {
			if o.action == udspActionPriority && u.action == udspActionPriority && o.priority != u.priority {
				o.priority = u.priority
				n.applyUDSPs()
				return nil
			}
			return fmt.Errorf("udsp: an equal policy exists")
		}
	}
	if idx < 0 || idx >= len(n.udsps) {
		n.udsps = append(n.udsps, u)
	} else {
		n.udsps = slices.Insert(n.udsps, idx, u)
	}
	n.applyUDSPs()
	return nil
}

// DelUDSP deletes the policy at idx (lnet_udsp_del_policy), or every policy with idx -1
// (lnet_udsp_destroy): each removed policy is reverted (priorities of what it matches back
// to UINT_MAX, the preferred lists it set cleared); the remaining policies are not
// re-applied, as in the kernel.
func (n *Node) DelUDSP(idx int) error {
	if idx < 0 {
		all := n.udsps
		n.udsps = nil
		for _, u := range all {
			n.applyUDSP(u, true)
		}
		return nil
	}
	if idx >= len(n.udsps) {
		return fmt.Errorf("udsp: no policy at index %d", idx)
	}
	u := n.udsps[idx]
	n.udsps = slices.Delete(n.udsps, idx, idx+1)
	n.applyUDSP(u, true)
	return nil
}

// UDSPShow is one policy as `lnetctl udsp show` prints it.
type UDSPShow struct {
	Idx    int            `yaml:"idx"`
	Src    string         `yaml:"src,omitempty"`
	Dst    string         `yaml:"dst,omitempty"`
	Rte    string         `yaml:"rte,omitempty"`
	Action map[string]int `yaml:"action,omitempty"` // {priority: N} for a priority rule
}

// UDSPs returns the policies in `lnetctl udsp show` shape.
func (n *Node) UDSPs() []UDSPShow {
	out := make([]UDSPShow, 0, len(n.udsps))
	for i, u := range n.udsps {
		s := UDSPShow{Idx: i, Src: u.src.Shown(), Dst: u.dst.Shown(), Rte: u.rte.Shown()}
		if u.action == udspActionPriority {
			s.Action = map[string]int{"priority": int(u.priority)}
		}
		out = append(out, s)
	}
	return out
}

// UDSPInfo is the `udsp info` block lnetctl prints under a local NI (`net show -v 4`) or a peer
// NI (`peer show -v 4`); priorities are -1 when unset (UINT_MAX).
type UDSPInfo struct {
	NetPriority  int64    `yaml:"net priority"`
	NIDPriority  int64    `yaml:"nid priority"`
	PreferredNID []string `yaml:"Preferred NIDs,omitempty"`         // peer NI: lpni_pref
	PreferredGW  []string `yaml:"Preferred gateway NIDs,omitempty"` // peer NI: lpni_rtr_pref_nids
}

// UDSPInfo returns the UDSP state of the local NI or peer NI nid
// (lnet_udsp_get_construct_info); false if the node knows neither.
func (n *Node) UDSPInfo(nid NID) (UDSPInfo, bool) {
	prio := func(v uint32) int64 {
		if v == ^uint32(0) {
			return -1
		}
		return int64(v)
	}
	if ni := n.niByNID.get(nid); ni != nil {
		return UDSPInfo{NetPriority: prio(ni.net.SelPriority), NIDPriority: prio(ni.SelPriority)}, true
	}
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return UDSPInfo{}, false
	}
	in := UDSPInfo{NetPriority: prio(lpni.pnet.SelPriority), NIDPriority: prio(lpni.SelPriority)}
	for _, x := range lpni.prefNIDs {
		in.PreferredNID = append(in.PreferredNID, x.String())
	}
	for _, x := range lpni.rtrPref {
		in.PreferredGW = append(in.PreferredGW, x.String())
	}
	return in, true
}

// applyUDSPs is lnet_udsp_apply_policies(NULL, false): every policy, last to first.
func (n *Node) applyUDSPs() {
	for i := len(n.udsps) - 1; i >= 0; i-- {
		n.applyUDSP(n.udsps[i], false)
	}
}

// udspPrio is the priority a rule sets, UINT_MAX when reverting.
func udspPrio(u *udsp, revert bool) uint32 {
	if revert {
		return ^uint32(0)
	}
	return u.priority
}

// applyUDSP models lnet_udsp_apply_single_policy over every construct (the callbacks of
// lnet_udsp_apply_policies): dst rules walk the peers' nets of the dst's LND type (a net
// priority rule sets the peer net's priority, lnet_udsp_apply_rule_on_lpn; otherwise each
// peer NI, lnet_udsp_apply_rule_on_lpni); src priority rules walk the local nets of the
// src's type (a net rule sets the net's priority, otherwise each matching NI's).
func (n *Node) applyUDSP(u *udsp, revert bool) {
	if !u.dst.present() {
		for _, net := range n.nets {
			if net.ID.Type() != u.src.lnd {
				continue
			}
			if u.src.isNetRule() {
				if u.src.matchNet(net.ID) {
					net.SelPriority = udspPrio(u, revert)
				}
				continue
			}
			for _, ni := range net.nis {
				n.udspOnNI(u, ni, revert)
			}
		}
		return
	}
	for _, p := range n.peers {
		for _, lpn := range p.nets {
			if lpn.id.Type() != u.dst.lnd {
				continue
			}
			if u.action == udspActionPriority && u.dst.isNetRule() {
				if u.dst.matchNet(lpn.id) {
					lpn.SelPriority = udspPrio(u, revert)
				}
				continue
			}
			for _, lpni := range lpn.nis {
				n.udspOnLPNI(u, lpni, lpn, revert)
			}
		}
	}
}

// udspOnNI models lnet_udsp_apply_rule_on_ni: a src NID rule sets a matching NI's priority.
func (n *Node) udspOnNI(u *udsp, ni *NI, revert bool) {
	if u.src.matchNID(ni.nid) {
		ni.SelPriority = udspPrio(u, revert)
	}
}

// udspOnLPNI models lnet_udsp_apply_rule_on_lpni: the peer NI must match dst by NID, or (lpn
// given and dst a net rule) by its peer net; then a pair rule sets its preferred local NIs, a
// router rule its preferred gateways, a priority rule its priority.
func (n *Node) udspOnLPNI(u *udsp, lpni *PeerNI, lpn *PeerNet, revert bool) {
	if !u.dst.matchNID(lpni.nid) && (lpn == nil || !u.dst.isNetRule() || !u.dst.matchNet(lpn.id)) {
		return
	}
	switch {
	case u.action == udspActionPref && u.src.present():
		n.udspNIList(u, lpni, revert)
	case u.action == udspActionPref:
		n.udspRteList(u, lpni, revert)
	default:
		lpni.SelPriority = udspPrio(u, revert)
	}
}

// udspNIList models lnet_udsp_apply_ni_list: the local NIs matching src become the peer NI's
// preferred NIs (the list is cleared at the first match; reverting only clears it). A non-MR
// peer NI keeps one preferred NI (lnet_peer_add_pref_nid refuses a second, -EPERM).
func (n *Node) udspNIList(u *udsp, lpni *PeerNI, revert bool) {
	cleared := false
	for _, net := range n.nets {
		if net.ID.Type() != u.src.lnd {
			continue
		}
		for _, ni := range net.nis {
			if !u.src.matchNID(ni.nid) {
				continue
			}
			if !cleared || revert {
				lpni.prefNIDs, lpni.nonMRPref = nil, false
				cleared = true
				if revert {
					continue
				}
			}
			if lpni.isPreferred(ni.nid) {
				continue
			}
			if len(lpni.prefNIDs) > 0 && !lpni.peer.mr {
				return
			}
			lpni.prefNIDs = append(lpni.prefNIDs, ni.nid)
		}
	}
}

// udspRteList models lnet_udsp_apply_rte_list_on_lpni: every route whose gateway's primary
// NID matches rte puts that NID on the peer NI's preferred-gateway list (cleared at the first
// match; reverting only clears it). New entries go first (list_add).
func (n *Node) udspRteList(u *udsp, lpni *PeerNI, revert bool) {
	cleared := false
	for _, rn := range n.remoteNets {
		for _, r := range rn.routes {
			gw := r.gw.primary
			if !u.rte.matchNID(gw) {
				continue
			}
			if !cleared || revert {
				lpni.rtrPref = nil
				cleared = true
				if revert {
					continue
				}
			}
			if !slices.Contains(lpni.rtrPref, gw) {
				lpni.rtrPref = slices.Insert(lpni.rtrPref, 0, gw)
			}
		}
	}
}

// udspOnNewNet models lnet_udsp_apply_policies_on_net and _on_ni for a net and NI being
// added: src net priority rules, then src NID rules.
func (n *Node) udspOnNewNI(ni *NI, newNet bool) {
	for i := len(n.udsps) - 1; i >= 0; i-- {
		u := n.udsps[i]
		if u.dst.present() || !u.src.present() {
			continue
		}
		if u.src.isNetRule() {
			if newNet && u.src.matchNet(ni.net.ID) {
				ni.net.SelPriority = u.priority
			}
			continue
		}
		n.udspOnNI(u, ni, false)
	}
}

// udspOnNewPeerNI models the UDSP step of lnet_peer_attach_peer_ni: on a new peer net the net
// priority rules (lnet_udsp_apply_policies_on_lpn); on the new peer NI the dst rules that match
// its NID (lnet_udsp_apply_policies_on_lpni, without a peer net: net-only rules do not apply).
func (n *Node) udspOnNewPeerNI(lpni *PeerNI, newNet bool) {
	for i := len(n.udsps) - 1; i >= 0; i-- {
		u := n.udsps[i]
		if !u.dst.present() {
			continue
		}
		if u.action == udspActionPriority && u.dst.isNetRule() {
			if newNet && u.dst.matchNet(lpni.pnet.id) {
				lpni.pnet.SelPriority = u.priority
			}
			continue
		}
		n.udspOnLPNI(u, lpni, nil, false)
	}
}

// prefersRouter models lnet_peer_is_pref_rtr_locked: whether the gateway's primary NID is on
// the destination peer NI's preferred-gateway list.
func (lpni *PeerNI) prefersRouter(gw NID) bool {
	return lpni != nil && slices.Contains(lpni.rtrPref, gw)
}
