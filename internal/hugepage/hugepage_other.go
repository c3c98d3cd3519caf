//go:build !linux

package hugepage

// Available is false outside Linux.
func Available() bool { return false }

// Reserve does nothing outside Linux.
func (r *Reserver) Reserve(n uint64, release bool) {}

// Advise does nothing outside Linux.
func (r *Reserver) Advise() {}
