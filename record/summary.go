package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Summary is the content of summary.json: what was run, with which seed and version, how it
// went, and the scalar metrics that sweeps aggregate.
type Summary struct {
	Scenario     string `json:"scenario"`      // scenario name
	ScenarioHash string `json:"scenario_hash"` // sha256 of the canonical scenario (after overrides)
	Seed         uint64 `json:"seed"`
	Version      string `json:"version"` // lnetsim version that produced the run
	// Params are the sweep parameters of this run (path -> value), empty for a single run.
	Params   map[string]string `json:"params,omitempty"`
	Duration string            `json:"duration"` // virtual time simulated
	// Incomplete names the cap that ended the run early (max-events, max-events-per-instant,
	// max-memory, max-wall): Duration is then the virtual time reached and no expectation
	// was evaluated. Absent when the run completed.
	Incomplete string `json:"incomplete,omitempty"`
	Events     uint64 `json:"events"`   // events fired
	Checksum   string `json:"checksum"` // determinism checksum (hex)
	// Metrics are the run's scalar results (e.g. put_latency_p99_us, resend_count); sweep
	// merge aggregates every metric present in all runs of a point.
	Metrics map[string]float64 `json:"metrics"`
	// Expectations are the scenario's expect results, in file order.
	Expectations []Expectation `json:"expectations,omitempty"`
}

// Expectation is the outcome of one `expect` entry.
type Expectation struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"` // what was measured versus expected
}

// ReadSummary reads dir's summary.json.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	return &s, nil
}
