package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// runCLI runs the CLI in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBenchPhold(t *testing.T) {
	code, out, _ := runCLI(t, "bench", "phold", "--lps", "100", "--pop", "100", "--end", "10ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var res pholdResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Events == 0 || res.Checksum == 0 || res.End != "10ms" {
		t.Fatalf("result %+v", res)
	}
	// Same configuration, same events and checksum.
	_, out2, _ := runCLI(t, "bench", "phold", "--lps", "100", "--pop", "100", "--end", "10ms", "--json")
	var res2 pholdResult
	_ = json.Unmarshal([]byte(out2), &res2)
	if res2.Events != res.Events || res2.Checksum != res.Checksum {
		t.Fatal("PHOLD is not deterministic")
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := [][]string{
		{"bench", "phold", "--end", "10parsecs"},
		{"bench", "phold", "--lps", "0"},
		{"bench", "phold", "--no-such-flag"},
		{"plot", t.TempDir()},
		{"sweep", "plan", filepath.Join(t.TempDir(), "missing.yaml")},
	}
	for _, args := range cases {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "lnetsim:") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with a message", args, code, errOut)
		}
	}
}

func TestSweepPlanAndEmit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("scenario: base.yaml\nseeds: 2\naxes:\n  lnet.retry_count: [0, 1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "sweep", "plan", file, "--out", dir)
	if code != 0 || !strings.HasPrefix(out, "6 runs: 3 points x 2 seeds") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "plan.jsonl")); err != nil || strings.Count(string(b), "\n") != 6 {
		t.Fatalf("plan.jsonl: %v", err)
	}
	code, out, _ = runCLI(t, "sweep", "emit", "slurm", file, "--out", "res", "--shards", "3")
	if code != 0 || !strings.Contains(out, "#SBATCH --array=0-2") {
		t.Fatalf("emit slurm: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "sweep", "emit", "pbs", file, "--out", "res"); code != exitUsage {
		t.Fatalf("emit pbs: exit %d, want 2", code)
	}
}

func TestPlotCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := record.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Health(record.HealthChange{Time: sim.Second, Node: "c", Kind: "ni", NID: "10.0.0.1@o2ib", Old: 1000, New: 900})
	r.Message(record.Message{ID: 1, Type: "PUT", Size: 4096, Start: 0, End: sim.Millisecond, HStatus: "OK"})
	r.WriteJSON(record.SummaryFile, record.Summary{Scenario: "demo", Seed: 3})
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "plot", dir, "--format", "svg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"health.svg", "throughput.svg", "latency.svg"} {
		if !strings.Contains(out, f) {
			t.Errorf("plot did not write %s:\n%s%s", f, out, errOut)
		}
	}
}
