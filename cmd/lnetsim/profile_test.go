package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// profileStrings parses a pprof profile (gzipped profile.proto) far enough to return its
// string table (Profile field 6), failing on anything that is not a well-formed message.
func profileStrings(b []byte) ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	varint := func() (uint64, error) {
		var v uint64
		for s := 0; s < 64; s += 7 {
			if len(raw) == 0 {
				return 0, errors.New("truncated varint")
			}
			c := raw[0]
			raw = raw[1:]
			v |= uint64(c&0x7f) << s
			if c < 0x80 {
				return v, nil
			}
		}
		return 0, errors.New("varint too long")
	}
	var strs []string
	sampleTypes := 0
	for len(raw) > 0 {
		key, err := varint()
		if err != nil {
			return nil, err
		}
		switch key & 7 {
		case 0:
			if _, err := varint(); err != nil {
				return nil, err
			}
		case 1, 5:
			n := 8
			if key&7 == 5 {
				n = 4
			}
			if len(raw) < n {
				return nil, errors.New("truncated fixed field")
			}
			raw = raw[n:]
		case 2:
			n, err := varint()
			if err != nil || uint64(len(raw)) < n {
				return nil, errors.New("truncated field")
			}
			switch key >> 3 {
			case 1:
				sampleTypes++
			case 6:
				strs = append(strs, string(raw[:n]))
			}
			raw = raw[n:]
		default:
			return nil, errors.New("bad wire type")
		}
	}
	if sampleTypes == 0 || len(strs) == 0 || strs[0] != "" {
		return nil, errors.New("no sample types or string table")
	}
	return strs, nil
}

// TestProfileFlags: run and check write a CPU and a heap profile pprof can read, naming the
// sample types go tool pprof offers.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"run", "check"} {
		cpu := filepath.Join(dir, sub+"-cpu.pprof")
		mem := filepath.Join(dir, sub+"-mem.pprof")
		code, out, errOut := runCLI(t, sub, "--out", "", "-q", "--cpuprofile", cpu, "--memprofile", mem, "builtin:default")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", sub, code, out, errOut)
		}
		for file, want := range map[string][]string{cpu: {"samples", "cpu"}, mem: {"inuse_space", "alloc_space"}} {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			strs, err := profileStrings(b)
			if err != nil {
				t.Fatalf("%s: %s: %v", sub, filepath.Base(file), err)
			}
			for _, w := range want {
				if !slices.Contains(strs, w) {
					t.Errorf("%s: %s lacks sample type %q", sub, filepath.Base(file), w)
				}
			}
		}
	}
	// An unwritable profile is a runtime error, not a panic.
	bad := filepath.Join(dir, "no-such-dir", "cpu.pprof")
	if code, _, errOut := runCLI(t, "run", "--out", "", "--cpuprofile", bad, "builtin:default"); code != exitRuntime {
		t.Fatalf("unwritable --cpuprofile: exit %d, want 1\n%s", code, errOut)
	}
}
