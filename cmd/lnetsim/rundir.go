package main

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/scenarios"
)

// maxDirName bounds the scenario-name part of a run directory name, far below the 255 bytes
// a file name may have, so the suffixes always fit.
const maxDirName = 100

// defaultName names a scenario that has no name: line after its file (builtin:NAME is NAME,
// "-" is stdin, a file its base name without extension).
func defaultName(arg string) string {
	if name, ok := strings.CutPrefix(arg, "builtin:"); ok {
		return name
	}
	if arg == "-" {
		return "stdin"
	}
	base := filepath.Base(arg)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// safeDirName turns a scenario name into one safe path element: bytes other than ASCII
// letters, digits, '.', '_' and '-' become '_', leading dots and dashes go (no hidden, "."
// or ".." directory, nothing a shell reads as a flag), it is cut to maxDirName bytes, and
// an empty result is "unnamed".
func safeDirName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".-")
	if len(s) > maxDirName {
		s = s[:maxDirName]
	}
	if s == "" {
		return "unnamed"
	}
	return s
}

// runDirs hands out the run directories of one invocation under --out.
type runDirs struct {
	out  string
	used map[string]bool
}

// dir returns the run directory of s: out/<safe name>, plus -seedN when --seed was given
// and -set<8 hex digits of the SHA-256 of the --set values, one a line> when --set was, so
// that runs differing in seed or overrides keep their own directories; a name already taken
// in this invocation gets -2, -3, ...
func (d *runDirs) dir(s *scenarios.Scenario, seedFlag bool, sets []string) string {
	name := safeDirName(s.Name)
	if seedFlag {
		name += "-seed" + strconv.FormatUint(s.Seed, 10)
	}
	if len(sets) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(sets, "\n")))
		name += "-set" + hex.EncodeToString(sum[:4])
	}
	if d.used == nil {
		d.used = map[string]bool{}
	}
	unique := name
	for i := 2; d.used[unique]; i++ {
		unique = name + "-" + strconv.Itoa(i)
	}
	d.used[unique] = true
	return filepath.Join(d.out, unique)
}
