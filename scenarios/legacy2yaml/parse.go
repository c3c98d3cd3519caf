package legacy2yaml

import "fmt"

// rules cuts a normalized body into its rules as the script's split_rules then
// strip_comment do: split at ';' and newlines, each stripped, empty ones dropped, then each
// cut at its first '#' and right-stripped, empty ones dropped again (a ';' inside a comment
// still ends the rule).
func rules(body text) []text {
	var out []text
	for _, seg := range body.split(func(r rune) bool { return r == ';' || r == '\n' }) {
		seg = seg.strip()
		if seg.len() == 0 {
			continue
		}
		if h := seg.index('#', 0); h >= 0 {
			seg = seg.slice(0, h).rstrip()
		}
		if seg.len() > 0 {
			out = append(out, seg)
		}
	}
	return out
}

// netName is the length of the net name at i: a letter then letters and digits.
func netName(t text, i int) int {
	if i >= t.len() || !isAlpha(t.r[i]) {
		return 0
	}
	j := i + 1
	for j < t.len() && isAlnum(t.r[j]) {
		j++
	}
	return j - i
}

// isIfaceChar is a character the script allows in an interface list.
func isIfaceChar(r rune) bool {
	return isAlnum(r) || r == '_' || r == ',' || r == '.' || r == ':' || r == '/' || r == '-'
}

// netSpec reads NET[(IFACES)] at i: the net, the interface list's text (ok=false for no
// list) and where the spec ends. A '(' not closing as the script's pattern requires leaves
// the list off, ending the spec before it.
func netSpec(t text, i int) (net text, ifaces text, hasIfaces bool, end int) {
	n := netName(t, i)
	if n == 0 {
		return text{}, text{}, false, -1
	}
	net, end = t.slice(i, i+n), i+n
	if end < t.len() && t.r[end] == '(' {
		j := end + 1
		for j < t.len() && isIfaceChar(t.r[j]) {
			j++
		}
		if j > end+1 && j < t.len() && t.r[j] == ')' {
			return net, t.slice(end+1, j), true, j + 1
		}
	}
	return net, text{}, false, end
}

// interfaces is an interface list's names, empty ones dropped.
func interfaces(list text) []string {
	var out []string
	for _, f := range list.split(func(r rune) bool { return r == ',' }) {
		if f = f.strip(); f.len() > 0 {
			out = append(out, f.String())
		}
	}
	return out
}

// isPatternChar is a character the script allows in an ip-range token.
func isPatternChar(r rune) bool {
	return isAlnum(r) || r == '[' || r == '*' || r == ']' || r == '.' || r == ',' || r == '/' || r == '-'
}

// ipPattern is the script's loose ip-range check: only allowed characters, and four
// non-empty parts around three of its dots.
func ipPattern(t text) bool {
	for _, c := range t.r {
		if !isPatternChar(c) {
			return false
		}
	}
	// the earliest dots that leave every part non-empty
	need, dots := 1, 0
	for i := 0; i < t.len() && dots < 3; i++ {
		if i >= need && t.r[i] == '.' {
			dots++
			need = i + 2
		}
	}
	return dots == 3 && need <= t.len()
}

// looksLikeNet is a token the script takes for a second net: NET or NET(anything without ')').
func looksLikeNet(t text) bool {
	n := netName(t, 0)
	if n == 0 {
		return false
	}
	if n == t.len() {
		return true
	}
	if t.r[n] != '(' || t.r[t.len()-1] != ')' || t.len()-n < 3 {
		return false
	}
	return t.slice(n+1, t.len()-1).index(')', 0) < 0
}

// parseIP2Nets reads ip2nets rules, NET[(IFACE,...)] PATTERN..., as the script's
// convert_ip2nets_body and parse_rule do.
func parseIP2Nets(body text) ([]Rule, *refusal) {
	body = body.normalize()
	var out []Rule
	for _, rt := range rules(body) {
		r, err := parseRule(rt)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRule(rt text) (Rule, *refusal) {
	start := rt.skipSpace(0)
	net, list, hasList, end := netSpec(rt, start)
	rest := text{}
	if end >= 0 && end < rt.len() && isSpace(rt.r[end]) {
		rest = rt.slice(end, rt.len()).strip()
	}
	if rest.len() == 0 {
		return Rule{}, &refusal{at: rt.pos(start), msg: fmt.Sprintf("Cannot parse rule header: '%s'", rt),
			fix: "write a rule as NET[(IFACE,...)] IP-PATTERN..., e.g. tcp0(eth0) 10.0.0.*"}
	}
	r := Rule{Net: net.String()}
	for _, tok := range rest.fields() {
		if !ipPattern(tok) {
			if looksLikeNet(tok) {
				return Rule{}, &refusal{at: tok.pos(0), msg: fmt.Sprintf("Detected what looks like a second network specification '%s' in rule: '%s'. Multiple network rules must be separated by semicolons (;).", tok, rt),
					fix: "end the rule before " + tok.String() + " with ';'"}
			}
			return Rule{}, &refusal{at: tok.pos(0), msg: fmt.Sprintf("Invalid-looking IP pattern token '%s' in rule: '%s'", tok, rt),
				fix: "write four dot-separated fields of digits, *, [a-b] ranges or lists, e.g. 192.168.[1-2].*"}
		}
		r.IPRanges = append(r.IPRanges, tok.String())
	}
	if hasList {
		r.Interfaces = interfaces(list)
		if len(r.Interfaces) == 0 {
			return Rule{}, &refusal{at: list.pos(0), msg: fmt.Sprintf("Empty interface list in rule: '%s'", rt),
				fix: "name at least one interface between the parentheses, or drop them"}
		}
	}
	return r, nil
}

// parseNetworks reads networks=, NET[(IFACE,...)] entries separated by commas outside
// parentheses, as the script's parse_networks_body does.
func parseNetworks(body text) ([]Network, *refusal) {
	body = body.normalize()
	var specs []text
	depth, start := 0, 0
	for i, c := range body.r {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			if s := body.slice(start, i).strip(); s.len() > 0 {
				specs = append(specs, s)
			}
			start = i + 1
		}
	}
	if s := body.slice(start, body.len()).strip(); s.len() > 0 {
		specs = append(specs, s)
	}
	var out []Network
	for _, s := range specs {
		net, list, hasList, end := netSpec(s, 0)
		if end != s.len() {
			return out, &refusal{at: s.pos(0), msg: fmt.Sprintf("Invalid network specification: '%s'", s),
				fix: "write NET or NET(IFACE,...), e.g. tcp0(eth0),o2ib(ib0)"}
		}
		n := Network{Type: net.String()}
		if hasList {
			n.Interfaces = interfaces(list)
			if len(n.Interfaces) == 0 {
				return out, &refusal{at: list.pos(0), msg: fmt.Sprintf("Empty interface list in network spec: '%s'", s),
					fix: "name at least one interface between the parentheses, or drop them"}
			}
		}
		out = append(out, n)
	}
	return out, nil
}
