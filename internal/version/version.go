// Package version is lnetsim's release, which every run records in summary.json.
package version

import "runtime/debug"

// Release is the lnetsim release. The committed reference results (results/) are written
// with it, so a run of the same release reproduces them byte for byte; changing it means
// regenerating them (go test ./scenarios/runner -run Golden -update).
const Release = "0.1.0-dev"

// Build returns Release and, when the binary was built from a git checkout with VCS
// stamping (go build), "+" and the first 12 digits of the revision; go run and go test
// binaries carry no revision, so they return Release.
func Build() string {
	v := Release
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}
