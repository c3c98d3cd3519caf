package runner

import (
	"errors"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestCatalogue runs every built-in scenario: each must run (one that does not, for any
// reason, fails) and all its expectations must hold.
func TestCatalogue(t *testing.T) {
	for _, name := range scenarios.Catalogue() {
		t.Run(name, func(t *testing.T) {
			s, err := scenarios.LoadBuiltin(name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range res.Summary.Expectations {
				if !e.Passed {
					t.Errorf("%s: %s", e.Name, e.Detail)
				}
			}
		})
	}
}

// invert turns an expectation into its opposite, so that a run meeting the original fails it.
func invert(e *scenarios.Expectation) {
	switch {
	case e.Check == "ni_status" || e.Check == "route":
		e.State = map[string]string{"up": "down", "down": "up", "absent": "up"}[e.State]
	case e.Check == "command":
		e.Status = map[bool]string{true: "EINVAL", false: "ok"}[e.Status == "ok"]
	case e.Check == "lnetctl":
		// what must be printed must not be, and the other way round
		e.Present, e.Absent = e.Absent, e.Present
		if e.Equal != nil {
			e.Absent, e.Equal = e.Equal, nil
		}
	case e.Changed != nil:
		v := !*e.Changed
		e.Changed = &v
	case e.Eq.Set:
		e.Eq.Value++
		e.Eq.Raw += "+1"
	case e.Min.Set && !e.Max.Set:
		e.Max, e.Min = e.Min, scenarios.Bound{}
		e.Max.Value--
	case e.Max.Set && !e.Min.Set:
		e.Min, e.Max = e.Max, scenarios.Bound{}
		e.Min.Value++
	}
}

// TestCatalogueExpectationsCanFail inverts each scenario's key (first) expectation
// and requires check to fail it: an expectation that cannot fail proves nothing. A scenario
// that does not run fails.
func TestCatalogueExpectationsCanFail(t *testing.T) {
	for _, name := range scenarios.Catalogue() {
		t.Run(name, func(t *testing.T) {
			s, err := scenarios.LoadBuiltin(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Expect) == 0 {
				t.Fatal("a catalogue scenario without expectations")
			}
			invert(&s.Expect[0])
			res, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if e := res.Summary.Expectations[0]; e.Passed {
				t.Fatalf("inverted %q still passes: %s", e.Name, e.Detail)
			}
		})
	}
}

// TestOnlyCapabilityChecksAreUnsupported: a run that cannot be built (here a fat tree too
// small for its hosts, set after loading) fails with its own error, which the catalogue and
// golden tests report as a failure; ErrUnsupported marks only what a backend cannot do.
func TestOnlyCapabilityChecksAreUnsupported(t *testing.T) {
	s, err := scenarios.Load("ft.yaml", []byte("name: ft\nduration: 1s\nfabric: {topology: fat-tree}\n"+
		"nodes: {a: {nis: [o2ib0]}, b: {count: 8, nis: [o2ib0]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Fabric.Radix = 4
	_, err = Run(s, Options{})
	want := "fat tree: 9 host ports need 5 leaves of 2 down ports, more than a spine's 4 ports (use a larger radix)"
	if err == nil || err.Error() != want || errors.Is(err, ErrUnsupported) {
		t.Fatalf("Run = %v (unsupported: %v), want %q, not ErrUnsupported", err, errors.Is(err, ErrUnsupported), want)
	}
	s, err = scenarios.LoadBuiltin("link-loss")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(s, Options{Backend: BackendIdeal})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("link_loss on the ideal backend: %v, want ErrUnsupported", err)
	}
}
