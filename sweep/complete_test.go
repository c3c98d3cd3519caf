package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lnetsim/lnetsim/record"
)

// A run whose files do not read back whole (a truncated summary.json, a CSV cut mid-line, a
// file gone) is not complete: resume runs it again, saying why, and merge before that names
// the run and the fix instead of "unexpected end of JSON input".
func TestDamagedRunIsRunAgain(t *testing.T) {
	plan := parse(t, specYAML).Plan()
	out := t.TempDir()
	var calls atomic.Int64
	if _, err := Execute(context.Background(), plan, fakeRunner(&calls), Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	if err := Merge(plan, []string{out}, out); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(out, AggregateFile))
	damage := []struct {
		run  int
		file string
		cut  func([]byte) []byte
		why  string
	}{
		{0, record.SummaryFile, func(b []byte) []byte { return b[:len(b)/2] }, "unexpected end of JSON input"},
		{4, record.MessagesFile, func(b []byte) []byte { return append(b, "1,PUT"...) }, "cut short: it does not end with a complete line"},
		{7, record.FaultsFile, func(b []byte) []byte { return append(b, "1,2\n"...) }, "record on line 2: wrong number of fields"},
		{9, record.CountersFile, func([]byte) []byte { return nil }, "cut short: it does not end with a complete line"},
	}
	for _, d := range damage {
		path := filepath.Join(RunDir(out, plan[d.run]), d.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, d.cut(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := Merge(plan, []string{out}, t.TempDir())
	if err == nil {
		t.Fatal("merge accepted damaged runs")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 1+len(damage) || lines[0] != "sweep merge: 4 problem(s):" {
		t.Fatalf("merge error:\n%v", err)
	}
	for i, d := range damage {
		r := plan[d.run]
		want := "  run " + r.ID + " (" + describe(r.Params) + ", replicate " + string(rune('0'+r.Replicate)) + ") does not read back whole: " +
			filepath.Join(RunDir(out, r), d.file) + ": " + d.why + ": run `lnetsim sweep run` again with the same sweep file and --out " + out + " to re-run it"
		if lines[1+i] != want {
			t.Errorf("merge problem %d:\n%s\nwant\n%s", i, lines[1+i], want)
		}
	}
	var progress strings.Builder
	before := calls.Load()
	st, err := Execute(context.Background(), plan, fakeRunner(&calls), Options{Out: out, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != len(damage) || st.Skipped != len(plan)-len(damage) || calls.Load()-before != int64(len(damage)) {
		t.Fatalf("resume: %+v", st)
	}
	for _, d := range damage {
		if want := "sweep: run " + plan[d.run].ID + " again: " + filepath.Join(RunDir(out, plan[d.run]), d.file) + ": " + d.why + "\n"; !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	if err := Merge(plan, []string{out}, out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, AggregateFile)); string(got) != string(want) {
		t.Fatalf("aggregate after re-running the damaged runs differs:\n%s\nwant\n%s", got, want)
	}
}

// Resume removes the temporary directories a killed process left for runs of its own shard,
// and only those: another shard's may belong to a process still running.
func TestResumeRemovesStaleTemporaryDirs(t *testing.T) {
	plan := parse(t, specYAML).Plan()
	out := t.TempDir()
	mine, other := (Shard{Index: 0, Count: 2}).Select(plan), (Shard{Index: 1, Count: 2}).Select(plan)
	for _, name := range []string{"." + mine[0].ID + ".tmp-123", "." + mine[1].ID + ".tmp-9.old", "." + other[0].ID + ".tmp-77", "notes"} {
		if err := os.MkdirAll(filepath.Join(out, "runs", name, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A file (not a directory) with a temporary's name is no run's: it stays.
	stray := filepath.Join(out, "runs", "."+mine[2].ID+".tmp-5")
	if err := os.WriteFile(stray, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var progress strings.Builder
	if _, err := Execute(context.Background(), mine, fakeRunner(&calls), Options{Out: out, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "sweep: removed 2 temporary run directories left by an interrupted sweep\n") {
		t.Errorf("progress: %s", progress.String())
	}
	if b, err := os.ReadFile(stray); err != nil || string(b) != "user data" {
		t.Errorf("a file named like a temporary was touched: %q, %v", b, err)
	}
	_ = os.Remove(stray)
	left, _ := filepath.Glob(filepath.Join(out, "runs", ".*"))
	if len(left) != 1 || filepath.Base(left[0]) != "."+other[0].ID+".tmp-77" {
		t.Errorf("left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "notes", "x")); err != nil {
		t.Errorf("a directory that is no run's temporary was touched: %v", err)
	}
}
