// Package invariants tells whether the build checks the model's invariants while it runs.
// Build or test with -tags invariants to turn the checks on: every sim.Kernel then runs the
// checks its models registered (credit and buffer conservation, messages finalized once, no
// message stranded on a queue, balanced CQ/QP/connection counts) every CheckEvery events and
// at the end of each Run or RunUntil, and panics naming the first violation. Without the tag
// Enabled is a false constant and the checks cost nothing.
package invariants

// CheckEvery is the cadence, in fired events, of the checks under the tag.
const CheckEvery = 256
