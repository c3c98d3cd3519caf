//go:build invariants

package invariants

// Enabled is true: the build has the invariants tag, so every kernel runs the model's
// invariant checks (see sim.Kernel.AddInvariant).
const Enabled = true
