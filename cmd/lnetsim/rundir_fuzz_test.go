package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lnetsim/lnetsim/scenarios"
)

// FuzzRunDirName: whatever a scenario's name, seed and --set values, its run directory is a
// direct child of --out, a plain visible name of at most 255 bytes, and two runs of one
// invocation never share a directory.
func FuzzRunDirName(f *testing.F) {
	for _, name := range []string{"", ".", "..", "../../y2", "../../../tmp/x", "/etc", "a/b", "-rf", ".hidden", "é\x00\n", strings.Repeat("x", 300)} {
		f.Add(name, false, uint64(0), "")
	}
	f.Add("rail-failure", true, uint64(7), "lnet.retry_count=3")
	f.Fuzz(func(t *testing.T, name string, seedFlag bool, seed uint64, set string) {
		for _, out := range []string{"runs", "/tmp/o", "../up"} {
			d := runDirs{out: out}
			var sets []string
			if set != "" {
				sets = []string{set}
			}
			s := &scenarios.Scenario{Name: name, Seed: seed}
			first, second := d.dir(s, seedFlag, sets), d.dir(s, seedFlag, sets)
			for _, dir := range []string{first, second} {
				base := filepath.Base(dir)
				if filepath.Dir(dir) != filepath.Clean(out) || filepath.Join(out, base) != dir {
					t.Fatalf("name %q: run directory %q is not directly under %q", name, dir, out)
				}
				if base == "" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "-") || len(base) > 255 ||
					!utf8.ValidString(base) || strings.ContainsAny(base, "/\\\x00\n") {
					t.Fatalf("name %q: unsafe directory name %q", name, base)
				}
			}
			if first == second {
				t.Fatalf("name %q: two runs share %q", name, first)
			}
		}
	})
}
