package lnet

import (
	"fmt"
	"strconv"
	"strings"
)

// LNDType is an LND's type number as the kernel numbers them (lnet-types.h).
type LNDType uint16

// LND types the model knows by name: the nets of the model's LNDs (o2ib, tcp, lo) and those
// lnetctl names for peers' NIDs (libcfs_netstrfns), which no node of the model runs.
const (
	SOCKLND  LNDType = 2  // tcp
	O2IBLND  LNDType = 5  // o2ib
	LOLND    LNDType = 9  // lo
	GNILND   LNDType = 13 // gni (names only)
	GNIIPLND LNDType = 14 // gip (names only)
	PTL4LND  LNDType = 15 // ptlf (names only)
	KFILND   LNDType = 16 // kfi (names only)
	EFALND   LNDType = 18 // efa (names only)
	BXI3LND  LNDType = 19 // bxi3f (names only)
)

// lndNames are the LNDs' net names and how their NIDs' addresses are written (ip: a dotted
// IPv4 address, else a decimal number), as libcfs_netstrfns lists them.
var lndNames = []struct {
	t    LNDType
	name string
	ip   bool
}{{SOCKLND, "tcp", true}, {O2IBLND, "o2ib", true}, {LOLND, "lo", false}, {GNILND, "gni", false},
	{GNIIPLND, "gip", true}, {PTL4LND, "ptlf", false}, {KFILND, "kfi", false}, {EFALND, "efa", true},
	{BXI3LND, "bxi3f", false}}

// String returns the LND's net-name prefix ("o2ib", "tcp", "lo").
func (t LNDType) String() string {
	for _, n := range lndNames {
		if n.t == t {
			return n.name
		}
	}
	return "lnd" + strconv.Itoa(int(t))
}

// IPAddressed reports whether the LND's NIDs carry an IPv4 address (tcp, o2ib, gip, efa)
// rather than a number (lo, gni, ptlf, kfi, bxi3f).
func (t LNDType) IPAddressed() bool {
	for _, n := range lndNames {
		if n.t == t {
			return n.ip
		}
	}
	return false
}

// NetID identifies an LNet network: an LND type and a network number (o2ib1 = {O2IBLND, 1}).
type NetID uint32

// MakeNet returns the NetID of network num of LND type t.
func MakeNet(t LNDType, num uint16) NetID { return NetID(uint32(t)<<16 | uint32(num)) }

// Type returns the net's LND type.
func (n NetID) Type() LNDType { return LNDType(n >> 16) }

// Num returns the net's number.
func (n NetID) Num() uint16 { return uint16(n) }

// LoNet is the loopback network 0@lo lives on.
var LoNet = MakeNet(LOLND, 0)

// String returns the net as users write it: "o2ib" for o2ib0 is written "o2ib" by lnetctl;
// the model always writes the number ("o2ib0"), except "lo".
func (n NetID) String() string {
	if n.Type() == LOLND {
		return "lo"
	}
	return n.Type().String() + strconv.Itoa(int(n.Num()))
}

// LnetctlString writes the net as the kernel's libcfs_net2str does: "o2ib" for o2ib0.
func (n NetID) LnetctlString() string {
	if n.Num() == 0 && n.Type() != LOLND {
		return n.Type().String()
	}
	return n.String()
}

// ParseNet reads "o2ib", "o2ib0", "o2ib1", "tcp", "lo".
func ParseNet(s string) (NetID, error) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	name, num := s[:i], s[i:]
	for _, n := range lndNames {
		if n.name == name {
			v := 0
			if num != "" {
				x, err := strconv.Atoi(num)
				if err != nil || x > 0xffff {
					return 0, fmt.Errorf("bad network number in %q", s)
				}
				v = x
			}
			return MakeNet(n.t, uint16(v)), nil
		}
	}
	return 0, fmt.Errorf("unknown network type in %q (want o2ib, tcp or lo; for peers also gni, gip, ptlf, kfi, efa or bxi3f)", s)
}

// NID is an LNet network identifier: a 32-bit address (an IPv4 address for o2ib and tcp, a
// number for lo) on a network. Comparable and cheap, usable as a map key. The zero NID is
// LNET_NID_ANY's stand-in ("*"), never a real interface (0@lo has a non-zero net).
type NID uint64

// AnyNID matches any NID where a NID pattern is accepted.
const AnyNID NID = 0

// MakeNID returns the NID of address addr on net.
func MakeNID(net NetID, addr uint32) NID { return NID(uint64(net)<<32 | uint64(addr)) }

// LoNID is 0@lo.
var LoNID = MakeNID(LoNet, 0)

// Net returns the NID's network.
func (n NID) Net() NetID { return NetID(n >> 32) }

// Addr returns the NID's address.
func (n NID) Addr() uint32 { return uint32(n) }

// IsAny reports whether n is the wildcard.
func (n NID) IsAny() bool { return n == AnyNID }

// String writes the NID as users do: "10.0.0.1@o2ib", "10.0.0.1@o2ib1", "0@lo", "*".
func (n NID) String() string {
	if n == AnyNID {
		return "*"
	}
	net := n.Net()
	a := n.Addr()
	var addr string
	switch {
	case net.Type().IPAddressed():
		addr = fmt.Sprintf("%d.%d.%d.%d", a>>24, a>>16&0xff, a>>8&0xff, a&0xff)
	default:
		addr = strconv.FormatUint(uint64(a), 10)
	}
	return addr + "@" + net.LnetctlString()
}

// ParseNID reads a NID as users write it: "10.0.0.1@o2ib", "10.0.1.1@o2ib1", "0@lo", and "*"
// for the wildcard.
func ParseNID(s string) (NID, error) {
	s = strings.TrimSpace(s)
	if s == "*" {
		return AnyNID, nil
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return 0, fmt.Errorf("NID %q has no @network", s)
	}
	net, err := ParseNet(s[at+1:])
	if err != nil {
		return 0, fmt.Errorf("NID %q: %v", s, err)
	}
	addr := s[:at]
	switch {
	case net.Type().IPAddressed():
		parts := strings.Split(addr, ".")
		if len(parts) != 4 {
			return 0, fmt.Errorf("NID %q: address is not a dotted IPv4 address", s)
		}
		var a uint32
		for _, p := range parts {
			v, err := strconv.Atoi(p)
			if err != nil || v < 0 || v > 255 {
				return 0, fmt.Errorf("NID %q: bad address byte %q", s, p)
			}
			a = a<<8 | uint32(v)
		}
		return MakeNID(net, a), nil
	default:
		v, err := strconv.ParseUint(addr, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("NID %q: bad address %q", s, addr)
		}
		return MakeNID(net, uint32(v)), nil
	}
}

// MustNID is ParseNID for tests and set-up code; it panics on error.
func MustNID(s string) NID {
	n, err := ParseNID(s)
	if err != nil {
		panic(err)
	}
	return n
}

// NIDPattern matches NIDs as fault rules and lnetctl do: "*" (any), "*@net" (any address on
// net) or one NID.
type NIDPattern struct {
	NID    NID   // exact NID, or AnyNID
	Net    NetID // with NID == AnyNID: match this net only (0 = any net)
	AnyNet bool  // true for "*"
}

// ParseNIDPattern reads "*", "*@o2ib1" or a NID.
func ParseNIDPattern(s string) (NIDPattern, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return NIDPattern{AnyNet: true}, nil
	}
	if strings.HasPrefix(s, "*@") {
		net, err := ParseNet(s[2:])
		if err != nil {
			return NIDPattern{}, err
		}
		return NIDPattern{Net: net}, nil
	}
	n, err := ParseNID(s)
	return NIDPattern{NID: n}, err
}

// Match reports whether nid matches the pattern (the zero pattern matches everything).
func (p NIDPattern) Match(nid NID) bool {
	switch {
	case p.NID != AnyNID:
		return nid == p.NID
	case p.Net != 0:
		return nid.Net() == p.Net
	}
	return true
}

// String writes the pattern as ParseNIDPattern reads it.
func (p NIDPattern) String() string {
	switch {
	case p.NID != AnyNID:
		return p.NID.String()
	case p.Net != 0:
		return "*@" + p.Net.String()
	}
	return "*"
}
