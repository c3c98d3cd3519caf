// Package atomicfile writes output files under a unique temporary name beside their final
// path and renames them into place only when complete: a reader (or a resumed sweep, or a
// second writer racing for the same path) never sees half a file.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// File is an output file being written; Commit puts it in place, Abort discards it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Path returns the final path.
func (f *File) Path() string { return f.path }

// Commit closes the file, makes it world-readable (CreateTemp makes it private) and renames
// it over path. On any error the temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: " + f.path + " already committed or aborted")
	}
	f.done = true
	err := f.Close()
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort discards the file; path is left as it was.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
