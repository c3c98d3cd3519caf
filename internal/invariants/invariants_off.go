//go:build !invariants

package invariants

// Enabled is false: built without the invariants tag, the checks are compiled out.
const Enabled = false
