package runner

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// TestRecoveryQueueNames: debug recovery names its queues as each release's lnetctl prints
// them: "local NI recovery" and "peer NI recovery" up to 2.15 (show_recovery_queue),
// "Local NI recovery" and "Peer NI recovery" from 2.16 (the Netlink dump), the NIDs in queue
// order (nid-10 after nid-9), and nothing for an empty queue.
func TestRecoveryQueueNames(t *testing.T) {
	nids := make([]lnet.NID, 11)
	for i := range nids {
		nid, err := lnet.ParseNID("10.0.0." + string(rune('1'+i%9)) + "@o2ib")
		if err != nil {
			t.Fatal(err)
		}
		nids[i] = nid
	}
	for _, tc := range []struct {
		release, local, peer string
	}{
		{"2.12", "local NI recovery", "peer NI recovery"},
		{"2.15", "local NI recovery", "peer NI recovery"},
		{"2.16", "Local NI recovery", "Peer NI recovery"},
		{"2.17", "Local NI recovery", "Peer NI recovery"},
		{"master", "Local NI recovery", "Peer NI recovery"},
	} {
		r, err := lnet.LookupRelease(tc.release)
		if err != nil {
			t.Fatal(err)
		}
		if got := recoveryQueue(r.Profile, "local NI recovery", nids[:1]); got[tc.local] == nil || len(got) != 1 {
			t.Errorf("%s: local queue printed %v, want key %q", tc.release, got, tc.local)
		}
		if got := recoveryQueue(r.Profile, "peer NI recovery", nids[:1]); got[tc.peer] == nil || len(got) != 1 {
			t.Errorf("%s: peer queue printed %v, want key %q", tc.release, got, tc.peer)
		}
		if got := recoveryQueue(r.Profile, "peer NI recovery", nil); len(got) != 0 {
			t.Errorf("%s: an empty queue printed %v, want nothing", tc.release, got)
		}
	}
	b, err := yaml.Marshal(recoveryQueue(lnet.Profile{}, "local NI recovery", nids))
	if err != nil {
		t.Fatal(err)
	}
	const want = `Local NI recovery:
    nid-0: 10.0.0.1@o2ib
    nid-1: 10.0.0.2@o2ib
    nid-2: 10.0.0.3@o2ib
    nid-3: 10.0.0.4@o2ib
    nid-4: 10.0.0.5@o2ib
    nid-5: 10.0.0.6@o2ib
    nid-6: 10.0.0.7@o2ib
    nid-7: 10.0.0.8@o2ib
    nid-8: 10.0.0.9@o2ib
    nid-9: 10.0.0.1@o2ib
    nid-10: 10.0.0.2@o2ib
`
	if string(b) != want {
		t.Errorf("printed\n%s\nwant\n%s", b, want)
	}
}
