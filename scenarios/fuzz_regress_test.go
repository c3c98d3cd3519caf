package scenarios

import (
	"strings"
	"testing"
)

// TestFaultOnNodeWithoutNIs: a fault naming a node that has no NIs is a located error, not
// an internal one. FuzzLoad found that ResolveNI returned NI 0 of a node with none, and the
// HCA timeline check indexed it (index out of range, reported as "internal error while
// loading ... please report this scenario" in place of the real problems).
func TestFaultOnNodeWithoutNIs(t *testing.T) {
	for _, action := range []string{"port_active", "hca_recover", "port_error", "hca_fatal", "link_down"} {
		src := "duration: 1s\nnodes:\n  a:\n  b: {nis: [o2ib]}\nfaults:\n  - {at: 1s, action: " + action + ", ni: a}\n"
		_, err := Load("f.yaml", []byte(src))
		if err == nil || strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "faults[0].ni: node a has no NIs") {
			t.Errorf("%s: %v", action, err)
		}
	}
}
