package runner

import (
	"fmt"
	"os"
	"path/filepath"
)

// atomicFile is an output file written under a temporary name beside its final path and
// renamed into place only when complete, so a reader never sees half a capture or trace.
type atomicFile struct {
	*os.File
	path string
	what string // "capture", "trace": for error messages
}

func createAtomic(path, what string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, path: path, what: what}, nil
}

// finish closes the file and, when ok and no error came before (werr), renames it into place;
// otherwise it removes it.
func (a *atomicFile) finish(ok bool, werr error) error {
	err := werr
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(a.Name(), 0o644) // CreateTemp makes it private
	}
	if err != nil || !ok {
		os.Remove(a.Name())
		if err != nil {
			return fmt.Errorf("%s %s: %w", a.what, a.path, err)
		}
		return nil
	}
	return os.Rename(a.Name(), a.path)
}
