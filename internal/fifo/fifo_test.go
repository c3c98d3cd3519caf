package fifo

import (
	"slices"
	"testing"
)

// Items come out in push order across compactions, interleaved pops, and a drain; an empty
// queue gives the zero value.
func TestQueueOrder(t *testing.T) {
	var q Queue[int]
	if q.Pop() != 0 || q.First() != 0 || q.Len() != 0 {
		t.Fatal("empty queue is not empty")
	}
	next, want := 0, 0
	for round := 0; round < 200; round++ {
		for i := 0; i < 3; i++ { // push 3, pop 2: the queue never empties and compacts
			q.Push(next)
			next++
		}
		for i := 0; i < 2; i++ {
			if f := q.First(); f != want {
				t.Fatalf("First = %d, want %d", f, want)
			}
			if v := q.Pop(); v != want {
				t.Fatalf("Pop = %d, want %d", v, want)
			}
			want++
		}
	}
	if q.Len() != next-want {
		t.Fatalf("Len = %d, want %d", q.Len(), next-want)
	}
	if cap(q.buf) > 3*q.Len()+64 {
		t.Fatalf("backing array of %d for %d items: not compacted", cap(q.buf), q.Len())
	}
	var seen []int
	q.Each(func(v int) bool { seen = append(seen, v); return len(seen) < 5 })
	if !slices.Equal(seen, []int{want, want + 1, want + 2, want + 3, want + 4}) {
		t.Fatalf("Each saw %v", seen)
	}
	rest := q.Drain()
	if len(rest) != next-want || rest[0] != want || rest[len(rest)-1] != next-1 || q.Len() != 0 {
		t.Fatalf("Drain = %d items from %d, Len after %d", len(rest), rest[0], q.Len())
	}
}

// Push and Pop allocate nothing once the backing array has grown.
func TestQueueNoAllocs(t *testing.T) {
	var q Queue[*int]
	x := new(int)
	for i := 0; i < 64; i++ {
		q.Push(x)
	}
	for q.Len() > 0 {
		q.Pop()
	}
	if a := testing.AllocsPerRun(100, func() {
		for i := 0; i < 64; i++ {
			q.Push(x)
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}); a != 0 {
		t.Fatalf("%v allocations per 64 push/pop", a)
	}
}
