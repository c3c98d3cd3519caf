package scenarios

import (
	"strings"
	"testing"
)

// TestHCATimeline follows an HCA's fatal state through one-shot faults: port_active is
// refused while the HCA is fatal, hca_recover while it is not, and faults at the same time
// are taken in the order the run fires them (first occurrences before for: undos).
func TestHCATimeline(t *testing.T) {
	tests := []struct {
		name, faults, want string // want: "" (loads) or a fragment of the error
	}{
		{"recover after fatal", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: hca_recover, ni: client:0}`, ""},
		{"port_active while fatal", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: port_active, ni: client:0}`, "faults[1].action: port_active on client:0 at 7s: its HCA (hca 0 of client) is fatal since 3s (faults[0])"},
		{"port_active after recovery", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 4s, action: port_error, ni: client:0}
  - {at: 5s, action: hca_recover, ni: client:0}
  - {at: 7s, action: port_active, ni: client:0}`, ""},
		{"port_active after for", `
  - {at: 3s, action: hca_fatal, ni: client:0, for: 2s}
  - {at: 5001ms, action: port_active, ni: client:0}`, ""},
		{"port_active at the end of for fires first", `
  - {at: 3s, action: hca_fatal, ni: client:0, for: 2s}
  - {at: 5s, action: port_active, ni: client:0}`, "is fatal since 3s"},
		{"same time, fatal listed first", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 3s, action: hca_recover, ni: client:0}`, ""},
		{"same time, recover listed first", `
  - {at: 3s, action: hca_recover, ni: client:0}
  - {at: 3s, action: hca_fatal, ni: client:0}`, "no earlier hca_fatal"},
		{"another HCA of the node", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: port_active, ni: client:1}`, ""},
		{"another port of the same HCA", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: hca_recover, ni: client:2}`, ""},
		{"a reboot resets the HCA", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 4s, action: node_crash, node: client, for: 1s}
  - {at: 7s, action: port_active, ni: client:0}`, ""},
		{"a reboot of a healthy HCA is not a recovery", `
  - {at: 3s, action: node_restart, node: client}
  - {at: 7s, action: hca_recover, ni: client:0}`, "no earlier hca_fatal"},
		{"periodic faults are not followed", `
  - {at: 3s, every: 10s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: port_active, ni: client:0}
  - {at: 8s, action: hca_recover, ni: client:0}`, ""},
		{"a NID reference", `
  - {at: 3s, action: hca_fatal, ni: client:0}
  - {at: 7s, action: port_active, ni: 10.0.0.1@o2ib}`, "its HCA (hca 0 of client) is fatal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `duration: 20s
nodes:
  client:
    nis: [{net: o2ib0, nid: 10.0.0.1@o2ib}, o2ib0, {net: o2ib0, hca: 0, port: 2}]
  server:
    nis: [o2ib0]
faults:` + tt.faults + "\n"
			_, err := Load("t.yaml", []byte(src))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("got %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}
