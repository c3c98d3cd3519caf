package scenarios

import (
	"strings"
	"testing"
)

// TestHugeInputsListTheRootCauseOnly loads inputs that used to print tens of thousands of
// errors (the real cause last, after false ones): 100000 NIs on one node, and a faults list
// past the decoder's value limit. Each now gives exactly its one root-cause error.
func TestHugeInputsListTheRootCauseOnly(t *testing.T) {
	var nis, faults strings.Builder
	nis.WriteString("duration: 10s\nnodes:\n  client:\n    nis:\n")
	nis.WriteString(strings.Repeat("      - o2ib0\n", 100000))
	nis.WriteString("  server:\n    nis: [o2ib0]\n")
	faults.WriteString("duration: 10s\nnodes:\n  client:\n    nis: [o2ib0]\nfaults:\n")
	faults.WriteString(strings.Repeat("  - at: 1s\n    action: link_down\n    ni: client:0\n    for: 1ms\n", 50000))
	for _, c := range []struct{ name, data, want string }{
		{"100k-nis", nis.String(), `big.yaml:5:7: nodes.client.nis: node "client" has 100000 NIs; a node has at most 128 (each NI needs its own HCA (0 to 63) and port (1 or 2))`},
		{"200k-values", faults.String(), `big.yaml:159998:9: document too large: more than 200000 values (split the scenario or avoid deep alias expansion)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("big.yaml", []byte(c.data))
			el, ok := err.(ErrorList)
			if !ok || len(el) != 1 {
				t.Fatalf("want exactly one error, got %d:\n%v", len(el), err)
			}
			if got := el[0].Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
