package main

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
	"github.com/lnetsim/lnetsim/sim"
)

// runStarts reports whether a run of file on backend gets to its first event: it loads and
// runner.Run, limited to one event, fails only on that limit (or finishes).
func runStarts(file, backend string) bool {
	s, err := scenarios.LoadFile(file)
	if err != nil {
		return false
	}
	_, err = runner.Run(s, runner.Options{Backend: backend, MaxEvents: 1})
	return err == nil || errors.Is(err, sim.ErrEventLimit)
}

// TestValidateAgreesWithRun checks, for every catalogue scenario and every error fixture on
// both backends, that lnetsim validate accepts a file exactly when a run of it starts.
// Every catalogue scenario is valid on o2ib and every fixture invalid; on the ideal LND,
// cm-reject (an o2ib-only action) is refused by both.
func TestValidateAgreesWithRun(t *testing.T) {
	catalogue, _ := filepath.Glob("../../scenarios/catalogue/*.yaml")
	fixtures, _ := filepath.Glob("../../scenarios/testdata/errors/*.yaml")
	if len(catalogue) == 0 || len(fixtures) == 0 {
		t.Fatal("no scenario files found")
	}
	for _, backend := range []string{runner.BackendO2IB, runner.BackendIdeal} {
		accepted := map[string]bool{}
		for _, f := range append(append([]string{}, catalogue...), fixtures...) {
			code, _, _ := runCLI(t, "validate", "-q", "--backend", backend, f)
			valid, starts := code == 0, runStarts(f, backend)
			if valid != starts {
				t.Errorf("%s on %s: validate exit %d, run starts %v", f, backend, code, starts)
			}
			accepted[f] = valid
		}
		n := 0
		for _, f := range catalogue {
			if accepted[f] {
				n++
			}
		}
		for _, f := range fixtures {
			if accepted[f] {
				t.Errorf("%s: validate accepts an error fixture", f)
			}
		}
		switch {
		case backend == runner.BackendO2IB && n != len(catalogue):
			t.Errorf("o2ib: validate accepts %d of %d catalogue scenarios", n, len(catalogue))
		case backend == runner.BackendIdeal && accepted["../../scenarios/catalogue/cm-reject.yaml"]:
			t.Error("ideal: cm-reject accepted")
		}
	}
}
