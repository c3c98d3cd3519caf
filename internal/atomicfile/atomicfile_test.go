package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestCommitAbortAndRaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := WriteFile(path, []byte("v1\n")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "half")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "v1\n" {
		t.Fatalf("abort changed the file: %q", b)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("commit after abort succeeded")
	}
	// Many writers of one path: each commit succeeds and the file is always whole.
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- WriteFile(path, []byte(fmt.Sprintf("writer %02d\n", i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); len(b) != len("writer 00\n") {
		t.Fatalf("torn file %q", b)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
