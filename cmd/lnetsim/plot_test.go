package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
)

// plotRunDir writes a run directory with one health change (at 1 s) and one completed PUT
// (ending at 1 ms): health, throughput and latency can be drawn, ni-traffic has no samples.
func plotRunDir(t *testing.T, msgEnd string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := record.Create(dir, "demo")
	if err != nil {
		t.Fatal(err)
	}
	r.Health(record.HealthChange{Time: 1e9, Node: "c", Kind: "ni", NID: "10.0.0.1@o2ib", Old: 1000, New: 900})
	r.Message(record.Message{ID: 1, Type: "PUT", Size: 4096, Start: 0, End: 1e6, HStatus: "OK"})
	r.WriteJSON(record.SummaryFile, record.Summary{Scenario: "demo", Seed: 3})
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if msgEnd != "" { // a hand-edited messages.csv
		path := filepath.Join(dir, record.MessagesFile)
		b, _ := os.ReadFile(path)
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), ",1000000,", ","+msgEnd+",", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readOnlyDir returns a directory no file can be created in: a 0555 directory, or for root,
// whom permissions do not stop, /proc/self.
func readOnlyDir(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "/proc/self"
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	return dir
}

// plot exits 0 when every figure it could draw was written (saying why the others were not
// drawn), 1 when a figure could not be written, 2 for bad flags or values no figure can be
// drawn from; --bins outside 1..1000000 is refused instead of silently becoming 100.
func TestPlotExitCodes(t *testing.T) {
	run := plotRunDir(t, "")
	ro := readOnlyDir(t)
	blocked := t.TempDir()
	if err := os.MkdirAll(filepath.Join(blocked, "latency.png", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	notDrawn := "lnetsim plot: ni-traffic not drawn: " + filepath.Join(run, record.TimeseriesFile) + ": no NI sent anything (or no ni_tx_bps samples): nothing to plot\n"
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"all drawn", []string{"--out", t.TempDir()}, exitOK, notDrawn},
		{"read-only --out", []string{"--out", ro}, exitRuntime,
			"lnetsim plot: health failed: cannot write " + filepath.Join(ro, "health.png") + ": "},
		{"a directory in the way", []string{"--out", blocked}, exitRuntime,
			notDrawn + "lnetsim plot: latency failed: cannot write " + filepath.Join(blocked, "latency.png") + ": " + filepath.Join(blocked, "latency.png") +
				" is a directory, not a regular file: refusing to replace it (name a new file or a regular file)\nlnetsim: 1 of 4 figures failed (see above)\n"},
		{"--bins 0", []string{"--bins", "0"}, exitUsage, "lnetsim: --bins 0: the throughput figure needs from 1 to 1000000 time bins\n"},
		{"--bins -5", []string{"--bins", "-5"}, exitUsage, "lnetsim: --bins -5: the throughput figure needs from 1 to 1000000 time bins\n"},
		{"--bins 1000001", []string{"--bins", "1000001"}, exitUsage, "lnetsim: --bins 1000001: the throughput figure needs from 1 to 1000000 time bins\n"},
		{"bad value", []string{"--out", t.TempDir()}, exitUsage, ""},
	}
	for _, tc := range cases {
		dir := run
		if tc.name == "bad value" {
			dir = plotRunDir(t, "-7")
			tc.stderr = "lnetsim plot: throughput failed: " + filepath.Join(dir, record.MessagesFile) + ":2: column end_ns: negative time -7\n"
		}
		code, _, errOut := runCLI(t, append([]string{"plot", dir}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d and\n%s", tc.name, code, errOut, tc.code, tc.stderr)
		}
	}
	// Read-only: every figure that had data failed, and the exit says so.
	_, _, errOut := runCLI(t, "plot", run, "--out", ro)
	if !strings.HasSuffix(errOut, "lnetsim: 3 of 4 figures failed (see above)\n") || strings.Count(errOut, "failed: cannot write") != 3 {
		t.Errorf("read-only --out:\n%s", errOut)
	}
}

// run --plots says why it drew a figure it did not: a run without faults has no health
// change and, shorter than a sampling period, no NI traffic samples.
func TestRunPlotsSaysWhyNotDrawn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "quiet.yaml")
	src := "name: quiet\nduration: 100ms\nnodes: {c: {nis: [o2ib0]}, s: {nis: [o2ib0]}}\nworkload:\n  - {name: r, type: brw, op: read, from: c, to: s, size: 4KiB}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "run", file, "--out", dir, "--plots")
	run := filepath.Join(dir, "quiet")
	want := "Not drawn: health.png: " + filepath.Join(run, record.HealthFile) + ": no health changes: nothing to plot\n" +
		"Not drawn: ni-traffic.png: " + filepath.Join(run, record.TimeseriesFile) + ": no NI sent anything (or no ni_tx_bps samples): nothing to plot\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
}
