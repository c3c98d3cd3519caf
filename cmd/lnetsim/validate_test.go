package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestValidatePrintsFewErrors runs validate on inputs that printed tens of thousands of
// lines (100000 NIs on one node: 99,938; a faults list past the value limit: 126,448 with a
// false first line) and on 25 bad faults: it prints the root cause alone, or the first 20
// errors and a count of the rest, then its one-line summary.
func TestValidatePrintsFewErrors(t *testing.T) {
	dir := t.TempDir()
	nis := "duration: 10s\nnodes:\n  client:\n    nis:\n" + strings.Repeat("      - o2ib0\n", 100000)
	faults := "duration: 10s\nnodes:\n  client:\n    nis: [o2ib0]\nfaults:\n" + strings.Repeat("  - {at: 1s, action: link_down, ni: client:0, for: 1ms}\n", 50000)
	bad := "duration: 10s\nnodes:\n  client:\n    nis: [o2ib0]\nfaults:\n" + strings.Repeat("  - {at: 1s, action: link_dwn, ni: client:0}\n", 25)
	for _, c := range []struct {
		name, data string
		lines      int
		first      string
	}{
		{"nis.yaml", nis, 2, `nis.yaml:5:7: nodes.client.nis: node "client" has 100000 NIs; a node has at most 128`},
		{"faults.yaml", faults, 2, "faults.yaml:40004:10: document too large: more than 200000 values"},
		{"bad.yaml", bad, 22, `bad.yaml:6:22: faults[0].action: unknown action "link_dwn"`},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "validate", path)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 2 || len(lines) != c.lines || !strings.HasPrefix(lines[0], filepath.Join(dir, c.first)) {
			t.Errorf("%s: exit %d, %d lines, first %q; want exit 2, %d lines, first %s...", c.name, code, len(lines), lines[0], c.lines, c.first)
		}
	}
}

// TestValidateFatTreeCountsCabledPorts: an NI on port 2 alone cables its HCA's port 1 too.
// The fabric counted one host port per NI, gave two such nodes one leaf of two host ports,
// then cabled four ports and panicked (index out of range) in validate and run alike; a
// fat tree too small for the ports cabled is refused at load, located at fabric.radix.
func TestValidateFatTreeCountsCabledPorts(t *testing.T) {
	dir := t.TempDir()
	head := "duration: 1s\nfabric: {topology: fat-tree, radix: 4, oversubscription: \"1:1\"}\nnodes:\n"
	fits := head + "  a: {nis: [{net: o2ib0, port: 2}]}\n  b: {nis: [{net: o2ib0, port: 2}]}\n"
	tooMany := head + "  a: {count: 5, nis: [{net: o2ib0, port: 2}]}\n"
	for _, c := range []struct {
		name, data string
		code       int
		stderr     string
	}{
		{"fits.yaml", fits, 0, ""},
		{"too-many.yaml", tooMany, 2, "too-many.yaml:2:37: fabric.radix: 10 host ports need 5 leaves of 2 host ports, more than a spine's 4 ports"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "validate", "-q", path)
		want := ""
		if c.stderr != "" {
			want = filepath.Join(dir, c.stderr)
		}
		if code != c.code || !strings.HasPrefix(stderr, want) || want == "" && stderr != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, %q...", c.name, code, stderr, c.code, want)
		}
		if c.code == 0 && !runStarts(path, runner.BackendO2IB) {
			t.Errorf("%s: validate accepts it but the run does not start", c.name)
		}
	}
}
