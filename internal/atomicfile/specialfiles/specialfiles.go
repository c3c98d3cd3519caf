// Package specialfiles makes, for tests, the targets an output flag must never replace: a
// symbolic link to a regular file, and a FIFO; and checks afterwards that they are intact.
package specialfiles

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Set is the files Make creates in a directory.
type Set struct {
	Victim string // a regular file holding "keep\n"
	Link   string // a symbolic link to Victim
	FIFO   string
}

// Make creates dir/victim, dir/link and dir/fifo.
func Make(t testing.TB, dir string) Set {
	t.Helper()
	s := Set{Victim: filepath.Join(dir, "victim"), Link: filepath.Join(dir, "link"), FIFO: filepath.Join(dir, "fifo")}
	if err := os.WriteFile(s.Victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(s.Victim, s.Link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(s.FIFO, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// Intact fails t unless the link, the FIFO and the link's target are as Make left them.
func (s Set) Intact(t testing.TB) {
	t.Helper()
	if fi, err := os.Lstat(s.Link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symbolic link was replaced")
	}
	if fi, err := os.Lstat(s.FIFO); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	if b, _ := os.ReadFile(s.Victim); string(b) != "keep\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
}
