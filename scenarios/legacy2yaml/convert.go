package legacy2yaml

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Error is input the script refuses: Msg is the script's message (its exit status 2), Fix
// says what to write instead, and Source:Line:Col is where the refused part was written
// (Source is a file's name, ArgumentSource or StdinSource).
type Error struct {
	Source string
	Pos
	Msg string
	Fix string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Col, e.Msg)
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// The Source of text given as the command's argument and on its standard input.
const (
	ArgumentSource = "<argument>"
	StdinSource    = "<stdin>"
)

// Rule is one ip2nets rule: its net, the interfaces it names and its ip-range patterns.
type Rule struct {
	Net        string
	Interfaces []string
	IPRanges   []string
}

// Route is one route: net, gateway, and the hop count and priority when given (HasHop;
// Priority "" when not given, else a decimal integer, which may be large or negative as
// the script's Python integers may be).
type Route struct {
	Net, Gateway string
	Hop          int
	HasHop       bool
	Priority     string
}

// Network is one networks= entry: its net and the interfaces it names.
type Network struct {
	Type       string
	Interfaces []string
}

// Converter gathers what its inputs hold, in the order they are given; the script reads
// modprobe files first, then -i, -r and -n files, then the argument or standard input.
type Converter struct {
	Rules    []Rule
	Routes   []Route
	Networks []Network
}

// Empty says whether nothing was gathered (the script's "no ... data provided", status 1).
func (c *Converter) Empty() bool {
	return len(c.Rules) == 0 && len(c.Routes) == 0 && len(c.Networks) == 0
}

// NoDataMessage is the script's refusal when its inputs hold nothing to convert.
const NoDataMessage = "no ip2nets, routes, or networks data provided (use -m/-i/-r, inline arg, or stdin)"

// Param names the parameter a File holds.
type Param string

// The parameters the script converts.
const (
	IP2Nets  Param = "ip2nets"
	Routes   Param = "routes"
	Networks Param = "networks"
)

func read(source, content string, universal bool) (text, error) {
	t, bad, ok := newText(content, universal)
	if !ok {
		return text{}, &Error{Source: source, Pos: bad, Msg: "the input is not UTF-8 text", Fix: "save it as UTF-8"}
	}
	return t, nil
}

// File converts a file holding one parameter's value (the script's -i, -r and -n).
func (c *Converter) File(p Param, name, content string) error {
	t, err := read(name, content, true)
	if err != nil {
		return err
	}
	return c.body(name, p, t)
}

// Inline converts the argument (source ArgumentSource) or standard input (StdinSource): the
// parameter assignments it holds or, when it holds none, the whole text as ip2nets rules.
// An empty text adds nothing.
func (c *Converter) Inline(source, content string) error {
	t, err := read(source, content, false)
	if err != nil {
		return err
	}
	if t.len() == 0 {
		return nil
	}
	found := extractParams(t)
	if len(found) == 0 {
		return c.body(source, IP2Nets, t)
	}
	return c.params(source, found)
}

// Modprobe converts the lnet options of a modprobe configuration file (the script's -m):
// each line, joined with the next while it ends in a backslash, that starts with "options"
// and holds "lnet" anywhere (the script's parse_modprobe_conf).
func (c *Converter) Modprobe(name, content string) error {
	t, err := read(name, content, true)
	if err != nil {
		return err
	}
	var found []assignment
	lines := t.split(func(r rune) bool { return r == '\n' })
	for i := 0; i < len(lines); {
		line := lines[i].strip()
		for line.len() > 0 && line.r[line.len()-1] == '\\' && i+1 < len(lines) {
			bs := line.pos(line.len() - 1)
			line = concat(line.slice(0, line.len()-1), char(' ', bs), lines[i+1].strip())
			i++
		}
		i++
		if line.len() == 0 || line.r[0] == '#' {
			continue
		}
		if line.hasPrefix(0, "options") && line.contains("lnet") {
			found = merge(found, extractParams(line))
		}
	}
	return c.params(name, found)
}

// params converts the bodies found: every ip2nets body, then every routes body, then every
// networks body, each in the order written.
func (c *Converter) params(source string, found []assignment) error {
	for _, p := range []Param{IP2Nets, Routes, Networks} {
		for _, a := range found {
			if a.name != p {
				continue
			}
			for _, b := range a.bodies {
				if err := c.body(source, p, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *Converter) body(source string, p Param, t text) error {
	var err *refusal
	switch p {
	case IP2Nets:
		var rs []Rule
		rs, err = parseIP2Nets(t)
		c.Rules = append(c.Rules, rs...)
	case Routes:
		var rs []Route
		rs, err = parseRoutes(t)
		c.Routes = append(c.Routes, rs...)
	case Networks:
		var ns []Network
		ns, err = parseNetworks(t)
		c.Networks = append(c.Networks, ns...)
	}
	if err != nil {
		return &Error{Source: source, Pos: err.at, Msg: err.msg, Fix: err.fix}
	}
	return nil
}

// refusal is a parser's refusal before its source is known.
type refusal struct {
	at       Pos
	msg, fix string
}

// DefaultHop gives hop count n to every route given none (the script's --default-hop;
// refused outside 1-255, status 2).
func (c *Converter) DefaultHop(n int) error {
	if n < 1 || n > 255 {
		return fmt.Errorf("--default-hop value %d out of range (1-255)", n)
	}
	for i := range c.Routes {
		if !c.Routes[i].HasHop {
			c.Routes[i].Hop, c.Routes[i].HasHop = n, true
		}
	}
	return nil
}

// YAML is the document the script prints: the net section, then ip2nets, then route, each
// present when it has entries, laid out as the script's emit_yaml lays them out ("" when
// empty).
func (c *Converter) YAML() string {
	var b strings.Builder
	if len(c.Networks) > 0 {
		b.WriteString("net:\n")
		for _, n := range c.Networks {
			fmt.Fprintf(&b, "-     net type: %s\n", n.Type)
			if len(n.Interfaces) > 0 {
				b.WriteString("      local NI(s):\n      -     interfaces:\n")
				writeIndexed(&b, "                  ", n.Interfaces)
			}
		}
	}
	if len(c.Rules) > 0 {
		b.WriteString("ip2nets:\n")
		for _, r := range c.Rules {
			fmt.Fprintf(&b, "  - net-spec: %s\n", r.Net)
			if len(r.Interfaces) > 0 {
				b.WriteString("    interfaces:\n")
				writeIndexed(&b, "         ", r.Interfaces)
			}
			b.WriteString("    ip-range:\n")
			ranges := make([]string, len(r.IPRanges))
			for i, p := range r.IPRanges {
				ranges[i] = quoteStar(p)
			}
			writeIndexed(&b, "         ", ranges)
		}
	}
	if len(c.Routes) > 0 {
		b.WriteString("route:\n")
		for _, r := range c.Routes {
			fmt.Fprintf(&b, "  - net: %s\n    gateway: %s\n", r.Net, r.Gateway)
			if r.HasHop {
				fmt.Fprintf(&b, "    hop: %d\n", r.Hop)
			}
			if r.Priority != "" {
				fmt.Fprintf(&b, "    priority: %s\n", r.Priority)
			}
		}
	}
	return b.String()
}

// writeIndexed writes items as the script writes a list: one "N: item" line each, numbered
// from 0, after indent.
func writeIndexed(b *strings.Builder, indent string, items []string) {
	for i, it := range items {
		fmt.Fprintf(b, "%s%d: %s\n", indent, i, it)
	}
}

// quoteStar double-quotes a pattern starting with '*', which YAML would read as an alias.
func quoteStar(s string) string {
	if strings.HasPrefix(s, "*") {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return s
}

// pyInt reads an integer as Python's int() reads text: white space around, an optional
// sign, decimal digits (any script's) with single underscores between them; it returns the
// value in canonical ASCII decimal (no leading zeros, "-" only when negative).
func pyInt(s string) (string, bool) {
	r := []rune(strings.TrimFunc(s, isSpace))
	neg := false
	if len(r) > 0 && (r[0] == '+' || r[0] == '-') {
		neg = r[0] == '-'
		r = r[1:]
	}
	if len(r) == 0 || r[0] == '_' || r[len(r)-1] == '_' {
		return "", false
	}
	var d strings.Builder
	for i, c := range r {
		if c == '_' {
			if r[i-1] == '_' {
				return "", false
			}
			continue
		}
		v, ok := digitValue(c)
		if !ok {
			return "", false
		}
		if d.Len() > 0 || v != 0 {
			d.WriteByte(byte('0' + v))
		}
	}
	if d.Len() == 0 {
		return "0", true
	}
	if neg {
		return "-" + d.String(), true
	}
	return d.String(), true
}

// digitValue is the value of a decimal digit of any script: Unicode places each script's
// digits 0 to 9 at consecutive code points, so a digit's value is the count of digits just
// before it, modulo 10.
func digitValue(c rune) (int, bool) {
	if !unicode.IsDigit(c) {
		return 0, false
	}
	n := 0
	for p := c - 1; unicode.IsDigit(p); p-- {
		n++
	}
	return n % 10, true
}

// smallInt is a canonical decimal from pyInt as an int, clamped far outside any range
// checked here.
func smallInt(s string) int {
	if len(s) > 6 {
		if s[0] == '-' {
			return -1 << 20
		}
		return 1 << 20
	}
	v, _ := strconv.Atoi(s)
	return v
}

// ParseInt reads an integer as Python's int() does (see pyInt) and returns it clamped to
// [-2^20, 2^20]: what --default-hop reads.
func ParseInt(s string) (int, bool) {
	v, ok := pyInt(s)
	if !ok {
		return 0, false
	}
	return smallInt(v), true
}

// pyRepr is Python's repr() of a str, for the one message that quotes it.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
