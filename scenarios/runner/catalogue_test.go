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

// TestCatalogueExpectationsCanFail: for every catalogue scenario with faults, the same
// scenario without its faults (the timeline's lnetctl commands included) must fail at least
// one expectation that observes the network (a `command` expectation, which fails merely
// because its command is gone, does not count), so that the expectations tell the faulted
// behaviour from the healthy one. A scenario that does not run fails.
func TestCatalogueExpectationsCanFail(t *testing.T) {
	for _, name := range scenarios.Catalogue() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Faults) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s.Faults = nil
			res, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Summary.Expectations) != len(s.Expect) {
				t.Fatalf("%d expectation results for %d expectations", len(res.Summary.Expectations), len(s.Expect))
			}
			for i, e := range res.Summary.Expectations {
				if !e.Passed && s.Expect[i].Check != "command" {
					return
				}
			}
			t.Errorf("without its faults every expectation on the network still passes")
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
