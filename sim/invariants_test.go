package sim

import (
	"testing"

	"github.com/lnetsim/lnetsim/internal/invariants"
)

// TestInvariantCadence: under the invariants tag a registered check runs before event 1,
// every invariants.CheckEvery events and when RunUntil finishes, and a violation panics
// with the time and event count; without the tag it never runs.
func TestInvariantCadence(t *testing.T) {
	k := New(1)
	calls := 0
	bad := false
	k.AddInvariant(func() error {
		calls++
		if bad {
			return errTest
		}
		return nil
	})
	for i := 1; i <= 600; i++ {
		k.ScheduleFunc(Time(i), func() {})
	}
	if err := k.RunUntil(600); err != nil {
		t.Fatal(err)
	}
	want := 0
	if invariants.Enabled {
		want = 3 + 1 // before events 1, 257 and 513, and at the end
	}
	if calls != want {
		t.Fatalf("%d checks, want %d", calls, want)
	}
	bad = true
	got := ""
	func() {
		defer func() {
			if r := recover(); r != nil {
				got = r.(string)
			}
		}()
		_ = k.RunUntil(601)
	}()
	wantMsg := ""
	if invariants.Enabled {
		wantMsg = "invariant violated at 600ns after 600 events: test violation"
	}
	if got != wantMsg {
		t.Fatalf("panic %q, want %q", got, wantMsg)
	}
}

type testErr string

func (e testErr) Error() string { return string(e) }

const errTest = testErr("test violation")
