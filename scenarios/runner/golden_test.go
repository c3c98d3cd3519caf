package runner

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/lnetsim/lnetsim/internal/version"
	"github.com/lnetsim/lnetsim/scenarios"
)

// update rewrites the committed reference results instead of comparing against them:
//
//	go test ./scenarios/runner -run Golden -update
var update = flag.Bool("update", false, "rewrite results/<scenario>/ from the catalogue")

// goldenDir holds the committed run directory of every catalogue scenario.
const goldenDir = "../../results"

// goldenVersion is the version recorded in the committed summaries: the release, which a
// user's run of the same release records too, so that their byte comparison holds.
const goldenVersion = version.Release

// goldenScenarios lists the catalogue scenarios (scenarios/catalogue/*.yaml) by name.
func goldenScenarios() []string {
	var names []string
	for _, n := range scenarios.Catalogue() {
		if n != scenarios.DefaultName {
			names = append(names, n)
		}
	}
	return names
}

// TestGolden re-runs every catalogue scenario and compares its run directory byte for byte
// with the committed one under results/. A scenario that does not run fails, and every
// directory under results/ must belong to a catalogue scenario
// (results/pending holds scenario files the model does not meet yet, not results). With
// -update the committed directories are rewritten (review the diff).
func TestGolden(t *testing.T) {
	produced := map[string]bool{}
	for _, name := range goldenScenarios() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		produced[s.Name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := filepath.Join(goldenDir, s.Name)
			out := want
			if !*update {
				out = filepath.Join(t.TempDir(), s.Name)
			}
			_, err := Run(s, Options{Out: out, Version: goldenVersion})
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				return
			}
			if err := compareDirs(want, out); err != nil {
				t.Errorf("%v\n(if the change is intended: go test ./scenarios/runner -run Golden -update, and review the diff)", err)
			}
		})
	}
	t.Run("no-stale-results", func(t *testing.T) {
		ents, err := os.ReadDir(goldenDir)
		if errors.Is(err, os.ErrNotExist) && *update {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() && e.Name() != "pending" && !produced[e.Name()] {
				t.Errorf("%s: no catalogue scenario is named %s", filepath.Join(goldenDir, e.Name()), e.Name())
			}
		}
	})
}

// compareDirs reports the first difference between the committed directory want and the
// fresh run directory got: a missing or extra file, or the first differing line.
func compareDirs(want, got string) error {
	wf, err := fileNames(want)
	if err != nil {
		return fmt.Errorf("no committed results: %w", err)
	}
	gf, err := fileNames(got)
	if err != nil {
		return err
	}
	if fmt.Sprint(wf) != fmt.Sprint(gf) {
		return fmt.Errorf("%s holds %v, the run wrote %v", want, wf, gf)
	}
	for _, f := range wf {
		a, err := os.ReadFile(filepath.Join(want, f))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(got, f))
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			return firstDiff(filepath.Join(want, f), a, b)
		}
	}
	return nil
}

func fileNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// firstDiff describes the first line where the committed file (a) and the new output (b)
// differ.
func firstDiff(file string, a, b []byte) error {
	sa, sb := bufio.NewScanner(bytes.NewReader(a)), bufio.NewScanner(bytes.NewReader(b))
	sa.Buffer(nil, 1<<20)
	sb.Buffer(nil, 1<<20)
	for line := 1; ; line++ {
		okA, okB := sa.Scan(), sb.Scan()
		switch {
		case !okA && !okB:
			return fmt.Errorf("%s: differs (line endings or a trailing newline)", file)
		case !okA:
			return fmt.Errorf("%s:%d: the new run has extra lines from here:\n  + %s", file, line, sb.Text())
		case !okB:
			return fmt.Errorf("%s:%d: the new run ends here; committed:\n  - %s", file, line, sa.Text())
		case sa.Text() != sb.Text():
			return fmt.Errorf("%s:%d: differs\n  - %s (committed)\n  + %s (new run)", file, line, sa.Text(), sb.Text())
		}
	}
}

// TestGoldenReportsDifferences proves the comparison can fail: a changed line, a missing file
// and an extra file are each reported.
func TestGoldenReportsDifferences(t *testing.T) {
	dir := t.TempDir()
	want, got := filepath.Join(dir, "want"), filepath.Join(dir, "got")
	for _, d := range []string{want, got} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(want, "health.csv"), "time_ns,node\n1,client\n2,server\n")
	write(filepath.Join(got, "health.csv"), "time_ns,node\n1,client\n3,server\n")
	err := compareDirs(want, got)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("health.csv:3:")) {
		t.Fatalf("changed line: got %v, want a report naming health.csv:3", err)
	}
	write(filepath.Join(got, "health.csv"), "time_ns,node\n1,client\n2,server\n")
	if err := compareDirs(want, got); err != nil {
		t.Fatalf("identical directories: %v", err)
	}
	write(filepath.Join(got, "extra.csv"), "x\n")
	if err := compareDirs(want, got); err == nil {
		t.Fatal("an extra file is not reported")
	}
	if err := os.Remove(filepath.Join(got, "extra.csv")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(got, "health.csv"), "time_ns,node\n1,client\n")
	if err := compareDirs(want, got); err == nil {
		t.Fatal("a shorter file is not reported")
	}
}
