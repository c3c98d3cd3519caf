package runner

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
)

// lnetctl evaluates an lnetctl check: it renders the command's output on the node now and
// compares it with present, absent and equal. The detail names the first difference and
// the printed YAML's section it concerns.
func (ch *checker) lnetctl(e *scenarios.Expectation) record.Expectation {
	res := record.Expectation{Name: e.Name}
	n := ch.cluster.byName[e.Node]
	if n == nil {
		res.Detail = fmt.Sprintf("no node %s", e.Node)
		return res
	}
	var doc any
	if e.Show != nil {
		doc = showLeveled(ch.cluster, n, e.Show)
	} else {
		doc = show(ch.cluster, n, e.Command)
	}
	got, err := plainDoc(doc)
	if err != nil {
		res.Detail = err.Error()
		return res
	}
	var fails []string
	if e.Present != nil {
		if why := subset(e.Present.Value, got, ""); why != "" {
			fails = append(fails, "present: "+why)
		}
	}
	if e.Absent != nil {
		for _, k := range slices.Sorted(maps.Keys(e.Absent.Value)) {
			if why := absent(k, e.Absent.Value[k], got[k]); why != "" {
				fails = append(fails, "absent: "+why)
			}
		}
	}
	if e.Equal != nil {
		for _, k := range slices.Sorted(maps.Keys(e.Equal.Value)) {
			if !sectionEqual(e.Equal.Value[k], got[k]) {
				fails = append(fails, fmt.Sprintf("equal: %s differs, printed %s", k, compact(got[k])))
			}
		}
	}
	res.Passed = len(fails) == 0
	res.Detail = fmt.Sprintf("lnetctl %s on %s at %s", e.Command, e.Node, e.At)
	if !res.Passed {
		res.Detail += ": " + strings.Join(fails, "; ")
	}
	return res
}

// plainDoc turns a rendered document into the plain values a YAML loader reads back from
// what lnetctl prints.
func plainDoc(doc any) (map[string]any, error) {
	b, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	m, _ := scenarios.PlainYAML(&n).(map[string]any)
	return m, nil
}

// subset reports why want is not contained in got ("" when it is): every key of a mapping
// with a contained value, every item of a list contained in a distinct item of got's list,
// scalars equal.
func subset(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: printed %s, not a mapping", orRoot(path), compact(got))
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: no key %q", orRoot(path), k)
			}
			if why := subset(w[k], gv, join(path, k)); why != "" {
				return why
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: printed %s, not a list", orRoot(path), compact(got))
		}
		used := make([]bool, len(g))
		for i, wi := range w {
			if j := findItem(wi, g, used); j >= 0 {
				used[j] = true
				continue
			}
			return fmt.Sprintf("%s[%d] %s: no such item among %d printed", orRoot(path), i, compact(wi), len(g))
		}
		return ""
	}
	if !equalYAML(want, got) {
		return fmt.Sprintf("%s: printed %s, want %s", orRoot(path), compact(got), compact(want))
	}
	return ""
}

// findItem returns the index of the first unused item of g that contains w, or -1.
func findItem(w any, g []any, used []bool) int {
	for j, gi := range g {
		if !used[j] && subset(w, gi, "") == "" {
			return j
		}
	}
	return -1
}

// absent reports why section k's want is present in got: a list's items must each match no
// printed item; another value must not be contained.
func absent(k string, want, got any) string {
	if got == nil {
		return ""
	}
	if w, ok := want.([]any); ok {
		g, _ := got.([]any)
		for _, wi := range w {
			if j := findItem(wi, g, make([]bool, len(g))); j >= 0 {
				return fmt.Sprintf("%s[%d] printed: %s", k, j, compact(g[j]))
			}
		}
		return ""
	}
	if subset(want, got, k) == "" {
		return fmt.Sprintf("%s printed: %s", k, compact(got))
	}
	return ""
}

// sectionEqual compares a top-level section: one lnetctl leaves out when it is empty
// equals an empty list or mapping.
func sectionEqual(want, got any) bool {
	if got == nil {
		switch w := want.(type) {
		case []any:
			return len(w) == 0
		case map[string]any:
			return len(w) == 0
		}
	}
	return equalYAML(want, got)
}

// equalYAML compares plain YAML values as a YAML loader's objects compare: mappings by
// keys, lists in order, numbers by value.
func equalYAML(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

// number returns v as a float64 when it is a YAML integer or float.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// compact renders a value on one line for a detail.
func compact(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(string(b))
	if strings.Contains(s, "\n") {
		var n yaml.Node
		if yaml.Unmarshal(b, &n) == nil {
			setFlow(&n, 0)
			if fb, err := yaml.Marshal(&n); err == nil {
				s = strings.TrimSpace(string(fb))
			}
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// setFlow makes every collection of n flow style.
func setFlow(n *yaml.Node, depth int) {
	if depth > 64 {
		return
	}
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c, depth+1)
	}
}

func orRoot(p string) string {
	if p == "" {
		return "document"
	}
	return p
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}
