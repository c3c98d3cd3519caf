package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lnetsim/lnetsim/record"
)

const specYAML = `scenario: base.yaml
seed: 7
seeds: 3
axes:
  lnet.transaction_timeout: [10, 50]
  lnet.retry_count: [0, 1, 2]
`

func parse(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := Parse("dir/sweep.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlanIsDeterministicAndStable(t *testing.T) {
	s := parse(t, specYAML)
	plan := s.Plan()
	if len(plan) != 2*3*3 {
		t.Fatalf("%d runs, want 18", len(plan))
	}
	if s.Scenario != filepath.Join("dir", "base.yaml") {
		t.Fatalf("scenario resolved to %q", s.Scenario)
	}
	// Axes in sorted path order, last axis fastest, replicates innermost.
	if p := plan[0].Params; p[0].Path != "lnet.retry_count" || p[1].Path != "lnet.transaction_timeout" {
		t.Fatalf("axes not sorted: %v", p)
	}
	if plan[3].Params[1].Value != "50" || plan[3].Replicate != 0 || plan[1].Replicate != 1 {
		t.Fatalf("unexpected order: %+v / %+v", plan[1], plan[3])
	}
	ids := map[string]bool{}
	for _, r := range plan {
		if ids[r.ID] {
			t.Fatalf("duplicate run id %s", r.ID)
		}
		ids[r.ID] = true
	}
	// Adding a value to an axis keeps every existing run's id and seed.
	grown := parse(t, strings.Replace(specYAML, "[0, 1, 2]", "[0, 1, 2, 3]", 1)).Plan()
	byID := map[string]Run{}
	for _, r := range grown {
		byID[r.ID] = r
	}
	for _, r := range plan {
		g, ok := byID[r.ID]
		if !ok || g.Seed != r.Seed || g.PointID != r.PointID {
			t.Fatalf("run %s changed when an axis grew", r.ID)
		}
	}
	// Different sweep seed: same ids, different run seeds.
	other := parse(t, strings.Replace(specYAML, "seed: 7", "seed: 8", 1)).Plan()
	if other[0].ID != plan[0].ID || other[0].Seed == plan[0].Seed {
		t.Fatal("the sweep seed must change run seeds and only them")
	}
}

func TestSpecErrors(t *testing.T) {
	invalid := []struct{ src, want string }{
		{"scenario: a.yaml\naxes: {}\n", "axes: expected a mapping"},
		{"scenario: a.yaml\naxes:\n  lnet.retry_count: 3\n", "expected a non-empty list"},
		{"scenario: a.yaml\nseeds: 0\naxes:\n  a.b: [1]\n", "seeds: expected a whole number"},
		{"scenario: a.yaml\nfoo: 1\naxes:\n  a.b: [1]\n", `unknown key "foo"`},
		{"axes:\n  a.b: [1]\n", "missing scenario"},
		{"scenario: a.yaml\naxes:\n  a.b: [1, 1]\n", "value 1 listed twice"},
		{"scenario: a.yaml\naxes: {lnet.retry_count: &x [*x]}\n", "does not stand alone"}, // FuzzSweepParse: an alias, read back alone, is not the value
		{"scenario: a.yaml\naxes:\n  'a..b': [1]\n", "is not a scenario path"},
		{"- 1\n", "a sweep file is a mapping"},
	}
	for _, tc := range invalid {
		_, err := Parse("s.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "s.yaml:") {
			t.Errorf("%q: error %v, want one located in s.yaml containing %q", tc.src, err, tc.want)
		}
	}
	if _, err := Parse("s.yaml", []byte("scenario: a.yaml\naxes:\n  faults[0].at: [1s, 2s]\n")); err != nil {
		t.Errorf("valid spec rejected: %v", err)
	}
}

func TestShards(t *testing.T) {
	plan := parse(t, specYAML).Plan()
	seen := make([]int, len(plan))
	for i := range 4 {
		for _, r := range (Shard{Index: i, Count: 4}).Select(plan) {
			seen[r.Index]++
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("run %d in %d shards", i, n)
		}
	}
	if _, err := ParseShard("4/4"); err == nil {
		t.Fatal("4/4 accepted")
	}
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "5"}
	sh, ok, err := ShardFromEnv(func(k string) string { return env[k] }, 0)
	if err != nil || !ok || sh.Index != 2 || sh.Count != 5 || sh.Source != "SLURM_ARRAY_TASK_ID" {
		t.Fatalf("slurm: %+v %v %v", sh, ok, err)
	}
	env = map[string]string{"JOB_COMPLETION_INDEX": "1"}
	if _, _, err := ShardFromEnv(func(k string) string { return env[k] }, 0); err == nil || !strings.Contains(err.Error(), "--shards") {
		t.Fatalf("k8s without --shards: %v", err)
	}
	sh, ok, err = ShardFromEnv(func(k string) string { return env[k] }, 3)
	if err != nil || !ok || sh.Index != 1 || sh.Count != 3 {
		t.Fatalf("k8s: %+v %v %v", sh, ok, err)
	}
}

// fakeRunner writes a summary whose metric is a deterministic function of the run.
func fakeRunner(calls *atomic.Int64) Runner {
	return func(_ context.Context, r Run, dir string) error {
		calls.Add(1)
		rc, _ := strconv.Atoi(r.ParamMap()["lnet.retry_count"])
		rec, err := record.Create(dir, "base")
		if err != nil {
			return err
		}
		rec.WriteJSON(record.SummaryFile, record.Summary{Scenario: "base", Seed: r.Seed, Version: "test",
			Params: r.ParamMap(), Metrics: map[string]float64{"resends": float64(rc*10 + r.Replicate)}})
		rec.WriteYAML(record.CountersFile, map[string]int{"resends": rc})
		return rec.Commit()
	}
}

func TestExecuteResumeAndMerge(t *testing.T) {
	plan := parse(t, specYAML).Plan()
	out := t.TempDir()
	var calls atomic.Int64
	run := fakeRunner(&calls)

	// A first, interrupted attempt: cancel after a few runs.
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	_, err := Execute(ctx, plan, func(c context.Context, r Run, dir string) error {
		if n.Add(1) == 5 {
			cancel()
		}
		return run(c, r, dir)
	}, Options{Out: out, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("interrupted sweep: err = %v", err)
	}
	// Resume: only the missing runs run.
	before := calls.Load()
	st, err := Execute(context.Background(), plan, run, Options{Out: out, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != int(before) || st.Ran != len(plan)-int(before) || calls.Load() != int64(len(plan)) {
		t.Fatalf("resume: %+v after %d earlier runs (total calls %d)", st, before, calls.Load())
	}
	if err := Merge(plan, []string{out}, out); err != nil {
		t.Fatal(err)
	}
	agg, _ := os.ReadFile(filepath.Join(out, AggregateFile))
	lines := strings.Split(strings.TrimSpace(string(agg)), "\n")
	if len(lines) != 1+6 {
		t.Fatalf("aggregate has %d lines:\n%s", len(lines), agg)
	}
	if lines[0] != "point,lnet.retry_count,lnet.transaction_timeout,metric,n,mean,sd,ci95_low,ci95_high" {
		t.Fatalf("header %q", lines[0])
	}
	// retry_count=2: values 20, 21, 22 -> mean 21, sd 1, t(0.975, 2)=4.303 -> half 2.484
	f := strings.Split(lines[5], ",")
	if f[1] != "2" || f[4] != "3" || f[5] != "21" || f[6] != "1" || !strings.HasPrefix(f[7], "18.515") || !strings.HasPrefix(f[8], "23.484") {
		t.Fatalf("row %q", lines[5])
	}
}

func TestShardedMergeEqualsLocal(t *testing.T) {
	plan := parse(t, specYAML).Plan()
	var calls atomic.Int64
	local := t.TempDir()
	if _, err := Execute(context.Background(), plan, fakeRunner(&calls), Options{Out: local, Workers: 3}); err != nil {
		t.Fatal(err)
	}
	if err := Merge(plan, []string{local}, local); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 3 {
		d := t.TempDir()
		dirs = append(dirs, d)
		if _, err := Execute(context.Background(), (Shard{Index: i, Count: 3}).Select(plan), fakeRunner(&calls), Options{Out: d}); err != nil {
			t.Fatal(err)
		}
	}
	merged := t.TempDir()
	if err := Merge(plan, dirs, merged); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(local, AggregateFile))
	b, _ := os.ReadFile(filepath.Join(merged, AggregateFile))
	if string(a) != string(b) {
		t.Fatalf("sharded merge differs from a local run:\n%s\nvs\n%s", a, b)
	}
	// A missing shard is reported, naming the run.
	if err := Merge(plan, dirs[:2], t.TempDir()); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing shard: %v", err)
	}
	// The same shard twice is reported.
	if err := Merge(plan, append(dirs, dirs[0]), t.TempDir()); err == nil || !strings.Contains(err.Error(), "in both") {
		t.Fatalf("duplicate shard: %v", err)
	}
}

func TestEmit(t *testing.T) {
	var b strings.Builder
	if err := EmitSlurm(&b, "sweeps/flap.yaml", "out/flap", 8); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-7", "--shards 8", "lnetsim sweep run sweeps/flap.yaml", "--job-name=lnetsim-flap"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("slurm script lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := EmitK8s(&b, "sweeps/flap.yaml", "out/flap", 8, 4); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"completionMode: Indexed", "completions: 8", "parallelism: 4", `"--shards", "8"`} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("k8s manifest lacks %q:\n%s", want, b.String())
		}
	}
}

// The shards of a cluster job start at once and each writes the plan into the shared output
// directory: WritePlan must not trip over another process's temporary file.
func TestWritePlanConcurrent(t *testing.T) {
	out := t.TempDir()
	plan := []Run{{Index: 0, ID: "a", PointID: "p", Seed: 1}, {Index: 1, ID: "b", PointID: "p", Replicate: 1, Seed: 2}}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := WritePlan(out, plan); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(out, ".plan.jsonl*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
