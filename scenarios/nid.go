package scenarios

import (
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
)

// lndTypes are the LND names a net may use; lnetsim models o2ib, tcp (socklnd over the
// Ethernet model) and the loopback lo.
var lndTypes = []string{"o2ib", "tcp", "lo"}

// IsTCPNet reports whether a canonical net name is a socklnd (tcp) net.
func IsTCPNet(net string) bool { return strings.HasPrefix(net, "tcp") }

// ParseNet reads an LNet net name ("o2ib", "o2ib0", "o2ib12", also written "@o2ib1") and
// returns its canonical form, always with the number ("o2ib0"), and its number.
func ParseNet(s string) (string, int, error) {
	in := strings.TrimPrefix(strings.TrimSpace(s), "@")
	for _, l := range lndTypes {
		rest, ok := strings.CutPrefix(in, l)
		if !ok {
			continue
		}
		if rest == "" {
			return l + "0", 0, nil
		}
		if l == "lo" && rest != "0" {
			// The kernel has one loopback net, lo (net 0); "lo1" named an NI net that
			// validated and then failed to run.
			return "", 0, fmt.Errorf("invalid net %q: the loopback net is lo, without a number", s)
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n > 65535 || rest[0] == '+' || (len(rest) > 1 && rest[0] == '0') {
			return "", 0, fmt.Errorf("invalid net %q: the number after %s must be 0 to 65535", s, l)
		}
		return l + strconv.Itoa(n), n, nil
	}
	return "", 0, fmt.Errorf("invalid net %q: expected o2ib<number> or tcp<number>, e.g. o2ib0", s)
}

// NID is an LNet network identifier: an IPv4 address on a net, e.g. 10.0.0.1@o2ib.
type NID struct {
	Addr netip.Addr
	Net  string // canonical net name, e.g. o2ib0
}

// IsZero reports whether the NID was not given.
func (n NID) IsZero() bool { return n.Net == "" }

// ParseNID reads a NID: <IPv4>@<net> ("10.0.0.1@o2ib", "192.168.1.5@o2ib1") or 0@lo.
func ParseNID(s string) (NID, error) {
	in := strings.TrimSpace(s)
	a, netName, ok := strings.Cut(in, "@")
	if ok && a == "" {
		return NID{}, fmt.Errorf("invalid NID %q: the address is missing, e.g. 10.0.0.1@%s", s, netName)
	}
	if !ok || strings.Contains(netName, "@") {
		return NID{}, fmt.Errorf("invalid NID %q: expected address@net, e.g. 10.0.0.1@o2ib", s)
	}
	net, _, err := ParseNet(netName)
	if err != nil {
		return NID{}, fmt.Errorf("invalid NID %q: %v", s, err)
	}
	if net == "lo0" {
		if a != "0" {
			return NID{}, fmt.Errorf("invalid NID %q: the loopback NID is 0@lo", s)
		}
		return NID{Net: net}, nil
	}
	ip, err := netip.ParseAddr(a)
	if err != nil || !ip.Is4() {
		return NID{}, fmt.Errorf("invalid NID %q: %q is not an IPv4 address", s, a)
	}
	return NID{Addr: ip, Net: net}, nil
}

// String formats the NID as the kernel prints it: 10.0.0.1@o2ib (net number 0 omitted).
func (n NID) String() string {
	if n.IsZero() {
		return ""
	}
	net := strings.TrimSuffix(n.Net, "0")
	if net != n.Net && strings.IndexAny(net[len(net)-1:], "0123456789") == 0 {
		net = n.Net // o2ib10 keeps its number
	}
	if n.Net == "lo0" {
		return "0@lo"
	}
	return n.Addr.String() + "@" + net
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseNID.
func (n *NID) UnmarshalText(b []byte) error {
	v, err := ParseNID(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// MarshalText implements encoding.TextMarshaler with String.
func (n NID) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// next returns the NID k addresses after n on the same net.
func (n NID) next(k int) (NID, bool) {
	b := n.Addr.As4()
	v := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	v += uint64(k)
	if v > 0xffffffff {
		return NID{}, false
	}
	return NID{Addr: netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), Net: n.Net}, true
}

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

func addr4(a, b, c, d byte) netip.Addr { return netip.AddrFrom4([4]byte{a, b, c, d}) }
