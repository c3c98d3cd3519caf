package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// LnetctlCPT is an NI's `CPT:` as lnetctl import reads it: a string, as export prints it
// ("[0,1]"), or a sequence of CPT expressions ([0, 2-3]), as handle_cpt_sequence accepts
// from 2.17 (LU-19160).
type LnetctlCPT struct {
	Text  string   // the string form
	Items []string // the sequence form's items
	Seq   bool     // written as a sequence
	Path  string   // where it is written
}

func (c *LnetctlCPT) decodeYAML(d *decoder, n *yaml.Node, path string) {
	c.Path = path
	v, _ := d.resolve(n)
	switch v.Kind {
	case yaml.ScalarNode:
		c.Text = v.Value
	case yaml.SequenceNode:
		c.Seq = true
		for _, x := range v.Content {
			if s, ok := d.scalar(x, path, "a CPT expression"); ok {
				c.Items = append(c.Items, s)
			}
		}
	default:
		d.errorf(n, path, `e.g. CPT: "[0,1]"`, "expected a CPT list, got %s", describe(n))
	}
}

// String is the list as export prints it.
func (c LnetctlCPT) String() string {
	if c.Seq {
		return "[" + strings.Join(c.Items, ",") + "]"
	}
	return c.Text
}

// Written reports whether a CPT was given.
func (c LnetctlCPT) Written() bool { return c.Seq || c.Text != "" }

// CPTs parses the list as handle_cpt_sequence does (lnetctl import, 2.17+): a string is one
// cfs_expr_list, each item of a sequence one bracketed expression; an empty sequence is
// "Missing CPT configuration". It returns the largest CPT the list names.
func (c LnetctlCPT) CPTs() (int, error) {
	if !c.Seq {
		return ParseCPTList(c.Text)
	}
	if len(c.Items) == 0 {
		return 0, fmt.Errorf("missing CPT configuration")
	}
	hi := 0
	for _, it := range c.Items {
		h, err := ParseCPTList("[" + it + "]")
		if err != nil {
			return 0, fmt.Errorf("unable to parse CPT '%s'", it)
		}
		hi = max(hi, h)
	}
	return hi, nil
}

// ParseCPTList parses a CPT list as libcfs's cfs_expr_list_parse does (min 0, max UINT_MAX):
// `[expr,expr,...]` where an expr is N, N-M or N-M/S (N <= M) or `*`, or a single N or `*`
// without brackets. It returns the largest CPT named (`*` names every one: -1).
func ParseCPTList(s string) (int, error) {
	bad := fmt.Errorf("unable to parse CPT '%s'", s)
	if s == "" {
		return 0, bad
	}
	if !(strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && len(s) >= 2) {
		hi, ok := cptRange(s, false)
		if !ok {
			return 0, bad
		}
		return hi, nil
	}
	body := s[1 : len(s)-1]
	if body == "" {
		return 0, bad
	}
	hi := 0
	for _, tok := range strings.Split(body, ",") {
		h, ok := cptRange(tok, true)
		if !ok {
			return 0, bad
		}
		if h < 0 || hi < 0 {
			hi = -1
		} else {
			hi = max(hi, h)
		}
	}
	return hi, nil
}

// cptRange parses one range expression (cfs_range_expr_parse): its highest CPT, -1 for `*`.
func cptRange(tok string, bracketed bool) (int, bool) {
	tok = strings.TrimSpace(tok)
	if tok == "*" {
		return -1, true
	}
	num := func(s string) (int, bool) {
		s = strings.TrimSpace(s)
		if s == "" || strings.TrimLeft(s, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseUint(s, 10, 32)
		return int(v), err == nil
	}
	if v, ok := num(tok); ok {
		return v, true
	}
	if !bracketed {
		return 0, false
	}
	lo, rest, ok := strings.Cut(tok, "-")
	if !ok {
		return 0, false
	}
	l, ok := num(lo)
	if !ok {
		return 0, false
	}
	hiS, stride, hasStride := strings.Cut(rest, "/")
	h, ok := num(hiS)
	if !ok {
		return 0, false
	}
	if hasStride {
		if _, ok := num(stride); !ok {
			return 0, false
		}
	}
	return h, l <= h
}
