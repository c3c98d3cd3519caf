// Package atomicfile writes output files under a unique temporary name beside their final
// path and renames them into place only when complete: a reader (or a resumed sweep, or a
// second writer racing for the same path) never sees half a file.
//
// Only a new path or an existing regular file is ever replaced: a symbolic link, FIFO,
// device, socket or directory at the path is refused before anything is written, and again
// just before the rename, so an output flag can never turn /dev/full or a pipe into a file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output file being written; Commit puts it in place, Abort discards it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path; it refuses a path that exists and is not a regular file.
func Create(path string) (*File, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
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
		err = CheckTarget(f.path)
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

// CheckTarget returns nil when path does not exist or is a regular file (not a symbolic link
// to one), else an error naming what is there and the fix.
func CheckTarget(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s, not a regular file: refusing to replace it (name a new file or a regular file)", path, kind(fi.Mode()))
}

// kind names a non-regular file mode for CheckTarget's error.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}
