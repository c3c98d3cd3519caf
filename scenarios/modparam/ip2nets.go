package modparam

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios/ippattern"
)

// IP2Nets is what ip2nets= gives a node (lnet_parse_ip2nets, lnet_match_networks): the
// networks= text of the entries that match one of its addresses, their nets joined by
// commas in entry order, which the kernel then reads as networks=.
type IP2Nets struct {
	Networks string
	spans    []span // each net's text: where it is in Networks and in the option
}

// span is a net's text at net in Networks, written at opt in the option.
type span struct{ net, opt, n int }

// OptionOffset maps an offset in Networks (a networks= error's) to the option's text.
func (m IP2Nets) OptionOffset(off int) int {
	for _, s := range m.spans {
		if off >= s.net && off <= s.net+s.n {
			return s.opt + off - s.net
		}
	}
	return 0
}

// ip2netsBlanks are the characters lnet_match_network_tokens splits an entry at.
const ip2netsBlanks = " \t\n\r\v\f"

// entryTokens splits an entry (blanks already spaces) into its words and their offsets.
func entryTokens(text string) (toks []string, offs []int) {
	i := 0
	for i < len(text) {
		for i < len(text) && strings.IndexByte(ip2netsBlanks, text[i]) >= 0 {
			i++
		}
		j := i
		for j < len(text) && strings.IndexByte(ip2netsBlanks, text[j]) < 0 {
			j++
		}
		if j > i {
			toks, offs = append(toks, text[i:j]), append(offs, i)
		}
		i = j
	}
	return toks, offs
}

// MatchIP2Nets is lnet_parse_ip2nets for a node whose up, non-loopback interfaces have the
// IPv4 addresses addrs: each entry of s (separated by ';' or newlines, '#' comments) is a
// networks= text, without blanks, then address patterns (cfs_ip_addr_parse's: see
// scenarios/ippattern); an entry matches when a pattern matches one of the addresses, and
// its nets (split as lnet_splitnets splits them: a net named twice in one entry is refused)
// are added to the result; a pattern that does not parse, anywhere, is refused. Up to
// 2.13.55 (IP2NetsSkipDupNets) an entry one of whose nets an earlier match gave is skipped.
// No address, or no entry matching, is the kernel's -ENOENT.
func (d Dialect) MatchIP2Nets(s string, addrs []netip.Addr) (IP2Nets, *Error) {
	var res IP2Nets
	if len(addrs) == 0 {
		return res, &Error{Msg: "No local IP interfaces for ip2nets to match", Width: len(s), Why: "LNet does not start (-ENOENT)"}
	}
	var tb textBufs
	entries, err := splitEntries("ip2nets", s, &tb)
	if err != nil {
		return res, err
	}
	var matchedNets []lnet.NetID
	count := 0
	for _, e := range entries {
		toks, offs := entryTokens(e.text)
		matched := false
		for k := 1; k < len(toks); k++ {
			p, perr := ippattern.Parse(toks[k], false)
			if perr != nil {
				return res, &Error{Msg: syntaxMsg("ip2nets", e.text), Off: e.off + offs[k], Width: len(toks[k]), Why: perr.Error()}
			}
			for _, a := range addrs {
				if p.Match(a) {
					matched = true
					break
				}
			}
		}
		if !matched {
			continue
		}
		nets, ids, serr := d.splitNets(toks[0], e.text, e.off)
		if serr != nil {
			return res, serr
		}
		if d.IP2NetsSkipDupNets && anyIn(ids, matchedNets) {
			continue
		}
		for _, n := range nets {
			if len(res.Networks) > 0 {
				res.Networks += ","
			}
			res.spans = append(res.spans, span{len(res.Networks), n.off, len(n.text)})
			res.Networks += n.text
			if len(res.Networks) >= singleTextBuf {
				return IP2Nets{}, &Error{Msg: "Too many matched networks", Off: n.off, Width: len(n.text), Why: "the nets of the matching entries take 4096 characters or more (-E2BIG)"}
			}
		}
		matchedNets = append(matchedNets, ids...)
		count++
	}
	if count == 0 {
		return IP2Nets{}, &Error{Msg: "ip2nets does not match any local IP interfaces", Width: len(s), Why: "LNet does not start (-ENOENT)"}
	}
	return res, nil
}

func anyIn(ids, set []lnet.NetID) bool {
	for _, id := range ids {
		for _, x := range set {
			if id == x {
				return true
			}
		}
	}
	return false
}

// splitNets is lnet_splitnets on an entry's first word tok (entry is the entry's text, at off
// in the option): nets separated by commas, each with an optional (interface list); a net
// that is not one, or is named twice, and a list not closed before a comma or the end, are
// refused where lnet_syntax points.
func (d Dialect) splitNets(tok, entry string, off int) ([]piece, []lnet.NetID, *Error) {
	syntax := func(at, width int, why string) *Error {
		return &Error{Msg: syntaxMsg("ip2nets", entry), Off: off + at, Width: width, Why: why}
	}
	var out []piece
	var ids []lnet.NetID
	text, at := tok, 0
	for {
		sep := strings.IndexByte(text, ',')
		br := strings.IndexByte(text, '(')
		if sep >= 0 && br >= 0 && br < sep {
			cl := strings.IndexByte(text[br+1:], ')')
			if cl < 0 {
				return nil, nil, syntax(at+br, len(text)-br, "( without )")
			}
			cl += br + 1
			switch {
			case cl+1 == len(text):
				sep = -1
			case text[cl+1] == ',':
				sep = cl + 1
			default:
				return nil, nil, syntax(at+br, len(text)-br, "the interface list is not followed by a comma")
			}
		}
		cur, rest := text, ""
		if sep >= 0 {
			cur, rest = text[:sep], text[sep+1:]
		}
		name := cur
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		id, ok := d.Str2Net(name)
		if !ok {
			return nil, nil, syntax(at, len(cur), strconv.Quote(name)+" is not a net")
		}
		for _, x := range ids {
			if x == id {
				return nil, nil, syntax(at, len(cur), "net "+id.LnetctlString()+" is named twice in the entry")
			}
		}
		out, ids = append(out, piece{cur, off + at}), append(ids, id)
		if sep < 0 {
			return out, ids, nil
		}
		at += sep + 1
		text = rest
	}
}

// IP2NetsInterface is an interface an entry of ip2nets= names, with the first net that
// names it ("" when a net names none: the LND's default).
type IP2NetsInterface struct {
	Net       lnet.NetID
	Interface string
}

// IP2NetsInterfaces lists the interfaces the entries of s name, in order, each once with
// the first net naming it; a net whose interface list does not parse names the LND's
// default, and a word that is no net none.
func (d Dialect) IP2NetsInterfaces(s string) []IP2NetsInterface {
	var tb textBufs
	entries, err := splitEntries("ip2nets", s, &tb)
	if err != nil {
		return nil
	}
	var out []IP2NetsInterface
	seen := map[string]bool{}
	for _, e := range entries {
		toks, _ := entryTokens(e.text)
		if len(toks) == 0 {
			continue
		}
		nets, _, serr := d.splitNets(toks[0], e.text, e.off)
		if serr != nil {
			nets = nil
			for _, t := range strings.Split(toks[0], ",") {
				nets = append(nets, piece{text: t})
			}
		}
		for _, n := range nets {
			parsed, perr := d.ParseNetworks(n.text)
			if perr != nil {
				// a net whose interfaces do not parse: its LND's default interface
				name, _, _ := strings.Cut(n.text, "(")
				id, ok := d.Str2Net(name)
				if !ok {
					continue
				}
				parsed = []Net{{ID: id, NIs: []NI{{}}}}
			}
			for _, pn := range parsed {
				for _, ni := range pn.NIs {
					key := ni.Interface
					if key == "" {
						key = "\x00" + pn.ID.Type().String()
					}
					if !seen[key] {
						seen[key] = true
						out = append(out, IP2NetsInterface{pn.ID, ni.Interface})
					}
				}
			}
		}
	}
	return out
}
