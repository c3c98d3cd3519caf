package modparam

import "github.com/lnetsim/lnetsim/model/lnet"

// isSpace is the kernel's isspace (lib/ctype.c): tab, newline, vertical tab, form feed,
// carriage return, space, and Latin-1's no-break space 0xA0.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' || c == 0xa0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) (uint64, bool) {
	switch {
	case isDigit(c):
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// scanNum is one integer conversion of the kernel's vsscanf (%d, %u or %x) at s[i:]: spaces
// skipped, a digit required (after a '-' for %d), the value read with simple_strntoull,
// which wraps silently past 64 bits (%x also skips a "0x" prefix). It returns the value as
// the 64 bits the kernel then truncates to int or unsigned int, and where the number ends.
func scanNum(s string, i, base int, signed bool) (v uint64, next int, ok bool) {
	if i >= len(s) {
		return 0, i, false
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	d := i
	if signed && d < len(s) && s[d] == '-' {
		neg = true
		d++
	}
	if d >= len(s) {
		return 0, i, false
	}
	if _, hex := hexVal(s[d]); base == 10 && !isDigit(s[d]) || base == 16 && !hex {
		return 0, i, false
	}
	if base == 16 && d+1 < len(s) && s[d] == '0' && (s[d+1] == 'x' || s[d+1] == 'X') {
		d += 2
	}
	for d < len(s) {
		x, ok := hexVal(s[d])
		if !ok || x >= uint64(base) {
			break
		}
		v = v*uint64(base) + x
		d++
	}
	if neg {
		v = -v
	}
	return v, d, true
}

// scanUintAll is sscanf(s, "%u%n", &v, &n) >= 1 && n == len(s): the whole of s one unsigned
// number, as the kernel stores it (32 bits).
func scanUintAll(s string) (uint32, bool) {
	v, n, ok := scanNum(s, 0, 10, false)
	return uint32(v), ok && n == len(s)
}

// lndName is one entry of libcfs_netstrfns: a net name and how its NIDs' addresses are read.
type lndName struct {
	t    lnet.LNDType
	name string
	addr func(d Dialect, s string) (uint32, bool)
}

// lndNames is libcfs_netstrfns in its order (str2net takes the first name s starts with).
var lndNames = []lndName{
	{lnet.LOLND, "lo", func(Dialect, string) (uint32, bool) { return 0, true }},
	{lnet.SOCKLND, "tcp", func(d Dialect, s string) (uint32, bool) {
		if d.ScanfTCPNIDs {
			return ipScanf(s)
		}
		return ipPton(s)
	}},
	{lnet.O2IBLND, "o2ib", func(d Dialect, s string) (uint32, bool) {
		if d.ScanfO2IBNIDs {
			return ipScanf(s)
		}
		return ipPton(s)
	}},
	{lnet.GNILND, "gni", func(_ Dialect, s string) (uint32, bool) { return numAddr(s) }},
	{lnet.GNIIPLND, "gip", func(_ Dialect, s string) (uint32, bool) { return ipScanf(s) }},
	{lnet.PTL4LND, "ptlf", func(_ Dialect, s string) (uint32, bool) { return numAddr(s) }},
	{lnet.KFILND, "kfi", func(_ Dialect, s string) (uint32, bool) { return numAddr(s) }},
	{lnet.EFALND, "efa", func(d Dialect, s string) (uint32, bool) { return ipPton(s) }},
	{lnet.BXI3LND, "bxi3f", func(_ Dialect, s string) (uint32, bool) { return numAddr(s) }},
}

// known reports whether the dialect's kernel has the LND's name.
func (d Dialect) known(t lnet.LNDType) bool {
	switch t {
	case lnet.KFILND:
		return !d.NoKfiNames
	case lnet.EFALND, lnet.BXI3LND:
		return !d.NoEfaBxi3fNames
	}
	return true
}

// anyNet is LNET_NET_ANY.
const anyNet = lnet.NetID(0xffffffff)

// str2net is libcfs_str2net_internal: the first LND name s starts with, then nothing (net 0)
// or a number read by %u to the end of s (not for lo), packed as LNET_MKNET does: type<<16
// OR number, so a number past 65535 spills into the type. ok is false where the kernel
// returns NULL.
func (d Dialect) str2net(s string) (lnet.NetID, *lndName, bool) {
	for i := range lndNames {
		n := &lndNames[i]
		if !d.known(n.t) || len(s) < len(n.name) || s[:len(n.name)] != n.name {
			continue
		}
		rest := s[len(n.name):]
		if rest == "" {
			return lnet.MakeNet(n.t, 0), n, true
		}
		if n.t == lnet.LOLND {
			return 0, nil, false
		}
		num, ok := scanUintAll(rest)
		if !ok {
			return 0, nil, false
		}
		return lnet.NetID(uint32(n.t)<<16 | num), n, true
	}
	return 0, nil, false
}

// Str2Net is libcfs_str2net: LNET_NET_ANY's stand-in, false, where the kernel returns it.
func (d Dialect) Str2Net(s string) (lnet.NetID, bool) {
	n, _, ok := d.str2net(s)
	return n, ok && n != anyNet
}

// strnid is libcfs_strnid (libcfs_str2nid in 2.12): address@net, or an address alone on
// tcp0; from 2.16 "<?>" is LNET_ANY_NID (lnet.AnyNID here).
func (d Dialect) strnid(s string) (lnet.NID, bool) {
	addr, netName := s, ""
	at := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			at = i
			break
		}
	}
	var nf *lndName
	var net lnet.NetID
	if at >= 0 {
		addr, netName = s[:at], s[at+1:]
		var ok bool
		if net, nf, ok = d.str2net(netName); !ok {
			return 0, false
		}
	} else {
		if s == "<?>" && !d.NoAnyNIDText {
			return lnet.AnyNID, true
		}
		net, nf = lnet.MakeNet(lnet.SOCKLND, 0), &lndNames[1]
	}
	a, ok := nf.addr(d, addr)
	if !ok {
		return 0, false
	}
	return lnet.MakeNID(net, a), true
}

// ipScanf is libcfs_ip_str2addr: sscanf "%u.%u.%u.%u" over all of s, each part's 32 bits
// at most 255 (so a part that wraps to a small number passes).
func ipScanf(s string) (uint32, bool) {
	var a uint32
	i := 0
	for k := 0; k < 4; k++ {
		if k > 0 {
			if i >= len(s) || s[i] != '.' {
				return 0, false
			}
			i++
		}
		v, next, ok := scanNum(s, i, 10, false)
		if !ok || uint32(v)&^0xff != 0 {
			return 0, false
		}
		a = a<<8 | uint32(v)&0xff
		i = next
	}
	return a, i == len(s)
}

// ipPton is libcfs_ip_str2addr_size's IPv4 path: rpc_pton4, which takes at most
// INET_ADDRSTRLEN (16) characters, and in4_pton: four dot-separated parts of decimal digits,
// none empty, each at most 255 as it is read. (An IPv6 address needs a ':', which routes=
// reads as the priority separator: none reaches here.)
func ipPton(s string) (uint32, bool) {
	if len(s) > 16 {
		return 0, false
	}
	var a uint32
	parts, w, digits := 0, 0, false
	for i := 0; ; i++ {
		if i == len(s) || s[i] == '.' {
			if !digits {
				return 0, false
			}
			a = a<<8 | uint32(w)
			parts++
			w, digits = 0, false
			if i == len(s) {
				return a, parts == 4
			}
			if parts >= 4 {
				return 0, false
			}
			continue
		}
		if !isDigit(s[i]) {
			return 0, false
		}
		w = w*10 + int(s[i]-'0')
		digits = true
		if w > 255 {
			return 0, false
		}
	}
}

// numAddr is libcfs_num_str2addr: "0x%x", "0X%x" or "%u", all of s.
func numAddr(s string) (uint32, bool) {
	for _, p := range []string{"0x", "0X"} {
		if len(s) >= 2 && s[:2] == p {
			if v, n, ok := scanNum(s, 2, 16, false); ok && n == len(s) {
				return uint32(v), true
			}
		}
	}
	return scanUintAll(s)
}
