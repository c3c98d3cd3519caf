package legacy2yaml

import "fmt"

// parseRoutes reads routes= as the script's parse_routes_body does: each rule is either the alternative form
// `NET: { gateway: GW[, hop: H][, priority: P] }` (lustre_routes_config's) or the legacy
// form `NET [HOP] GATEWAY[:PRIORITY]`, with one gateway per rule.
func parseRoutes(body text) ([]Route, *refusal) {
	body = body.normalize()
	var out []Route
	for _, line := range rules(body) {
		if r, ok, err := altRoute(line); err != nil {
			return out, err
		} else if ok {
			out = append(out, r)
			continue
		}
		r, err := legacyRoute(line)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

const hopFix = "give a hop count from 1 to 255, or none"

func legacyRoute(line text) (Route, *refusal) {
	toks := line.fields()
	if len(toks) < 2 {
		return Route{}, &refusal{at: line.pos(0), msg: fmt.Sprintf("routes: incomplete route specification '%s'", line),
			fix: "write a route as NET [HOP] GATEWAY[:PRIORITY], e.g. tcp0 1 10.0.0.1@o2ib0"}
	}
	r := Route{Net: toks[0].String()}
	idx := 1
	if h := toks[1].String(); hopWord(h) {
		v := smallInt(h)
		if v < 1 || v > 255 {
			return Route{}, &refusal{at: toks[1].pos(0), msg: fmt.Sprintf("routes: hopcount %d out of range 1-255 in '%s'", v, line), fix: hopFix}
		}
		r.Hop, r.HasHop = v, true
		idx++
	}
	if idx >= len(toks) {
		return Route{}, &refusal{at: line.end, msg: fmt.Sprintf("routes: missing gateway specs in '%s'", line),
			fix: "end the route with its gateway's NID, e.g. 10.0.0.1@o2ib0"}
	}
	if gws := toks[idx:]; len(gws) > 1 {
		names := ""
		for i, g := range gws {
			if i > 0 {
				names += ", "
			}
			names += g.String()
		}
		return Route{}, &refusal{at: gws[1].pos(0), msg: fmt.Sprintf("routes: multiple gateway specifications found in single rule '%s'. If you intended multiple routes, separate them with semicolons (;). Found gateways: %s", line, names),
			fix: "write one route per gateway, separated by ';'"}
	}
	gw := toks[idx].String()
	r.Gateway = gw
	if hasRune(gw, '@') && hasRune(gw, ':') {
		c := lastRune(gw, ':')
		if tail := gw[c+1:]; tail != "" && allDigits(tail) {
			r.Gateway = gw[:c]
			r.Priority, _ = pyInt(tail)
		}
	}
	return r, nil
}

// hopWord is the script's hop pattern: 0 or 1-3 digits not starting with 0.
func hopWord(s string) bool {
	if s == "0" {
		return true
	}
	return len(s) >= 1 && len(s) <= 3 && s[0] >= '1' && s[0] <= '9' && allDigits(s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func hasRune(s string, c byte) bool { return lastRune(s, c) >= 0 }

func lastRune(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// altRoute reads the alternative form as the script's parse_alternative_route does;
// ok=false when the line is not in it.
func altRoute(line text) (Route, bool, *refusal) {
	i := line.skipSpace(0)
	n := netName(line, i)
	if n == 0 {
		return Route{}, false, nil
	}
	net := line.slice(i, i+n)
	j := line.skipSpace(i + n)
	if j >= line.len() || line.r[j] != ':' {
		return Route{}, false, nil
	}
	j = line.skipSpace(j + 1)
	if j >= line.len() || line.r[j] != '{' {
		return Route{}, false, nil
	}
	j = line.skipSpace(j + 1)
	if !line.hasPrefix(j, "gateway:") {
		return Route{}, false, nil
	}
	j = line.skipSpace(j + len("gateway:"))
	g := j
	for g < line.len() && !isSpace(line.r[g]) && line.r[g] != ',' && line.r[g] != '}' {
		g++
	}
	if g == j {
		return Route{}, false, nil
	}
	gw := line.slice(j, g)
	// the line must end in '}' after white space
	last := line.rstrip().len() - 1
	if last < g || line.r[last] != '}' {
		return Route{}, false, nil
	}
	k := line.skipSpace(g)
	var params text
	switch {
	case k == last:
	case line.r[k] == ',':
		params = line.slice(line.skipSpace(k+1), last).rstrip()
	default:
		return Route{}, false, nil
	}
	r := Route{Net: net.String(), Gateway: gw.String()}
	for _, p := range params.split(func(c rune) bool { return c == ',' }) {
		p = p.strip()
		c := p.index(':', 0)
		if p.len() == 0 || c < 0 {
			continue
		}
		key, value := p.slice(0, c).strip().String(), p.slice(c+1, p.len()).strip()
		switch key {
		case "hop":
			v, ok := pyInt(value.String())
			if !ok {
				if value.contains("out of range") {
					// the script re-raises int()'s own message when it holds these words
					return Route{}, false, &refusal{at: value.pos(0), msg: "invalid literal for int() with base 10: " + pyRepr(value.String()), fix: hopFix}
				}
				return Route{}, false, &refusal{at: value.pos(0), msg: fmt.Sprintf("routes: invalid hop value '%s' in '%s'", value, line), fix: hopFix}
			}
			h := smallInt(v)
			if h < 1 || h > 255 {
				return Route{}, false, &refusal{at: value.pos(0), msg: fmt.Sprintf("routes: hopcount %s out of range 1-255 in '%s'", v, line), fix: hopFix}
			}
			r.Hop, r.HasHop = h, true
		case "priority":
			v, ok := pyInt(value.String())
			if !ok {
				return Route{}, false, &refusal{at: value.pos(0), msg: fmt.Sprintf("routes: invalid priority value '%s' in '%s'", value, line),
					fix: "give the priority as a whole number"}
			}
			r.Priority = v
		}
	}
	return r, true, nil
}
