package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestLoadErrorsGolden loads every testdata/errors/*.yaml (each is invalid) and compares the
// located error list with its .golden file. Regenerate with go test ./scenarios -update and
// review the diff.
func TestLoadErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := LoadFile(f)
			if err == nil {
				t.Fatalf("%s loaded without error", f)
			}
			got := err.Error() + "\n"
			checkGolden(t, strings.TrimSuffix(f, ".yaml")+".golden", got)
			el := err.(ErrorList)
			for i, e := range el {
				if i == MaxErrors && i == len(el)-1 && strings.HasPrefix(e.Message, "and ") {
					continue // the count of errors not listed
				}
				if e.Line == 0 && e.Override == "" {
					t.Errorf("error without a position: %v", e)
				}
			}
			if strings.Contains(got, "scenarios.") || strings.Contains(got, "reflect") || strings.Contains(got, "int64") || strings.Contains(got, "struct") {
				t.Errorf("error message names a Go type:\n%s", got)
			}
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scenarios -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update and review the diff)\n--- got:\n%s--- want:\n%s", path, got, want)
	}
}
