package ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// A destroyed CQ's slot in the fabric's table goes to the next CQ created, so a consumer
// that creates and destroys a CQ per connection keeps the table bounded.
func TestCQSlotReused(t *testing.T) {
	k := sim.New(1)
	f := New(k, Config{})
	h := f.AddNode("n").AddHCA("mlx5_0", 1)
	for i := 0; i < 10; i++ {
		cq, err := h.CreateCQ(16, nil)
		if err != nil {
			t.Fatal(err)
		}
		cq.Destroy()
	}
	if n := f.CQSlots(); n != 1 {
		t.Fatalf("%d CQ slots after 10 create/destroy, want 1", n)
	}
}

// A CQ destroyed with its notification still pending keeps its slot until that event has
// run: the event names the slot, and must not reach a new CQ.
func TestCQSlotHeldWhileNotifyPending(t *testing.T) {
	k := sim.New(1)
	f := New(k, Config{})
	h := f.AddNode("n").AddHCA("mlx5_0", 1)
	cq, _ := h.CreateCQ(16, nopCQ{})
	cq.ReqNotify()
	cq.push(WC{})
	cq.Destroy()
	if _, err := h.CreateCQ(16, nil); err != nil || f.CQSlots() != 2 {
		t.Fatalf("slots %d (err %v), want 2 while the notify is pending", f.CQSlots(), err)
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CreateCQ(16, nil); err != nil || f.CQSlots() != 2 {
		t.Fatalf("slots %d (err %v), want 2 once the notify ran", f.CQSlots(), err)
	}
}

type nopCQ struct{}

func (nopCQ) CompletionEvent(*CQ) {}
