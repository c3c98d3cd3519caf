package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
)

// sweepSeeds are sweep files as users write them (the repository's sweeps/ directory, the
// tests' spec), and near misses.
func sweepSeeds(f *testing.F) {
	files, _ := filepath.Glob("../sweeps/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		specYAML,
		"scenario: ../scenarios/catalogue/rail-failure.yaml\naxes:\n  lnet.retry_count: [0, 1]\n",
		"scenario: s.yaml\nseeds: 2\naxes:\n  nodes.client.nis: [[o2ib0], [o2ib0, o2ib1], [{net: o2ib1, port: 2}]]\n  faults[0].at: [10s, 1m]\n",
		"scenario: s.yaml\naxes:\n  workload[0].size: [\"1MiB\", 4KiB, 'x y', null, ~, '', \"a\\nb\", {a: 1}]\n",
		"scenario: s.yaml\naxes: {a: &x [1, 2], b: *x}\n",
		"scenario: s.yaml\naxes:\n  a: [1, 1]\n",
		"scenario: s.yaml\naxes:\n  a..b: [1]\n",
		"scenario: s.yaml\nseed: -1\naxes: {a: [1]}\n",
		"scenario: s.yaml\nseeds: 0\naxes: {a: [1]}\n",
		"scenario: [x]\naxes: {a: [1]}\n",
		"axes: {a: [1]}\n", "scenario: s.yaml\n", "- a\n", "", "{",
		"scenario: s.yaml\naxes:\n  a: [1 # c\n    , 2]  # trailing\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzSweepParse: the sweep file loader never panics; its errors are one line naming the
// file; what it accepts has sorted distinct axes of distinct values, expands to a plan of
// (values product) x seeds runs with distinct IDs in order, and every run's parameters are
// valid --set overrides whose values read back as written.
func FuzzSweepParse(f *testing.F) {
	sweepSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("dir/sweep.yaml", data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "dir/sweep.yaml") || strings.Contains(msg, "\n") {
				t.Fatalf("error does not name the file on one line: %q", msg)
			}
			return
		}
		if s.Scenario == "" || s.Seeds < 1 || len(s.Axes) == 0 {
			t.Fatalf("accepted an incomplete spec: %+v", s)
		}
		total := s.Seeds
		for i, ax := range s.Axes {
			if i > 0 && s.Axes[i-1].Path >= ax.Path {
				t.Fatalf("axes not sorted and distinct: %q then %q", s.Axes[i-1].Path, ax.Path)
			}
			if len(ax.Values) == 0 {
				t.Fatalf("axis %s has no values", ax.Path)
			}
			seen := map[string]bool{}
			for _, v := range ax.Values {
				if seen[v] {
					t.Fatalf("axis %s: value %q twice", ax.Path, v)
				}
				seen[v] = true
				// The value is written in plan.jsonl, summary.json and aggregate.csv as is,
				// and read back by --set: it must be one line and mean the same thing.
				if strings.Contains(v, "\n") {
					t.Fatalf("axis %s: value %q is not one line", ax.Path, v)
				}
				o, err := scenarios.ParseSet(ax.Path + "=" + v)
				if err != nil {
					t.Fatalf("axis %s: value %q is not a valid override: %v", ax.Path, v, err)
				}
				back, err := flow(o.Value)
				if err != nil || back != v {
					t.Fatalf("axis %s: value %q reads back as %q (%v)", ax.Path, v, back, err)
				}
			}
			total *= len(ax.Values)
			if total > 5000 {
				return // a big plan: expanding it says nothing more
			}
		}
		plan := s.Plan()
		if len(plan) != total {
			t.Fatalf("plan has %d runs, want %d", len(plan), total)
		}
		ids := map[string]bool{}
		for i, r := range plan {
			if r.Index != i || ids[r.ID] || r.Replicate != i%s.Seeds || len(r.Params) != len(s.Axes) {
				t.Fatalf("run %d: %+v", i, r)
			}
			ids[r.ID] = true
			if _, err := r.Overrides(); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
	})
}

// FuzzParseShard: --shard i/n is accepted exactly when it is two integers with 0 <= i < n,
// it writes back to a value that parses to the same shard, and the shards 0..n-1 of a plan
// partition it; a cluster job's shard from SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_COUNT
// or --shards) or JOB_COMPLETION_INDEX is in range whenever it is accepted.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/4", "0/0", "1/", "/1", "a/b", "01/02", "+1/3", " 1/3", "0/9223372036854775807", "1/2/3"} {
		f.Add(s, uint8(10), "", "", "", 0)
	}
	f.Add("", uint8(0), "3", "8", "", 0)
	f.Add("", uint8(0), "", "", "2", 4)
	f.Add("", uint8(0), "x", "", "", 0)
	f.Add("", uint8(0), "5", "4", "", 0)
	f.Add("", uint8(0), "", "", "-1", 4)
	f.Fuzz(func(t *testing.T, s string, runs uint8, slurmID, slurmCount, k8sIndex string, shards int) {
		checkShardFromEnv(t, slurmID, slurmCount, k8sIndex, shards)
		sh, err := ParseShard(s)
		is, ns, ok := strings.Cut(s, "/")
		i, err1 := strconv.Atoi(is)
		n, err2 := strconv.Atoi(ns)
		want := ok && err1 == nil && err2 == nil && 0 <= i && i < n
		if (err == nil) != want {
			t.Fatalf("ParseShard(%q) = %+v, %v; want accepted %v", s, sh, err, want)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("%q -> %q -> %+v, %v", s, sh.String(), back, err)
		}
		plan := make([]Run, runs)
		for j := range plan {
			plan[j].Index = j
		}
		if sh.Count > 64 {
			want := 0
			if sh.Index < len(plan) {
				want = (len(plan)-1-sh.Index)/sh.Count + 1
			}
			got := sh.Select(plan)
			for _, r := range got {
				if r.Index%sh.Count != sh.Index {
					t.Fatalf("%s selected run %d", sh, r.Index)
				}
			}
			if len(got) != want {
				t.Fatalf("%s selected %d of %d runs, want %d", sh, len(got), len(plan), want)
			}
			return
		}
		owner := make([]int, len(plan))
		for k := range sh.Count {
			for _, r := range (Shard{Index: k, Count: sh.Count}).Select(plan) {
				owner[r.Index]++
			}
		}
		for j, c := range owner {
			if c != 1 {
				t.Fatalf("run %d is in %d of the %d shards", j, c, sh.Count)
			}
		}
	})
}

func checkShardFromEnv(t *testing.T, slurmID, slurmCount, k8sIndex string, shards int) {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": slurmID, "SLURM_ARRAY_TASK_COUNT": slurmCount, "JOB_COMPLETION_INDEX": k8sIndex}
	sh, ok, err := ShardFromEnv(func(k string) string { return env[k] }, shards)
	if err != nil {
		if ok || strings.Contains(err.Error(), "\n") {
			t.Fatalf("err %q with ok %v", err, ok)
		}
		return
	}
	if ok != (slurmID != "" || k8sIndex != "") {
		t.Fatalf("ok %v for %q %q", ok, slurmID, k8sIndex)
	}
	if ok && (sh.Index < 0 || sh.Index >= sh.Count) {
		t.Fatalf("shard %+v out of range", sh)
	}
}

// TestMergeMalformedSummary: a run directory whose summary.json a user edited or truncated
// gives one problem naming the file and the fix, never a panic.
func TestMergeMalformedSummary(t *testing.T) {
	plan := parse(t, "scenario: s.yaml\nseeds: 2\naxes: {lnet.retry_count: [0]}\n").Plan()
	for _, c := range []struct{ name, content string }{
		{"truncated", `{"scenario": "s", "seed": 1`},
		{"empty", ``},
		{"not an object", `[1, 2]`},
		{"seed is a string", `{"scenario": "s", "seed": "x", "metrics": {}}`},
		{"metric is a string", `{"scenario": "s", "seed": 1, "metrics": {"m": "fast"}}`},
		{"negative seed", `{"scenario": "s", "seed": -1}`},
		{"metric overflows", `{"scenario": "s", "seed": 1, "metrics": {"m": 1e999}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			for _, r := range plan {
				if err := writeSummary(RunDir(out, r), record.Summary{Scenario: "s", Seed: r.Seed, Metrics: map[string]float64{"m": 1}}); err != nil {
					t.Fatal(err)
				}
			}
			bad := filepath.Join(RunDir(out, plan[1]), record.SummaryFile)
			if err := os.WriteFile(bad, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Merge(plan, []string{out}, t.TempDir())
			if err == nil || strings.Count(err.Error(), "\n") != 1 || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "run `lnetsim sweep run` again") {
				t.Fatalf("Merge with %s summary.json: %v (want one problem naming %s and the fix)", c.name, err, bad)
			}
		})
	}
}

// TestMergeOddSummaries: summaries that parse but hold odd values (no metrics, different
// metric sets, extreme values) merge without panicking.
func TestMergeOddSummaries(t *testing.T) {
	plan := parse(t, "scenario: s.yaml\nseeds: 3\naxes: {lnet.retry_count: [0, 1]}\n").Plan()
	out := t.TempDir()
	metrics := []map[string]float64{nil, {}, {"a": 1e308}, {"a": -1e308, "b": 0}, {"a": 5e-324, "b": 3}, {"b": 1}}
	for i, r := range plan {
		dir := RunDir(out, r)
		if err := writeSummary(dir, record.Summary{Scenario: "s", Seed: r.Seed, Metrics: metrics[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := Merge(plan, []string{out}, out); err != nil {
		t.Fatal(err)
	}
	agg, _ := os.ReadFile(filepath.Join(out, AggregateFile))
	if lines := strings.Split(strings.TrimSpace(string(agg)), "\n"); len(lines) != 1+1 || !strings.Contains(lines[1], ",b,3,") {
		t.Fatalf("aggregate:\n%s", agg)
	}
}

// writeSummary writes a run directory dir whose summary.json holds s (its other files
// empty but whole).
func writeSummary(dir string, s record.Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	for _, f := range runFiles {
		content := []byte("x\n")
		if f.name == record.SummaryFile {
			content = b
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestAxisValueOneLine: a multi-line string value of an axis is written as one double-quoted
// line (yaml.v3 renders it as a |- block otherwise), so that plan.jsonl, progress lines and
// aggregate.csv keep one line per value, and --set reads it back as the same string.
func TestAxisValueOneLine(t *testing.T) {
	s := parse(t, "scenario: s.yaml\naxes:\n  name: [\"a\\nb\", 'c\n\n  d', x]\n")
	if got := s.Axes[0].Values; len(got) != 3 || got[0] != `"a\nb"` || got[1] != `"c\nd"` || got[2] != "x" {
		t.Fatalf("values %q", got)
	}
	o, err := scenarios.ParseSet("name=" + s.Axes[0].Values[0])
	if err != nil || o.Value.Value != "a\nb" {
		t.Fatalf("read back: %v %v", o.Value, err)
	}
	// A lone line break came out as "|4+" (FuzzSweepParse): its trimmed rendering had no
	// newline left to notice. Breaks yaml.v3 knows besides \n and \r are escaped too.
	for in, want := range map[string]string{`"\n"`: `"\n"`, `"\r"`: `"\r"`, `"x\u2028y"`: `"x\Ly"`, `"\u0085"`: `"\N"`} {
		s := parse(t, "scenario: s.yaml\naxes:\n  name: ["+in+"]\n")
		if got := s.Axes[0].Values[0]; got != want {
			t.Errorf("%s written %s, want %s", in, got, want)
		}
	}
}
