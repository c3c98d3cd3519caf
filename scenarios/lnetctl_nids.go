package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// maxNIDsPerPeer is LNET_MAX_NIDS_PER_PEER: what one lnetctl NID list may expand to.
const maxNIDsPerPeer = 128

// expandNIDList expands an lnetctl NID list as liblnetconfig's lustre_lnet_parse_nidstr does
// (cfs_parse_nidlist, cfs_expand_nidlist): NIDs separated by commas or blanks, each octet of
// an address a number or a bracketed list of numbers and ranges ("10.0.0.[2-6/2,9]@o2ib"),
// the loopback's address a plain number (0@lo, as libcfs_num_parse reads it). An asterisk is
// refused, as is a list of more than 128 NIDs. Each NID comes back canonical. An item
// without '@' is passed to ref (lnetsim's NI references, node:index).
func expandNIDList(s string, ref func(string) (string, error)) ([]string, error) {
	return expandNIDListHosts(s, ref, nil)
}

// hostResolver resolves a host name to the text of its IPv4 address, as lnetctl's NID
// parsers ask the system (gethostbyname, getaddrinfo), or reports that it does not resolve.
type hostResolver func(name string) (string, bool)

// unresolvedHost is the error for a NID whose address is a host name that does not resolve.
type unresolvedHost struct{ item, name string }

func (e *unresolvedHost) Error() string { return fmt.Sprintf("cannot parse NID '%s'", e.item) }

// expandNIDListHosts is expandNIDList for lnetctl ping and discover, whose NIDs may name a
// host instead of an address (HOST@tcp): with host not nil, an address part that starts with
// a letter and holds no range is resolved by it (libcfs_ip_str2addr), on a net whose
// addresses are IPv4 ones.
func expandNIDListHosts(s string, ref func(string) (string, error), host hostResolver) ([]string, error) {
	if strings.Contains(s, "*") {
		return nil, fmt.Errorf("asterisk not allowed in nidstring '%s'", s)
	}
	var out []string
	for _, item := range splitNIDList(s) {
		var nids []string
		var err error
		if strings.Contains(item, "@") {
			nids, err = expandNID(item, host)
		} else {
			var nid string
			nid, err = ref(item)
			nids = []string{nid}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, nids...)
		if len(out) > maxNIDsPerPeer {
			return nil, fmt.Errorf("'%s' specifies more than the %d NIDs allowed by this operation", s, maxNIDsPerPeer)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("'%s' did not expand to any nids", s)
	}
	return out, nil
}

// splitNIDList splits on commas and blanks outside brackets (a range list keeps its commas).
func splitNIDList(s string) []string {
	var out []string
	depth, start := 0, -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s) || (depth == 0 && (s[i] == ',' || s[i] == ' ' || s[i] == '\t'))
		switch {
		case sep:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		case s[i] == '[':
			depth++
		case s[i] == ']':
			depth--
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// expandNID expands one NID pattern whose address parts may be bracketed range lists.
func expandNID(item string, host hostResolver) ([]string, error) {
	addr, net, ok := strings.Cut(item, "@")
	if !ok {
		return nil, fmt.Errorf("unable to parse nidlist from: %s", item)
	}
	if host != nil && !numericNet(net) && addr != "" && !strings.Contains(addr, "[") &&
		('a' <= addr[0] && addr[0] <= 'z' || 'A' <= addr[0] && addr[0] <= 'Z') {
		ip, ok := host(addr)
		if !ok {
			return nil, &unresolvedHost{item: item, name: addr}
		}
		addr = ip
	}
	modelled := true
	if _, _, err := ParseNet(net); err != nil {
		// A net no node of the model runs (gni, kfi, ...) still names a peer's NIDs.
		n, err2 := lnet.ParseNet(net)
		if err2 != nil || n.Type() == lnet.O2IBLND || n.Type() == lnet.SOCKLND || n.Type() == lnet.LOLND {
			return nil, err
		}
		modelled = false
	}
	addrs, err := expandAddr(item, addr, net)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if !modelled {
			nid, err := lnet.ParseNID(a + "@" + net)
			if err != nil {
				return nil, err
			}
			out = append(out, nid.String())
			continue
		}
		nid, err := ParseNID(a + "@" + net)
		if err != nil {
			return nil, err
		}
		out = append(out, nid.String())
	}
	return out, nil
}

// expandAddr expands the address part of item (addr, on net) as the net's nf_parse_addrlist
// reads it: a dotted quad whose octets may be range lists (cfs_ip_addr_parse: tcp, o2ib,
// gip, efa), or one number or range list (libcfs_num_parse: lo, gni, ptlf, kfi, bxi3f; up to
// 2^32-1).
func expandAddr(item, addr, net string) ([]string, error) {
	if numericNet(net) {
		vals, err := numValues(addr, 0xffffffff)
		if err == errTooManyNIDs {
			return nil, fmt.Errorf("'%s' specifies more than the %d NIDs allowed by this operation", item, maxNIDsPerPeer)
		}
		if err != nil {
			if n, _, err2 := ParseNet(net); err2 == nil && n == "lo0" {
				return nil, fmt.Errorf("unable to parse nidlist from: %s (the loopback NID is 0@lo)", item)
			}
			return nil, fmt.Errorf("unable to parse nidlist from: %s (%v)", item, err)
		}
		addrs := make([]string, 0, len(vals))
		for _, v := range vals {
			addrs = append(addrs, strconv.Itoa(v))
		}
		return addrs, nil
	}
	octets := strings.Split(addr, ".")
	if len(octets) != 4 {
		return nil, fmt.Errorf("unable to parse nidlist from: %s", item)
	}
	addrs := []string{""}
	for i, o := range octets {
		vals, err := numValues(o, 255)
		if err != nil {
			return nil, fmt.Errorf("unable to parse nidlist from: %s (%v)", item, err)
		}
		var next []string
		for _, a := range addrs {
			for _, v := range vals {
				if i > 0 {
					next = append(next, a+"."+strconv.Itoa(v))
				} else {
					next = append(next, strconv.Itoa(v))
				}
				if len(next) > maxNIDsPerPeer {
					return nil, fmt.Errorf("'%s' specifies more than the %d NIDs allowed by this operation", item, maxNIDsPerPeer)
				}
			}
		}
		addrs = next
	}
	return addrs, nil
}

// numericNet reports whether a NID on net has a number for its address (libcfs_num_parse).
func numericNet(net string) bool {
	n, err := lnet.ParseNet(net)
	return err == nil && !n.Type().IPAddressed()
}

// errTooManyNIDs: a numeric address list longer than one operation may take.
var errTooManyNIDs = errors.New("too many NIDs")

// numValues reads one address octet or number up to max: N, or [a-b/step,c,...]. A list of
// numbers (max above 255) longer than maxNIDsPerPeer is refused as it is read, with
// errTooManyNIDs: a numeric range may span 2^32 values.
func numValues(o string, max int) ([]int, error) {
	if !strings.HasPrefix(o, "[") {
		v, err := addrNum(o, max)
		return []int{v}, err
	}
	if !strings.HasSuffix(o, "]") {
		return nil, fmt.Errorf("unclosed [ in %q", o)
	}
	var vals []int
	for _, part := range strings.Split(o[1:len(o)-1], ",") {
		lo, hi, step, err := numRange(part, max)
		if err != nil {
			return nil, err
		}
		for v := lo; v <= hi; v += step {
			if len(vals) == maxNIDsPerPeer && max > 255 {
				return nil, errTooManyNIDs
			}
			vals = append(vals, v)
		}
	}
	return vals, nil
}

// numRange reads a-b/step, a-b or a, each number up to max.
func numRange(part string, max int) (lo, hi, step int, err error) {
	rng, st, hasStep := strings.Cut(part, "/")
	step = 1
	if hasStep {
		if step, err = strconv.Atoi(st); err != nil || step < 1 {
			return 0, 0, 0, fmt.Errorf("bad step %q", st)
		}
	}
	a, b, isRange := strings.Cut(rng, "-")
	if lo, err = addrNum(a, max); err != nil {
		return 0, 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = addrNum(b, max); err != nil {
			return 0, 0, 0, err
		}
	}
	if hi < lo {
		return 0, 0, 0, fmt.Errorf("range %s runs backwards", rng)
	}
	return lo, hi, step, nil
}

// addrNum reads a decimal number from 0 to max: an address octet (max 255) or a numeric
// address.
func addrNum(s string, max int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > max || s == "" || s[0] == '+' || s[0] == '-' {
		if max == 255 {
			return 0, fmt.Errorf("%q is not an address octet (0 to 255)", s)
		}
		return 0, fmt.Errorf("%q is not a number from 0 to %d", s, max)
	}
	return v, nil
}
