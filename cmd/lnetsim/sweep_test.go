package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sweep plan refuses a sweep whose points would fail, with exit 2 and the located error,
// before writing any plan; a valid sweep still plans.
func TestSweepPlanChecksEveryPoint(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("../../scenarios/catalogue/drop-rule-health-error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = strconv.Itoa(i)
	}
	cases := []struct{ name, src, want string }{
		{"huge grid", "scenario: " + base + "\nseeds: 1000000000\naxes:\n  lnet.retry_count: [" + strings.Join(vals, ", ") + "]\n",
			"s.yaml:2:8: 1000000000000 runs (1000 points x 1000000000 seed(s)): a sweep plans at most 100000 runs"},
		{"bad axis path", "scenario: " + base + "\naxes:\n  lnet.retry_cnt: [1]\n", `s.yaml:3:20: lnet.retry_cnt: unknown field "retry_cnt" (did you mean retry_count?)`},
		{"bad value", "scenario: " + base + "\naxes:\n  lnet.retry_count: [1, -1]\n", "s.yaml:3:25: lnet.retry_count: must not be negative"},
		{"missing scenario", "scenario: missing.yaml\naxes:\n  lnet.retry_count: [1]\n", "s.yaml:1:11: scenario: cannot read " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
	}
	for _, tc := range cases {
		file := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, tc.name)
		for _, sub := range []string{"plan", "run"} {
			start := time.Now()
			code, stdout, errOut := runCLI(t, "sweep", sub, file, "--out", out)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s: sweep %s took %v to refuse", tc.name, sub, took)
			}
			if code != exitUsage || !strings.Contains(errOut, "lnetsim: "+filepath.Join(dir, tc.want)) || stdout != "" {
				t.Errorf("%s: sweep %s: exit %d, stderr %q; want exit 2 and %q", tc.name, sub, code, errOut, tc.want)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s written for a sweep that does not check (%v)", tc.name, out, err)
		}
	}
}

// TestSweepChildProcess is not a test: TestSweepKilledThenResumed runs the test binary with
// LNETSIM_SWEEP_CHILD set to get a real lnetsim process it can SIGKILL.
func TestSweepChildProcess(t *testing.T) {
	var args []string
	if json.Unmarshal([]byte(os.Getenv("LNETSIM_SWEEP_CHILD")), &args) != nil {
		return // not the child
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// A sweep process killed with SIGKILL mid-run leaves runs/.<id>.tmp-* behind; running the
// sweep again removes it, runs what is missing, and ends with results byte-identical to a
// sweep that was never interrupted.
func TestSweepKilledThenResumed(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("../../sweeps/flapping-rail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	spec := "scenario: " + base + "\nseeds: 2\naxes:\n  duration: [30s]\n  faults[0].until: [25s]\n  lnet.retry_count: [0, 1]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, killed := filepath.Join(dir, "whole"), ""
	if code, _, errOut := runCLI(t, "sweep", "run", file, "--out", whole, "--workers", "1"); code != 0 {
		t.Fatalf("sweep run: exit %d\n%s", code, errOut)
	}

	// The kill must land while a run is being written; a child descheduled past that moment
	// (a loaded machine) is tried again on a fresh directory.
	var stale []string
	for attempt := 0; len(stale) == 0; attempt++ {
		if attempt == 5 {
			t.Fatal("5 children SIGKILLed, none while a run was being written")
		}
		killed = filepath.Join(dir, fmt.Sprintf("killed%d", attempt))
		stale = killMidRun(t, file, killed)
	}
	runs := filepath.Join(killed, "runs")

	code, _, errOut := runCLI(t, "sweep", "run", file, "--out", killed, "--workers", "1")
	if code != 0 || !strings.Contains(errOut, fmt.Sprintf("sweep: removed %d temporary run directories left by an interrupted sweep\n", len(stale))) {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(runs, ".*")); len(left) != 0 {
		t.Fatalf("left after resume: %v", left)
	}
	for _, out := range []string{whole, killed} {
		if code, _, errOut := runCLI(t, "sweep", "merge", file, "--out", out); code != 0 {
			t.Fatalf("merge %s: exit %d\n%s", out, code, errOut)
		}
	}
	if a, b := treeFiles(t, whole), treeFiles(t, killed); !maps.Equal(a, b) {
		t.Fatalf("the resumed sweep's files differ from an uninterrupted sweep's:\n%v\n%v", slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
	}
}

// killMidRun starts `sweep run SWEEP --out out --workers 1` in a child process, SIGKILLs it
// once one run is complete and the next is being written, and returns the temporary run
// directories it left.
func killMidRun(t *testing.T, sweepFile, out string) []string {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestSweepChildProcess$")
	args, _ := json.Marshal([]string{"sweep", "run", sweepFile, "--out", out, "--workers", "1"})
	child.Env = append(os.Environ(), "LNETSIM_SWEEP_CHILD="+string(args))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(out, "runs")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
		tmp, _ := filepath.Glob(filepath.Join(runs, ".*.tmp-*"))
		done, _ := filepath.Glob(filepath.Join(runs, "[0-9a-f]*", "summary.json"))
		if len(tmp) > 0 && len(done) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatal("the child sweep never had a run in progress after a complete one")
		}
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	stale, _ := filepath.Glob(filepath.Join(runs, ".*.tmp-*"))
	return stale
}

// treeFiles maps every file under root (by relative path) to its content.
func treeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
