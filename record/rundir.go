package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// runFiles are the names a run directory may hold: the files Create writes and the figures
// lnetsim draws into it (lnetsim run --plots, lnetsim plot).
var runFiles = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range []string{SummaryFile, MessagesFile, HealthFile, TimeseriesFile, FaultsFile, CountersFile, CommandsFile} {
		m[f] = true
	}
	for _, fig := range []string{"health", "throughput", "ni-traffic", "latency"} {
		for _, ext := range []string{".png", ".svg", ".pdf"} {
			m[fig+ext] = true
		}
	}
	return m
}()

// CheckReplace returns nil when a run may be committed to dir: dir does not exist, or it is
// an lnetsim run directory (a directory of regular files with the names above, summary.json
// among them, or empty) whose summary.json, if it reads back, names the same scenario. A
// summary.json that does not read back (a damaged run) is replaced: every file around it is
// one lnetsim writes. Anything else is refused with the reason and the fix.
func CheckReplace(dir, scenario string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if !fi.IsDir() {
		return refuse(dir, "exists and is not a directory")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	hasSummary := false
	for _, e := range entries {
		if !runFiles[e.Name()] || !e.Type().IsRegular() {
			return refuse(dir, fmt.Sprintf("holds %q, which lnetsim does not write there", e.Name()))
		}
		hasSummary = hasSummary || e.Name() == SummaryFile
	}
	if len(entries) > 0 && !hasSummary {
		return refuse(dir, "has no "+SummaryFile)
	}
	if !hasSummary {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var s struct {
		Scenario *string `json:"scenario"`
	}
	if json.Unmarshal(b, &s) == nil && s.Scenario != nil && *s.Scenario != scenario {
		return refuse(dir, fmt.Sprintf("holds a run of scenario %q, not %q", *s.Scenario, scenario))
	}
	return nil
}

func refuse(dir, why string) error {
	return fmt.Errorf("results: %s %s: refusing to replace it (choose another --out, or move it away)", dir, why)
}
