// Package scenarios defines the lnetsim scenario file: its YAML schema, a strict loader that
// reports every problem located in the source, kernel defaults, `--set` overrides, import of
// `lnetctl export` YAML, the canonical form and hash, and the built-in catalogue.
//
// # Loading
//
// Load (or LoadFile, LoadBuiltin) parses one YAML document into a yaml.v3 node tree, applies
// overrides to that tree, then walks it into the typed Scenario with a hand-written strict
// decoder: unknown keys, wrong types and bad units are errors, each recorded with the
// position of the offending key or value. Every struct starts from the kernel's defaults, so
// what the file does not say keeps them. A resolver then expands node groups into Members,
// assigns NIDs, imports lnetctl sections, resolves per-net and per-NI tunables, and checks
// references and cross-field rules. All problems come back at once as an ErrorList; each
// Error prints as
//
//	file:line:col: path.to.field: message (hint)
//	--set lnet.retry_count: message (hint)      (for a value given by an override)
//
// # References
//
// Nodes are named by the keys of `nodes:`; a group with count n has members <name>0 ..
// <name>n-1 (a count of 1 keeps the name, and also answers to <name>0). An NI is written node:index (client:1), node
// (its first NI) or as a NID (10.0.0.2@o2ib). Workloads and lnet.routes/peers name nodes or
// whole groups.
//
// # NIDs
//
// NIs without a NID get 10.<net number>.<n/256>.<n%256>@<net>, n counting from 1 over the
// net's NIs in sorted group order, member order, NI order, skipping NIDs given explicitly.
//
// # Units
//
// Durations need a unit (30s, 4.096us) except kernel tunables counted in seconds, where a
// plain integer means seconds (transaction_timeout: 50). Sizes and rates: see package units.
package scenarios
