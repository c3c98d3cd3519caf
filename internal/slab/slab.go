// Package slab hands out zeroed objects carved from arrays of them, so a model that creates
// tens of thousands of long-lived objects of one type (peers, queue pairs, connections) at
// start-up pays one allocation per chunk instead of one per object: fewer calls into the
// allocator and fewer spans to set up. An object keeps its whole chunk alive, so a slab suits
// objects that live about as long as their neighbours (what a run creates and rarely drops).
package slab

// Chunk sizes, in objects: the first chunk holds minChunk, each next one twice as many, up to
// maxChunk, so an owner of few objects wastes little and one of many allocates rarely.
const (
	minChunk = 8
	maxChunk = 128
)

// Slab allocates Ts from chunks. The zero value is ready to use. Not for concurrent use.
type Slab[T any] struct {
	free []T // the current chunk's objects not handed out yet
	next int // objects in the next chunk
}

// New returns a pointer to a zeroed T, as new(T) does.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, minChunk), maxChunk)
		s.free = make([]T, s.next)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// Append appends v to xs as append does, except that an xs without capacity gets a
// two-element backing array from two instead of one element's from the allocator: a list
// that usually holds one or two (a peer's NIs and nets, a peer's conns) then never grows
// through the allocator. Appends past two reallocate as usual.
func Append[T any](xs []T, v T, two *Slab[[2]T]) []T {
	if cap(xs) > 0 {
		return append(xs, v)
	}
	a := two.New()
	a[0] = v
	return a[:1]
}

// bytesChunk is the size of the chunks Bytes copies into.
const bytesChunk = 4096

// Bytes copies short byte strings into shared chunks, for data that is written once and only
// read after (a CM message's private data). The zero value is ready to use.
type Bytes struct {
	free []byte // the current chunk's unused tail
}

// Copy returns a copy of p, or nil if p is empty (as append([]byte(nil), p...)). The copy's
// capacity is its length, so appending to it reallocates instead of writing into a
// neighbour.
func (b *Bytes) Copy(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	if len(p) > len(b.free) {
		b.free = make([]byte, max(bytesChunk, len(p)))
	}
	c := b.free[:len(p):len(p)]
	copy(c, p)
	b.free = b.free[len(p):]
	return c
}
