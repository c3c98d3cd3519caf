package runner

import (
	"errors"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestCatalogue runs every built-in scenario: all expectations must hold, except for
// scenarios that need something not modelled yet (reported, not hidden).
func TestCatalogue(t *testing.T) {
	for _, name := range scenarios.Catalogue() {
		t.Run(name, func(t *testing.T) {
			s, err := scenarios.LoadBuiltin(name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(s, Options{})
			if errors.Is(err, ErrUnsupported) {
				t.Skipf("not runnable yet: %v", err)
			}
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
		e.State = map[string]string{"up": "down", "down": "up"}[e.State]
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

// TestCatalogueExpectationsCanFail inverts each runnable scenario's key (first) expectation
// and requires check to fail it: an expectation that cannot fail proves nothing.
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
			if errors.Is(err, ErrUnsupported) {
				t.Skipf("not runnable yet: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if e := res.Summary.Expectations[0]; e.Passed {
				t.Fatalf("inverted %q still passes: %s", e.Name, e.Detail)
			}
		})
	}
}
