package runner

import (
	"fmt"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
)

// atomicFile is a capture or trace being written (see package atomicfile), with the kind
// named in errors.
type atomicFile struct {
	*atomicfile.File
	what string // "capture", "trace"
}

func createAtomic(path, what string) (*atomicFile, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, what: what}, nil
}

// finish puts the file in place when ok and no error came before (werr), else discards it.
func (a *atomicFile) finish(ok bool, werr error) error {
	if werr != nil || !ok {
		a.Abort()
		if werr != nil {
			return fmt.Errorf("%s %s: %w", a.what, a.Path(), werr)
		}
		return nil
	}
	if err := a.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", a.what, a.Path(), err)
	}
	return nil
}
