package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/lnetsim/lnetsim/internal/atomicfile/specialfiles"
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

// TestRefusesNonRegularTargets: a symbolic link, a FIFO, a device and a directory are left
// exactly as they were, and no temporary file stays behind.
func TestRefusesNonRegularTargets(t *testing.T) {
	dir := t.TempDir()
	sp := specialfiles.Make(t, dir)
	link, fifo := sp.Link, sp.FIFO
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		link:        link + " is a symbolic link, not a regular file: refusing to replace it (name a new file or a regular file)",
		fifo:        fifo + " is a FIFO, not a regular file: refusing to replace it (name a new file or a regular file)",
		"/dev/null": "/dev/null is a device, not a regular file: refusing to replace it (name a new file or a regular file)",
		sub:         sub + " is a directory, not a regular file: refusing to replace it (name a new file or a regular file)",
	}
	for path, want := range cases {
		err := WriteFile(path, []byte("new\n"))
		if err == nil || err.Error() != want {
			t.Errorf("WriteFile(%s) = %v, want %q", path, err, want)
		}
	}
	sp.Intact(t)
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Fatalf("temporary files left: %v", entries)
	}
	// A regular file is replaced; a file that becomes a FIFO while being written is not.
	if err := WriteFile(sp.Victim, []byte("v2\n")); err != nil {
		t.Fatal(err)
	}
	late := filepath.Join(dir, "late")
	f, err := Create(late)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(late, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "is a FIFO") {
		t.Fatalf("commit over a FIFO made meanwhile: %v", err)
	}
}
