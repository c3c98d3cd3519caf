package runner

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// TestToNIDMatchesText: the direct conversion of an IPv4 o2ib or tcp NID gives what parsing
// its text gives, and the other NIDs still go through the text.
func TestToNIDMatchesText(t *testing.T) {
	for _, s := range []string{"10.0.0.1@o2ib", "10.16.1.255@o2ib", "192.168.1.5@o2ib1", "10.1.0.9@o2ib10",
		"172.16.0.3@tcp", "172.16.0.3@tcp2", "0@lo", "255.255.255.255@o2ib65535"} {
		n, err := scenarios.ParseNID(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got, err := toNID(n)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		want, err := lnet.ParseNID(n.String())
		if err != nil || got != want {
			t.Fatalf("%s: toNID %v, text %v (%v)", s, got, want, err)
		}
	}
}
