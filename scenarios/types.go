package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/scenarios/units"
)

// Ratio is an oversubscription ratio down:up, written "2:1" (or "2").
type Ratio struct {
	Down, Up int
}

// UnmarshalText reads "down:up" or a single integer (down:1).
func (r *Ratio) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	d, u, found := strings.Cut(s, ":")
	if !found {
		u = "1"
	}
	dn, err1 := strconv.Atoi(strings.TrimSpace(d))
	up, err2 := strconv.Atoi(strings.TrimSpace(u))
	if err1 != nil || err2 != nil || dn < 1 || up < 1 || dn > 64 || up > 64 {
		return fmt.Errorf("invalid ratio %q: write down:up with whole numbers from 1 to 64, e.g. 2:1", s)
	}
	*r = Ratio{dn, up}
	return nil
}

// MarshalText writes "down:up".
func (r Ratio) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d:%d", r.Down, r.Up), nil }

// NameList is a list of names that may be written as a single scalar.
type NameList []string

func (l *NameList) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		*l = NameList{n.Value}
		return
	}
	var s []string
	d.decodeSlice(n, reflectValue(&s), path, fieldOpts{})
	*l = s
}

// Bound is an expectation's bound as written (a count, a health value, a duration or a rate);
// Load checks it against the expectation's kind and stores the value in the kind's base unit
// (count, nanoseconds, bits per second) in Value.
type Bound struct {
	Raw   string `json:"raw"`
	Value int64  `json:"value"`
	Set   bool   `json:"-"`
}

func (b *Bound) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if s, ok := d.scalar(n, path, "a number, a duration or a rate"); ok {
		*b = Bound{Raw: s, Set: true}
	}
}

// MarshalJSON writes the bound as written, or null.
func (b Bound) MarshalJSON() ([]byte, error) {
	if !b.Set {
		return []byte("null"), nil
	}
	return []byte(strconv.Quote(b.Raw)), nil
}

// parseBound converts a bound's text for the given kind: "count", "duration" or "rate".
func parseBound(raw, kind string) (int64, error) {
	switch kind {
	case "duration":
		t, err := units.ParseDuration(raw)
		return int64(t), err
	case "rate":
		r, err := units.ParseRate(raw)
		return int64(r), err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("expected a whole number, got %q", raw)
	}
	return v, nil
}

func (n *NISpec) decodeYAML(d *decoder, y *yaml.Node, path string) {
	if y.Kind == yaml.ScalarNode {
		n.Net = y.Value
		return
	}
	d.decodeStruct(y, reflectValue(n), path)
}
