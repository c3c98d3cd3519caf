package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{link: "a symbolic link", fifo: "a FIFO", "/dev/full": "a device"}
	for _, flag := range []string{"--pcap", "--trace", "--cpuprofile", "--memprofile", "--junit"} {
		for path, what := range targets {
			code, _, errOut := runCLI(t, "check", "--out", "", flag, path, file)
			want := "lnetsim: " + flag + ": " + path + " is " + what + ", not a regular file: refusing to replace it (name a new file or a regular file)\n"
			if code != exitUsage || errOut != want {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 2, %q", flag, path, code, errOut, want)
			}
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symbolic link was replaced")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatal("/dev/full was replaced")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	// A regular file is replaced whole.
	pcapFile := filepath.Join(dir, "x.pcap")
	if err := os.WriteFile(pcapFile, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "run", "--out", "", "--pcap", pcapFile, file); code != 0 {
		t.Fatalf("--pcap over a regular file: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Lstat(pcapFile); err != nil || !fi.Mode().IsRegular() || fi.Size() != 156320 {
		t.Fatalf("--pcap over a regular file: %v %v, want a 156320-byte capture", fi, err)
	}
}
