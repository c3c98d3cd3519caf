package modparam

import (
	"strconv"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// DefaultNetworks is what LNet starts when neither networks= nor ip2nets= is given
// (lnet_get_networks).
const DefaultNetworks = "tcp"

// maxStrLen is LNET_MAX_STR_LEN: how much of two interface names lnet_ni_unique_net compares
// (from 2.16).
const maxStrLen = 128

// Net is one net of networks=, with its NIs in order (a net named twice gets the NIs of
// both: lnet_net_alloc returns the net already listed).
type Net struct {
	ID lnet.NetID
	// Off is where the net's name first appears in the option.
	Off int
	NIs []NI
}

// NI is one NI of a net: its interface ("" when the net lists none: the LND picks its
// default) and where that is written.
type NI struct {
	Interface string
	Off       int
}

// spaceStr is SPACESTR, the blanks lnet_parse_networks stops a name at (no form feed).
const spaceStr = " \t\v\r\n"

// cspn is strcspn over the NUL-terminated buf from i: the index of the first byte of set or
// the NUL.
func cspn(buf []byte, i int, set string) int {
	for buf[i] != 0 {
		for k := 0; k < len(set); k++ {
			if buf[i] == set[k] {
				return i
			}
		}
		i++
	}
	return i
}

// cstr is the NUL-terminated string at buf[i:].
func cstr(buf []byte, i int) string {
	j := i
	for buf[j] != 0 {
		j++
	}
	return string(buf[i:j])
}

// ParseNetworks is lnet_parse_networks: `net`, `net(iface,...)`, separated by commas; lo is
// skipped (it is implicit). A CPT list (`net[...]`, `iface[...]`) is refused as Unmodelled
// (lnetsim gives an NI all its node's CPTs). Like the kernel it works on a copy of the text
// in which it writes NULs as it goes, so that what an error reports (lnet_syntax's offset,
// and width up to the next NUL) is the kernel's.
func (d Dialect) ParseNetworks(networks string) ([]Net, *Error) {
	if len(networks) > singleTextBuf {
		return nil, &Error{Msg: "Can't parse networks: string too long", Width: len(networks), Why: "the kernel takes at most 4096 characters"}
	}
	buf := append([]byte(networks), 0)
	var nets []Net
	str := 0
	syntax := func(at int, why string) *Error {
		return &Error{Msg: syntaxMsg("networks", networks), Off: at, Width: len(cstr(buf, at)), Why: why}
	}
	for {
		for isSpace(buf[str]) {
			buf[str] = 0
			str++
		}
		if buf[str] == 0 {
			break
		}
		name := str
		str = cspn(buf, str, spaceStr+":()[],")
		for isSpace(buf[str]) {
			buf[str] = 0
			str++
		}
		nistr := -1
		if buf[str] == '(' {
			buf[str] = 0
			str++
			nistr = str
			str = cspn(buf, str, ")")
			if buf[str] != ')' {
				return nil, syntax(nistr, "( without )")
			}
			for {
				buf[str] = 0
				str++
				if !isSpace(buf[str]) {
					break
				}
			}
		}
		if buf[str] == '[' {
			return nil, &Error{Msg: "CPT lists are not modelled", Off: str, Width: len(cstr(buf, str)),
				Why: "lnetsim gives every NI all of its node's CPTs (lnet.cpts)", Unmodelled: true}
		}
		if c := buf[str]; c != 0 && (c == ':' || c == '(' || c == ')' || c == '[' || c == ']') {
			return nil, syntax(str, strconv.Quote(string(c))+" is out of place")
		}
		str = cspn(buf, str, ",")
		if buf[str] == ',' {
			buf[str] = 0
			str++
		}
		netName := cstr(buf, name)
		id, ok := d.Str2Net(netName)
		if !ok {
			e := syntax(name, strconv.Quote(netName)+" is not a net")
			e.Msg = "Unrecognised network type; " + e.Msg
			return nil, e
		}
		if id.Type() == lnet.LOLND {
			if buf[str] == 0 {
				break
			}
			continue
		}
		k := -1
		for i := range nets {
			if nets[i].ID == id {
				k = i
				break
			}
		}
		if k < 0 {
			nets = append(nets, Net{ID: id, Off: name})
			k = len(nets) - 1
		}
		net := &nets[k]
		if nistr < 0 {
			net.NIs = append(net.NIs, NI{})
		} else {
			for {
				for isSpace(buf[nistr]) {
					buf[nistr] = 0
					nistr++
				}
				iface := nistr
				nistr = cspn(buf, nistr, spaceStr+"[],")
				for isSpace(buf[nistr]) {
					buf[nistr] = 0
					nistr++
				}
				if buf[nistr] == '[' {
					return nil, &Error{Msg: "CPT lists are not modelled", Off: nistr, Width: len(cstr(buf, nistr)),
						Why: "lnetsim gives every NI all of its node's CPTs (lnet.cpts)", Unmodelled: true}
				}
				if buf[nistr] == ',' {
					for {
						buf[nistr] = 0
						nistr++
						if !isSpace(buf[nistr]) {
							break
						}
					}
					if buf[nistr] == 0 {
						return nil, syntax(nistr, "an interface list ends with a comma")
					}
				} else if buf[nistr] != 0 {
					return nil, syntax(nistr, strconv.Quote(string(buf[nistr]))+" is out of place")
				}
				name := cstr(buf, iface)
				if name == "" {
					return nil, syntax(iface, "an empty interface name")
				}
				if !d.uniqueInterface(net.NIs, name) {
					return nil, &Error{Msg: "LNet does not start (EINVAL)", Off: iface, Width: len(name),
						Why: "interface " + strconv.Quote(name) + " is already an NI of this net (the kernel fails without a message)"}
				}
				net.NIs = append(net.NIs, NI{Interface: name, Off: iface})
				if buf[nistr] == 0 {
					break
				}
			}
		}
		if buf[str] == 0 {
			break
		}
	}
	return nets, nil
}

// uniqueInterface is lnet_ni_unique_net: name is none of nis' interfaces (SameInterface).
func (d Dialect) uniqueInterface(nis []NI, name string) bool {
	for _, ni := range nis {
		if ni.Interface != "" && d.SameInterface(ni.Interface, name) {
			return false
		}
	}
	return true
}

// SameInterface is lnet_ni_unique_net's comparison of an NI's interface, have, with the
// interface of an NI being added, name: up to 2.15 (PrefixInterfaceDup) on name's length,
// so that have only has to start with name (ib1 is taken by ib10, eth0 by the alias
// eth0:0), from 2.16 (LU-16859) on LNET_MAX_STR_LEN.
func (d Dialect) SameInterface(have, name string) bool {
	n := maxStrLen
	if d.PrefixInterfaceDup {
		n = len(name)
	}
	if len(have) > n {
		have = have[:n]
	}
	if len(name) > n {
		name = name[:n]
	}
	return have == name
}
