// Package ippattern reads the address patterns of ip2nets rules and matches interface
// addresses against them. An IPv4 pattern is libcfs's cfs_ip_addr_parse: four expressions
// separated by dots, each `*`, a number, or a bracketed comma list of numbers, ranges `a-b`
// and stepped ranges `a-b/c` (`10.0.[1-3,7].*`, `192.168.0.[2-20/2]`), numbers read as strtoul
// reads them with base 0 (decimal, 0x hex, leading-0 octal) from 0 to 255, blanks around each
// part ignored. An IPv6 pattern (lnetctl's ip2nets import from 2.17, LU-19444, when the text
// holds a colon) is an address with an optional prefix length 1..128 (`2001:db8::1`,
// `2001:db8::/64`); without one it is that single address.
package ippattern

import (
	"fmt"
	"net/netip"
	"strings"
)

// rangeExpr is one struct cfs_range_expr: lo..hi in steps of stride.
type rangeExpr struct{ lo, hi, stride uint32 }

// exprList is one struct cfs_expr_list: a value matches when any of its ranges does.
type exprList []rangeExpr

// match is cfs_expr_list_match.
func (l exprList) match(v uint32) bool {
	for _, e := range l {
		if v >= e.lo && v <= e.hi && (v-e.lo)%e.stride == 0 {
			return true
		}
	}
	return false
}

// Pattern is one parsed pattern: four octet lists (IPv4) or a prefix (IPv6).
type Pattern struct {
	text   string
	octets [4]exprList
	v6     netip.Prefix
	isV6   bool
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.text }

// IPv6 reports whether the pattern is an IPv6 one.
func (p Pattern) IPv6() bool { return p.isV6 }

// Match reports whether address a matches: an IPv4 address each octet against its list
// (cfs_ip_addr_match), an IPv6 one its leading prefix bits (lustre_lnet_match_ipv6_netmask).
// A pattern of one family never matches an address of the other.
func (p Pattern) Match(a netip.Addr) bool {
	switch {
	case p.isV6:
		return a.Is6() && p.v6.Contains(a)
	case !a.Is4():
		return false
	}
	b := a.As4()
	for i, l := range p.octets {
		if !l.match(uint32(b[i])) {
			return false
		}
	}
	return true
}

// Parse reads an IPv4 pattern (cfs_ip_addr_parse) or, when ipv6 is true and the text holds a
// colon, an IPv6 one (lustre_lnet_add_ip_range of 2.17+). A stepped range with step 0, which
// cfs_expr_list_match would divide by, is refused.
func Parse(s string, ipv6 bool) (Pattern, error) {
	p := Pattern{text: s}
	if ipv6 && strings.Contains(s, ":") {
		addr, plen, hasLen := strings.Cut(s, "/")
		n := uint64(128)
		if hasLen {
			v, ok := strtoul(plen)
			if !ok || v < 1 || v > 128 {
				return Pattern{}, fmt.Errorf("bad IPv6 prefix length %q in %q (1 to 128)", plen, s)
			}
			n = v
		}
		a, err := netip.ParseAddr(addr)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return Pattern{}, fmt.Errorf("bad IPv6 address %q in %q", addr, s)
		}
		p.isV6, p.v6 = true, netip.PrefixFrom(a, int(n)).Masked()
		return p, nil
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return Pattern{}, fmt.Errorf("%q is not four dot-separated parts (e.g. 10.0.0.*, 192.168.[0-3].[1-254/2])", s)
	}
	for i, part := range parts {
		l, err := parseExprList(strings.Trim(part, blanks), 255)
		if err != nil {
			return Pattern{}, fmt.Errorf("%q: part %d %q: %v", s, i+1, part, err)
		}
		p.octets[i] = l
	}
	return p, nil
}

// blanks are isspace's characters.
const blanks = " \t\n\v\f\r"

// parseExprList is cfs_expr_list_parse from 0 to max on a trimmed, non-empty token: a
// bracketed comma list of range expressions, or one number or `*`.
func parseExprList(s string, max uint32) (exprList, error) {
	if s == "" {
		return nil, fmt.Errorf("empty")
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		var out exprList
		for _, tok := range strings.Split(s[1:len(s)-1], ",") {
			tok = strings.Trim(tok, blanks)
			if tok == "" {
				return nil, fmt.Errorf("empty item in %s", s)
			}
			e, err := parseRange(tok, max, true)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	e, err := parseRange(s, max, false)
	if err != nil {
		return nil, err
	}
	return exprList{e}, nil
}

// parseRange is cfs_range_expr_parse: `*`, a number, and in brackets `a-b` or `a-b/c`.
func parseRange(s string, max uint32, bracketed bool) (rangeExpr, error) {
	if s == "*" {
		return rangeExpr{0, max, 1}, nil
	}
	if v, ok := num(s, max); ok {
		return rangeExpr{v, v, 1}, nil
	}
	bad := fmt.Errorf("%q is not a number from 0 to %d, * or a range [a-b] or [a-b/step]", s, max)
	lo, rest, ok := strings.Cut(s, "-")
	if !bracketed || !ok {
		return rangeExpr{}, bad
	}
	e := rangeExpr{stride: 1}
	if e.lo, ok = num(strings.Trim(lo, blanks), max); !ok {
		return rangeExpr{}, bad
	}
	hi, step, stepped := strings.Cut(rest, "/")
	if e.hi, ok = num(strings.Trim(hi, blanks), max); !ok {
		return rangeExpr{}, bad
	}
	if stepped {
		if e.stride, ok = num(strings.Trim(step, blanks), max); !ok {
			return rangeExpr{}, bad
		}
		if e.stride == 0 {
			return rangeExpr{}, fmt.Errorf("%q: a step of 0 (lnetctl and the kernel would divide by it)", s)
		}
	}
	if e.lo > e.hi {
		return rangeExpr{}, fmt.Errorf("%q: the range ends below its start", s)
	}
	return e, nil
}

// num is cfs_str2num_check: the whole (trimmed) text a number from 0 to max.
func num(s string, max uint32) (uint32, bool) {
	v, ok := strtoul(strings.TrimRight(s, blanks))
	if !ok || v > uint64(max) {
		return 0, false
	}
	return uint32(v), true
}

// strtoul reads all of s as strtoul(s, &end, 0) would, requiring at least one digit and
// nothing after the number (a leading sign: + only, - wraps below 0 and is refused).
func strtoul(s string) (uint64, bool) {
	s = strings.TrimLeft(s, blanks)
	s = strings.TrimPrefix(s, "+")
	base := uint64(10)
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 1<<32 {
			return 0, false
		}
	}
	return v, true
}
