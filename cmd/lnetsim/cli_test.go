package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/trace/pcap"
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
		{"run", "--out", "", "--counters", "peers", "builtin:default"},
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
	base, _ := filepath.Abs("../../scenarios/catalogue/drop-rule-health-error.yaml") // plan checks every point against it
	if err := os.WriteFile(file, []byte("scenario: "+base+"\nseeds: 2\naxes:\n  lnet.retry_count: [0, 1, 2]\n"), 0o644); err != nil {
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

// TestPlotCommand: plot draws every figure the run has data for as a PNG file in the run
// directory, names each on stdout, and says on stderr why the others were not drawn.
func TestPlotCommand(t *testing.T) {
	dir := plotRunDir(t, "")
	code, out, errOut := runCLI(t, "plot", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var wrote []string
	for _, name := range []string{"health", "throughput", "ni-traffic", "latency"} {
		path := filepath.Join(dir, name+".png")
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != 768 || cfg.Height != 462 {
			t.Errorf("%s: %dx%d, %v; want a 768x462 PNG", path, cfg.Width, cfg.Height, err)
		}
		wrote = append(wrote, "wrote "+path+"\n")
	}
	if want := strings.Join(wrote, ""); len(wrote) != 3 || out != want {
		t.Fatalf("stdout %q, want %q (3 figures)", out, want)
	}
	if !strings.HasPrefix(errOut, "lnetsim plot: ni-traffic not drawn: ") {
		t.Fatalf("stderr %q, want the reason ni-traffic was not drawn", errOut)
	}
}

func TestSweepRunResumeMerge(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("../../scenarios/catalogue/drop-rule-health-error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	spec := "scenario: " + base + "\nseeds: 2\naxes:\n  lnet.retry_count: [0, 2]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, errOut := runCLI(t, "sweep", "run", file, "--out", out, "--workers", "2"); code != 0 {
		t.Fatalf("sweep run: exit %d\n%s", code, errOut)
	}
	code, _, errOut := runCLI(t, "sweep", "run", file, "--out", out)
	if code != 0 || !strings.Contains(errOut, "0 ran, 4 already complete") {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "sweep", "merge", file, "--out", out); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, errOut)
	}
	agg, err := os.ReadFile(filepath.Join(out, "aggregate.csv"))
	if err != nil || !strings.Contains(string(agg), ",resend_count,2,") {
		t.Fatalf("aggregate.csv: %v\n%s", err, agg)
	}
	if code, stdout, errOut := runCLI(t, "sweep", "plot", file, "--out", out, "--x", "lnet.retry_count", "--metric", "resend_count"); code != 0 || !strings.Contains(stdout, "resend_count.png") {
		t.Fatalf("sweep plot: exit %d\n%s%s", code, stdout, errOut)
	}
	// One axis: --x defaults to it. No --metric, or an unknown one: the error lists the
	// metrics aggregate.csv has. No aggregate.csv: merge first.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--out", out, "--metric", "messages_failed"}, 0, "messages_failed.png"},
		{[]string{"--out", out}, exitUsage, "--metric is required (repeatable); " + filepath.Join(out, "aggregate.csv") + " has: "},
		{[]string{"--out", out, "--metric", "nope"}, exitUsage, "which has: "},
		{[]string{"--out", out, "--x", "lnet.health_sensitivity", "--metric", "resend_count"}, exitUsage, "not an axis of"},
		{[]string{"--out", dir, "--metric", "resend_count"}, exitRuntime, "run lnetsim sweep merge first"},
	} {
		code, stdout, errOut := runCLI(t, append([]string{"sweep", "plot", file}, tc.args...)...)
		if code != tc.code || !strings.Contains(stdout+errOut, tc.want) {
			t.Errorf("sweep plot %v: exit %d, want %d and %q\n%s%s", tc.args, code, tc.code, tc.want, stdout, errOut)
		}
		if tc.code == exitUsage && !strings.Contains(errOut, "resend_count") && !strings.Contains(errOut, "not an axis") {
			t.Errorf("sweep plot %v: the error does not list the metrics: %s", tc.args, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "sweep", "run", file, "--out", out, "--workers", "0"); code != exitUsage || !strings.Contains(errOut, "--workers 0") {
		t.Fatalf("--workers 0: exit %d, want 2\n%s", code, errOut)
	}
	// A shard index from a Slurm array needs a shard count.
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if code, _, _ := runCLI(t, "sweep", "run", file, "--out", out); code != exitUsage {
		t.Fatalf("slurm without a count: exit %d, want 2", code)
	}
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, "check", "--out", "", "builtin:default"); code != 0 {
		t.Fatalf("check default: exit %d\n%s%s", code, out, errOut)
	}
	junit := filepath.Join(dir, "r.xml")
	code, _, _ := runCLI(t, "check", "--out", "", "--junit", junit, "--set", "expect[0].state=up", "builtin:default")
	if code != exitExpectFail {
		t.Fatalf("inverted expectation: exit %d, want 3", code)
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), "<failure") {
		t.Fatalf("junit report: %v", err)
	}
	if code, _, _ := runCLI(t, "check", "--out", "", "--backend", "ideal", "builtin:link-loss"); code != exitRuntime {
		t.Fatalf("link loss on the ideal backend: exit %d, want 1", code)
	}
	if code, _, _ := runCLI(t, "check", "no-such-file.yaml"); code != exitUsage {
		t.Fatalf("missing file: exit %d, want 2", code)
	}
}

func TestRunDefaultWritesResults(t *testing.T) {
	out := t.TempDir()
	code, stdout, errOut := runCLI(t, "run", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"== rail-failure", "NI status", "PASS", "Results: "} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("story lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := record.ReadSummary(filepath.Join(out, "rail-failure")); err != nil {
		t.Fatal(err)
	}
}

// TestSweepWorkersDoNotChangeResults runs one sweep with 1 and with 3 workers: every run
// directory must be byte-identical (runs share nothing but the process and its heap).
func TestSweepWorkersDoNotChangeResults(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("../../scenarios/catalogue/drop-rule-health-error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	spec := "scenario: " + base + "\nseeds: 2\naxes:\n  lnet.retry_count: [0, 2]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{}
	for _, workers := range []string{"1", "3"} {
		out := filepath.Join(dir, "w"+workers)
		if code, _, errOut := runCLI(t, "sweep", "run", file, "--out", out, "--workers", workers); code != 0 {
			t.Fatalf("sweep run --workers %s: exit %d\n%s", workers, code, errOut)
		}
		outs[workers] = out
	}
	n := 0
	err = filepath.WalkDir(outs["1"], func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(outs["1"], p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(outs["3"], rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 4*6 {
		t.Fatalf("compared only %d files", n)
	}
}

// TestReadmeScenarioExample: the scenario the README shows under "Scenario files" is valid
// and its expectations hold, and inverting one (the dropped write's failure) fails the check.
func TestReadmeScenarioExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n```yaml\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```yaml block")
	}
	file := filepath.Join(t.TempDir(), "readme.yaml")
	if err := os.WriteFile(file, []byte(block+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "check", "--out", "", file); code != 0 {
		t.Fatalf("README example: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "check", "--out", "", "--set", "expect[2].eq=0", file); code != exitExpectFail {
		t.Fatalf("README example with 0 failed writes expected: exit %d, want 3\n%s", code, out)
	}
}

// wireshark-plugin prints the Lua dissector, writes it to --out DIR, and with --install to
// the personal plugin folder under HOME.
func TestWiresharkPlugin(t *testing.T) {
	code, out, errOut := runCLI(t, "wireshark-plugin")
	if code != 0 || out != string(pcap.PingDissector) {
		t.Fatalf("print: exit %d, %d bytes (want the %d-byte plugin)\n%s", code, len(out), len(pcap.PingDissector), errOut)
	}
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "wireshark-plugin", "--out", dir); code != 0 {
		t.Fatalf("--out: exit %d\n%s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "lnet_ping.lua")); err != nil || !bytes.Equal(b, pcap.PingDissector) {
		t.Fatalf("--out wrote %d bytes: %v", len(b), err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	code, out, errOut = runCLI(t, "wireshark-plugin", "--install")
	want := filepath.Join(home, ".local", "lib", "wireshark", "plugins", "lnet_ping.lua")
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("--install: exit %d, %q (want it to name %s)\n%s", code, out, want, errOut)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("installed plugin: %v %v", fi, err)
	}
	if code, _, _ := runCLI(t, "wireshark-plugin", "extra"); code != exitUsage {
		t.Fatalf("an argument: exit %d, want 2", code)
	}
}

// --seed replaces the scenario's seed, 0 included (a seed a scenario file may give too).
func TestSeedFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.yaml")
	src := "seed: 5\nduration: 2s\nnodes: {a: {nis: [o2ib0]}, b: {nis: [o2ib0]}}\n" +
		"workload: [{type: brw, from: a, to: b, size: 4KiB, interval: 10ms}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want uint64
	}{{nil, 5}, {[]string{"--seed", "0"}, 0}, {[]string{"--seed", "7"}, 7}} {
		code, out, errOut := runCLI(t, append([]string{"run", "--out", "", "--output", "json", file}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, errOut)
		}
		var runs []struct {
			Summary struct {
				Seed uint64 `json:"seed"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		if runs[0].Summary.Seed != tc.want {
			t.Errorf("%v: seed %d, want %d", tc.args, runs[0].Summary.Seed, tc.want)
		}
	}
}

// TestRunListsIgnoredLnetctlKeys: the run's story lists, once, the keys of a pasted export
// that the model has no use for.
func TestRunListsIgnoredLnetctlKeys(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--out", t.TempDir(), "builtin:lnetctl-import")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "\nlnetctl keys accepted but not modelled (ignored):\n  nodes.client.lnetctl: lnd_timeout, state\n"
	if !strings.Contains(out, want) || strings.Count(out, "lnd_timeout") != 1 {
		t.Fatalf("missing %q in\n%s", want, out)
	}
}
