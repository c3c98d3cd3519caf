package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/internal/atomicfile/specialfiles"
	"github.com/lnetsim/lnetsim/record"
)

// tinyScenario is a two-node scenario that runs in milliseconds; name is its name: line
// (omitted when empty).
func tinyScenario(t *testing.T, dir, file, name string) string {
	t.Helper()
	src := "seed: 5\nduration: 2s\nnodes: {a: {nis: [o2ib0]}, b: {nis: [o2ib0]}}\n" +
		"workload: [{type: brw, from: a, to: b, size: 4KiB, interval: 10ms}]\n"
	if name != "" {
		src = "name: " + name + "\n" + src
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOutputFlagsRefuseSpecialFiles: --pcap, --trace, --cpuprofile, --memprofile and --junit
// naming a FIFO, a symbolic link or a device exit 2 before running, and leave it as it was.
func TestOutputFlagsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	file := tinyScenario(t, dir, "s.yaml", "tiny")
	sp := specialfiles.Make(t, dir)
	targets := map[string]string{sp.Link: "a symbolic link", sp.FIFO: "a FIFO", "/dev/full": "a device"}
	for _, flag := range []string{"--pcap", "--trace", "--cpuprofile", "--memprofile", "--junit"} {
		for path, what := range targets {
			code, _, errOut := runCLI(t, "check", "--out", "", flag, path, file)
			want := "lnetsim: " + flag + ": " + path + " is " + what + ", not a regular file: refusing to replace it (name a new file or a regular file)\n"
			if code != exitUsage || errOut != want {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 2, %q", flag, path, code, errOut, want)
			}
		}
	}
	sp.Intact(t)
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatal("/dev/full was replaced")
	}
	// A regular file is replaced whole.
	pcapFile := filepath.Join(dir, "x.pcap")
	if err := os.WriteFile(pcapFile, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "run", "--out", "", "--pcap", pcapFile, file); code != 0 {
		t.Fatalf("--pcap over a regular file: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Lstat(pcapFile); err != nil || !fi.Mode().IsRegular() || fi.Size() != 157192 {
		t.Fatalf("--pcap over a regular file: %v %v, want a 157192-byte capture", fi, err)
	}
}

// tree lists every file and directory under root, relative and sorted.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRunDirectoryStaysInsideOut: scenario names with ../, no name, an existing directory
// that is not a run of the scenario, and runs differing in --seed or --set: every run
// writes only its own directory directly under --out, and every sentinel file survives
// (0901a266 begins the SHA-256 of "duration=1s").
func TestRunDirectoryStaysInsideOut(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "a", "b", "out")
	sentinels := []string{filepath.Join(base, "a", "y2", "keep"), filepath.Join(out, "earlier", "keep"), filepath.Join(out, "mine", "notes.txt")}
	for _, s := range sentinels {
		if err := os.MkdirAll(filepath.Dir(s), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(base, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []string{tinyScenario(t, src, "up.yaml", "../../y2"), tinyScenario(t, src, "tmp.yaml", "../../../tmp/x"),
		tinyScenario(t, src, "noname.yaml", ""), tinyScenario(t, src, "tiny.yaml", "tiny")}
	if code, _, errOut := runCLI(t, append([]string{"run", "--out", out, "-q"}, files...)...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"--seed", "7"}, {"--set", "duration=1s"}, {"--seed", "7", "--set", "duration=1s"}} {
		if code, _, errOut := runCLI(t, append([]string{"run", "--out", out, "-q", files[3]}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	// A scenario named like a directory that is not one of its runs fails, and leaves it.
	mine := tinyScenario(t, src, "mine.yaml", "mine")
	code, stdout, _ := runCLI(t, "run", "--out", out, mine)
	want := mine + ": ERROR: results: " + filepath.Join(out, "mine") + ` holds "notes.txt", which lnetsim does not write there: refusing to replace it (choose another --out, or move it away)` + "\n"
	if code != exitRuntime || stdout != want {
		t.Fatalf("run over a foreign directory: exit %d, stdout %q; want exit 1, %q", code, stdout, want)
	}
	run := []string{"counters.yaml", "faults.csv", "health.csv", "messages.csv", "summary.json", "timeseries.csv"}
	wantTree := []string{"./", "a/", "a/b/", "a/b/out/"}
	for _, d := range []string{"_.._.._tmp_x", "_.._y2", "earlier", "mine", "noname", "tiny", "tiny-seed7", "tiny-seed7-set0901a266", "tiny-set0901a266"} {
		wantTree = append(wantTree, "a/b/out/"+d+"/")
		switch d {
		case "earlier":
			wantTree = append(wantTree, "a/b/out/earlier/keep")
		case "mine":
			wantTree = append(wantTree, "a/b/out/mine/notes.txt")
		default:
			for _, f := range run {
				wantTree = append(wantTree, "a/b/out/"+d+"/"+f)
			}
		}
	}
	wantTree = append(wantTree, "a/y2/", "a/y2/keep", "src/", "src/mine.yaml", "src/noname.yaml", "src/tiny.yaml", "src/tmp.yaml", "src/up.yaml")
	if got := tree(t, base); strings.Join(got, "\n") != strings.Join(wantTree, "\n") {
		t.Fatalf("files after the runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantTree, "\n"))
	}
	for _, s := range sentinels {
		if b, err := os.ReadFile(s); err != nil || string(b) != "keep" {
			t.Fatalf("%s: %q %v", s, b, err)
		}
	}
}

// TestExitCodes: one case per exit status of run and check, and the root help lists them.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := tinyScenario(t, dir, "s.yaml", "tiny")
	failing := filepath.Join(dir, "fail.yaml")
	src, _ := os.ReadFile(file)
	if err := os.WriteFile(failing, append(src, "expect: [{name: no messages, check: messages, eq: 0}]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("duration: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--out", "", file}, exitOK},
		{[]string{"--out", "", failing}, exitExpectFail},
		{[]string{"--out", "", bad}, exitUsage},
		{[]string{"--out", "", "--no-such-flag", file}, exitUsage},
		{[]string{"--out", filepath.Join(blocker, "runs"), file}, exitRuntime},
	} {
		for _, cmd := range []string{"run", "check"} {
			if code, _, errOut := runCLI(t, append([]string{cmd}, tc.args...)...); code != tc.want {
				t.Errorf("%s %v: exit %d, want %d\n%s", cmd, tc.args, code, tc.want, errOut)
			}
		}
	}
	code, out, _ := runCLI(t, "--help")
	if code != 0 || !strings.Contains(out, "Exit status:\n  0  success\n  1  an I/O or internal error") || !strings.Contains(out, "  3  an expectation failed (run and check)") {
		t.Fatalf("--help: exit %d, no exit status list:\n%s", code, out)
	}
}

// TestCapsEndRunWithExit4: each cap ends the run with exit 4, a one-line message naming the
// cap and its flag, and the results so far written and marked incomplete. The memory and
// wall caps are checked every runner.MonitorEvery (65536) events, so 1KiB and 1ns stop the
// run at exactly that event.
func TestCapsEndRunWithExit4(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "long.yaml")
	src := "name: long\nseed: 5\nduration: 87600h\nnodes: {a: {nis: [o2ib0]}, b: {nis: [o2ib0]}}\n" +
		"workload: [{type: brw, from: a, to: b, size: 4KiB, interval: 10ms}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag, value, cap string
		events           uint64
		detail           string // the message's end, after the virtual time
	}{
		{"--max-events", "1000", "max-events", 1000, " pending (raise it with --max-events N)"},
		{"--max-memory", "1KiB", "max-memory", 65536, ", cap 1KiB (raise it with --max-memory SIZE)"},
		{"--max-wall", "1ns", "max-wall", 65536, ", cap 1ns (raise it with --max-wall DURATION)"},
	} {
		out := filepath.Join(dir, tc.cap)
		code, stdout, errOut := runCLI(t, "run", "--out", out, tc.flag, tc.value, file)
		sum, err := record.ReadSummary(filepath.Join(out, "long"))
		if err != nil {
			t.Fatalf("%s: %v", tc.flag, err)
		}
		want := "lnetsim: run of long stopped: --" + tc.cap + " cap reached at " + sum.Duration + " of virtual time: "
		if code != exitCap || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, tc.detail+"\n") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s %s: exit %d, stderr %q; want exit 4, %q...%q", tc.flag, tc.value, code, errOut, want, tc.detail)
		}
		if sum.Incomplete != tc.cap || sum.Events != tc.events || sum.Expectations != nil {
			t.Errorf("%s: summary incomplete %q, %d events; want %q, %d", tc.flag, sum.Incomplete, sum.Events, tc.cap, tc.events)
		}
		if !strings.Contains(stdout, "INCOMPLETE: run of long stopped: --"+tc.cap) || !strings.Contains(stdout, `(summary.json: "incomplete": "`+tc.cap+`")`) {
			t.Errorf("%s: story:\n%s", tc.flag, stdout)
		}
	}
	if code, _, errOut := runCLI(t, "run", "--out", "", "--max-memory", "lots", file); code != exitUsage {
		t.Fatalf("--max-memory lots: exit %d, want 2\n%s", code, errOut)
	}
	// The loop-at-one-instant cap itself is runner's TestStalledRunEndsWithCap.
	if code, _, errOut := runCLI(t, "run", "--out", "", "--max-events-per-instant", "0", file); code != exitUsage ||
		errOut != "lnetsim: --max-events-per-instant must be at least 1\n" {
		t.Fatalf("--max-events-per-instant 0: exit %d, want 2\n%s", code, errOut)
	}
}

// TestRunReproducesCommittedResults: what README promises a user: lnetsim run of a catalogue
// scenario writes a directory byte-identical to the one committed under results/ (their
// summary.json records the release, as the user's run does, not a placeholder).
func TestRunReproducesCommittedResults(t *testing.T) {
	out := t.TempDir()
	if code, _, errOut := runCLI(t, "run", "-q", "--out", out, "../../scenarios/catalogue/cm-reject.yaml"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	want := "../../results/cm-reject"
	names, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, filepath.Join(out, "cm-reject")); len(got) != len(names)+1 {
		t.Fatalf("run wrote %v, results/ holds %d files", got, len(names))
	}
	for _, e := range names {
		a, _ := os.ReadFile(filepath.Join(want, e.Name()))
		b, err := os.ReadFile(filepath.Join(out, "cm-reject", e.Name()))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from results/cm-reject (%v)", e.Name(), err)
		}
	}
}
