package slab

import (
	"fmt"
	"testing"
)

// TestNewChunks: objects come zeroed and distinct, from chunks of 8, 16, 32, 64, 128, 128.
func TestNewChunks(t *testing.T) {
	var s Slab[[3]int]
	seen := map[*[3]int]bool{}
	var chunks []int
	for i := 0; i < 376; i++ {
		if len(s.free) == 0 {
			chunks = append(chunks, min(max(2*s.next, minChunk), maxChunk))
		}
		p := s.New()
		if *p != [3]int{} || seen[p] {
			t.Fatalf("object %d: %v, seen %v", i, *p, seen[p])
		}
		seen[p] = true
		p[1] = i
	}
	if fmt.Sprint(chunks) != "[8 16 32 64 128 128]" || len(s.free) != 0 {
		t.Fatalf("chunks %v, %d left", chunks, len(s.free))
	}
}

// TestAppend: the first element goes into a two-element array from the slab, the second
// into the same array, the third reallocates as append does.
func TestAppend(t *testing.T) {
	var two Slab[[2]*int]
	a, b, c := new(int), new(int), new(int)
	xs := Append(nil, a, &two)
	if len(xs) != 1 || cap(xs) != 2 || xs[0] != a || len(two.free) != minChunk-1 {
		t.Fatalf("first append: %v cap %d, %d left", xs, cap(xs), len(two.free))
	}
	ys := Append(xs, b, &two)
	if len(ys) != 2 || &ys[0] != &xs[0] || ys[1] != b || len(two.free) != minChunk-1 {
		t.Fatalf("second append: %v, %d left", ys, len(two.free))
	}
	zs := Append(ys, c, &two)
	if len(zs) != 3 || &zs[0] == &ys[0] || zs[0] != a || zs[1] != b || zs[2] != c || len(two.free) != minChunk-1 {
		t.Fatalf("third append: %v, %d left", zs, len(two.free))
	}
}

// TestBytes: copies are equal to their source and independent of it, share a chunk without
// room to grow into each other, and empty input gives nil.
func TestBytes(t *testing.T) {
	var b Bytes
	src := []byte("hello")
	x := b.Copy(src)
	src[0] = 'j'
	y := b.Copy([]byte("world!"))
	if string(x) != "hello" || string(y) != "world!" || cap(x) != 5 || cap(y) != 6 {
		t.Fatalf("copies %q %q cap %d", x, y, cap(x))
	}
	if x2 := append(x, '?'); string(x2) != "hello?" || string(y) != "world!" {
		t.Fatalf("appending to a copy wrote into the next: %q", y)
	}
	if b.Copy(nil) != nil || b.Copy([]byte{}) != nil {
		t.Fatal("empty copy is not nil")
	}
	big := b.Copy(make([]byte, 2*bytesChunk))
	if len(big) != 2*bytesChunk || len(b.free) != 0 {
		t.Fatalf("large copy: %d, %d left", len(big), len(b.free))
	}
}
