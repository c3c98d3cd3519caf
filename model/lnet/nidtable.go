package lnet

// nidTable maps NIDs to peer NIs (the kernel's lnet_peer_table hash of peer NIs): open
// addressing with linear probing in one flat array of key/value pairs, so that a look-up
// usually reads one cache line. It is never iterated (nothing depends on an order).
type nidTable struct {
	slots []nidSlot // power-of-two length; a nil lpni marks a free slot
	n     int       // entries
	shift uint      // 64 - log2(len(slots))
}

type nidSlot struct {
	nid  NID
	lpni *PeerNI
}

// home is nid's first slot: Fibonacci hashing of the whole NID.
func (t *nidTable) home(nid NID) int {
	return int((uint64(nid) * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns the peer NI of nid, or nil.
func (t *nidTable) get(nid NID) *PeerNI {
	if t.n == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for i := t.home(nid); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.lpni == nil {
			return nil
		}
		if s.nid == nid {
			return s.lpni
		}
	}
}

// set maps nid to lpni (non-nil), replacing any previous entry.
func (t *nidTable) set(nid NID, lpni *PeerNI) {
	if 4*(t.n+1) > 3*len(t.slots) { // at most 3/4 full: about a Go map's footprint
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.home(nid); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.lpni == nil {
			*s = nidSlot{nid, lpni}
			t.n++
			return
		}
		if s.nid == nid {
			s.lpni = lpni
			return
		}
	}
}

// del removes nid's entry if there is one, shifting later entries of its probe run back so
// that no look-up stops early at the hole.
func (t *nidTable) del(nid NID) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	i := t.home(nid)
	for {
		s := &t.slots[i]
		if s.lpni == nil {
			return
		}
		if s.nid == nid {
			break
		}
		i = (i + 1) & mask
	}
	t.n--
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s.lpni == nil {
			break
		}
		// s may move to the hole i if its home is not cyclically in (i, j].
		if h := t.home(s.nid); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = nidSlot{}
}

// grow doubles the table (16 slots at first) and re-inserts every entry.
func (t *nidTable) grow() {
	old := t.slots
	size := max(16, 2*len(old))
	t.slots = make([]nidSlot, size)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	t.n = 0
	for _, s := range old {
		if s.lpni != nil {
			t.set(s.nid, s.lpni)
		}
	}
}

// niTable maps NIDs to this node's own NIs (0@lo included): a node has a handful, so a scan
// of their NIDs, kept side by side, beats hashing; every send with a source NID given and
// every forwarded receive looks one up.
type niTable struct {
	nids []NID
	nis  []*NI
}

// get returns the local NI with nid, or nil.
func (t *niTable) get(nid NID) *NI {
	for i, x := range t.nids {
		if x == nid {
			return t.nis[i]
		}
	}
	return nil
}

// set adds or replaces nid's NI.
func (t *niTable) set(nid NID, ni *NI) {
	for i, x := range t.nids {
		if x == nid {
			t.nis[i] = ni
			return
		}
	}
	t.nids = append(t.nids, nid)
	t.nis = append(t.nis, ni)
}

// del removes nid's NI if there is one.
func (t *niTable) del(nid NID) {
	for i, x := range t.nids {
		if x == nid {
			t.nids = append(t.nids[:i], t.nids[i+1:]...)
			t.nis = append(t.nis[:i], t.nis[i+1:]...)
			return
		}
	}
}
