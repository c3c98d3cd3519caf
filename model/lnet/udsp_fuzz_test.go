package lnet

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// udspDescrSeeds are descriptors as users write them for lnetctl udsp add (and as the
// scenario schema's udsp sections carry them), with a few near misses.
var udspDescrSeeds = []string{
	"o2ib", "o2ib0", "o2ib1", "o2ib[1-3]", "o2ib[1-3/2]", "o2ib[0,2,4-8/2]", "tcp1", "lo", "gni", "kfi2",
	"10.1.0.2@o2ib1", "10.1.0.[2-5]@o2ib1", "10.1.0.[1,3,7-9]@o2ib1", "10.1.*.*@o2ib1", "*@o2ib1", "*.*.*.*@o2ib1",
	"*@o2ib[1-2]", "[0-4]@lo", "*@lo", "0@lo", "192.168.[0-255/4].[1-254]@tcp", "10.0.0.1@o2ib",
	" o2ib1 ", "", "ib1", "o2ib[3-1]", "10.1.0@o2ib1", "10.1.0.[1-300]@o2ib1", "10.1.0.x@o2ib1",
	"o2ib[1-", "10.1.0.[1-3/0]@o2ib", "[]@lo", "[,]@lo", "[1-2-3]@lo", "1@2@o2ib", "o2ib65536",
	"o2ib[4294967295]", "[4294967295/4294967295]@kfi", "+1.2.3.4@o2ib", "1.2.3.4@o2ib\n",
}

// FuzzParseUDSPDescr: ParseUDSPDescr never panics, its errors are one line, what it accepts
// is written back as given and parses again to the same descriptor, every range it builds is
// in bounds, and a descriptor that is a plain NID matches that NID (and its net).
func FuzzParseUDSPDescr(f *testing.F) {
	for _, s := range udspDescrSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseUDSPDescr(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error is not one line: %q", s, err)
			}
			return
		}
		trimmed := strings.TrimSpace(s)
		if d.String() != trimmed || d.present() != (trimmed != "") {
			t.Fatalf("%q: String %q present %v", s, d.String(), d.present())
		}
		again, err := ParseUDSPDescr(d.String())
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("%q: reparse of %q gave %+v, %v; first %+v", s, d.String(), again, err, d)
		}
		checkRanges := func(what string, l exprList, max uint32) {
			for _, r := range l {
				if r.lo > r.hi || r.hi > max || r.stride == 0 {
					t.Fatalf("%q: %s range %+v out of bounds (max %d)", s, what, r, max)
				}
			}
		}
		checkRanges("net", d.netNums, 0xffff)
		switch {
		case d.addr == nil:
		case len(d.addr) == 4:
			for _, o := range d.addr {
				checkRanges("octet", o, 255)
			}
		case len(d.addr) == 1:
			checkRanges("address", d.addr[0], ^uint32(0))
		default:
			t.Fatalf("%q: %d address parts", s, len(d.addr))
		}
		if nid, err := ParseNID(s); err == nil && !nid.IsAny() && strings.Contains(trimmed, "@") {
			if !d.matchNID(nid) || !d.matchNet(nid.Net()) || d.isNetRule() {
				t.Fatalf("%q: the descriptor of NID %v does not match it (nid %v net %v netRule %v)",
					s, nid, d.matchNID(nid), d.matchNet(nid.Net()), d.isNetRule())
			}
		}
		if net, err := ParseNet(s); err == nil && !strings.Contains(s, "@") {
			if !d.matchNet(net) || !d.isNetRule() {
				t.Fatalf("%q: the descriptor of net %v does not match it", s, net)
			}
		}
	})
}

// fuzzBytes hands out the fuzz input a byte or a number at a time (zeros once it runs out).
type fuzzBytes []byte

func (b *fuzzBytes) byte() byte {
	if len(*b) == 0 {
		return 0
	}
	c := (*b)[0]
	*b = (*b)[1:]
	return c
}

func (b *fuzzBytes) u32() uint32 {
	return uint32(b.byte())<<24 | uint32(b.byte())<<16 | uint32(b.byte())<<8 | uint32(b.byte())
}

// genExpr builds an expression list within [0, max] from the input and writes it as
// lnetctl's syntax: "*", a number, or "[a,b-c,d-e/s]".
func genExpr(b *fuzzBytes, max uint32) (exprList, string) {
	pick := func() uint32 {
		span := uint64(max) + 1
		switch c := b.byte(); c % 4 {
		case 0:
			return uint32(uint64(c/4) % span)
		case 1:
			return max - uint32(uint64(c/4)%span)
		default:
			return uint32(uint64(b.u32()) % span)
		}
	}
	switch b.byte() % 4 {
	case 0:
		return exprList{{0, max, 1}}, "*"
	case 1:
		v := pick()
		return exprList{{v, v, 1}}, strconv.FormatUint(uint64(v), 10)
	}
	n := 1 + int(b.byte()%3)
	var l exprList
	var parts []string
	for i := 0; i < n; i++ {
		lo, hi := pick(), pick()
		if lo > hi {
			lo, hi = hi, lo
		}
		r := numRange{lo, hi, 1}
		var text string
		if lo == hi && b.byte()%2 == 0 {
			text = strconv.FormatUint(uint64(lo), 10)
		} else {
			text = fmt.Sprintf("%d-%d", lo, hi)
		}
		if c := b.byte(); c%3 == 0 {
			r.stride = 1 + uint32(c/3)%17
			text += "/" + strconv.FormatUint(uint64(r.stride), 10)
		}
		l = append(l, r)
		parts = append(parts, text)
	}
	return l, "[" + strings.Join(parts, ",") + "]"
}

// refMatch is membership in an expression list computed directly: some range holds v on its
// stride.
func refMatch(l exprList, v uint32) bool {
	for _, r := range l {
		if uint64(v) >= uint64(r.lo) && uint64(v) <= uint64(r.hi) && (uint64(v)-uint64(r.lo))%uint64(r.stride) == 0 {
			return true
		}
	}
	return false
}

// FuzzUDSPDescrRoundTrip: a descriptor generated from the input as structured ranges and
// written in lnetctl's syntax parses, and matches exactly the nets and NIDs the ranges hold
// (probed at the ranges' ends, one past them, and at NIDs taken from the input).
func FuzzUDSPDescrRoundTrip(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0}, {1, 2, 1, 0, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		{0, 3, 2, 9, 9, 9, 9, 1, 2, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3},
		{2, 1, 3, 1, 5, 2, 3, 0, 0, 0, 0, 8, 8, 8, 8, 1, 255, 255, 255, 255},
		[]byte("a fuzz input that is mostly text, to mix things up"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fuzzBytes(data)
		lnds := []LNDType{O2IBLND, SOCKLND, LOLND, GNILND, KFILND}
		lnd := lnds[int(b.byte())%len(lnds)]
		text := lnd.String()
		var nets exprList
		if b.byte()%2 == 1 {
			var nt string
			nets, nt = genExpr(&b, 0xffff)
			text += nt
		}
		var addr []exprList
		withAddr := b.byte()%3 != 0
		if withAddr {
			if lnd == O2IBLND || lnd == SOCKLND {
				var parts []string
				for i := 0; i < 4; i++ {
					l, s := genExpr(&b, 255)
					addr, parts = append(addr, l), append(parts, s)
				}
				text = strings.Join(parts, ".") + "@" + text
			} else {
				l, s := genExpr(&b, ^uint32(0))
				addr = []exprList{l}
				text = s + "@" + text
			}
		}
		d, err := ParseUDSPDescr(text)
		if err != nil {
			t.Fatalf("%q (generated) refused: %v", text, err)
		}
		if d.lnd != lnd || d.isNetRule() == withAddr {
			t.Fatalf("%q: lnd %v netRule %v", text, d.lnd, d.isNetRule())
		}
		netOK := func(num uint16) bool {
			if nets == nil {
				return num == 0
			}
			return refMatch(nets, uint32(num))
		}
		addrOK := func(a uint32) bool {
			if len(addr) == 4 {
				return refMatch(addr[0], a>>24) && refMatch(addr[1], a>>16&0xff) && refMatch(addr[2], a>>8&0xff) && refMatch(addr[3], a&0xff)
			}
			return refMatch(addr[0], a)
		}
		// Probe values: each range's ends, one either side, a stride step, and input words.
		var probes []uint32
		add := func(l exprList) {
			for _, r := range l {
				probes = append(probes, r.lo, r.hi, r.lo-1, r.hi+1, r.lo+r.stride, r.lo+1)
			}
		}
		add(nets)
		for _, l := range addr {
			add(l)
		}
		for i := 0; i < 8; i++ {
			probes = append(probes, b.u32())
		}
		for _, p := range probes {
			for _, num := range []uint16{uint16(p), 0} {
				net := MakeNet(lnd, num)
				if got, want := d.matchNet(net), netOK(num); got != want {
					t.Fatalf("%q: matchNet(%v) = %v, want %v", text, net, got, want)
				}
				if other := lnds[int(p%uint32(len(lnds)))]; other != lnd && d.matchNet(MakeNet(other, num)) {
					t.Fatalf("%q matched net %v of another LND", text, MakeNet(other, num))
				}
				if !withAddr {
					if d.matchNID(MakeNID(net, p)) {
						t.Fatalf("%q: a net rule matched a NID", text)
					}
					continue
				}
				// The address probe, and for IPv4 the probe spread over the octets.
				for _, a := range []uint32{p, p&0xff | p<<8&0xff00 | p<<16&0xff0000 | p<<24} {
					nid := MakeNID(net, a)
					if got, want := d.matchNID(nid), netOK(num) && addrOK(a); got != want {
						t.Fatalf("%q: matchNID(%v) = %v, want %v", text, nid, got, want)
					}
				}
			}
		}
	})
}

// FuzzUDSPRules: a rule from three descriptors and a priority is accepted exactly when
// lnetctl's combinations allow it, Validate agrees with AddUDSP, and adding, showing and
// deleting accepted rules on a node with local NIs and peers never panics and keeps the
// indices dense.
func FuzzUDSPRules(f *testing.F) {
	f.Add("o2ib", "", "", int64(1), "", "o2ib1", "10.0.0.3@o2ib", int64(-1), uint8(0))
	f.Add("", "10.1.0.[2-5]@o2ib1", "", int64(2), "o2ib", "10.0.0.2@o2ib", "", int64(-1), uint8(1))
	f.Add("o2ib", "", "10.0.0.3@o2ib", int64(-1), "", "", "", int64(-1), uint8(3))
	f.Add("", "o2ib1", "10.0.0.3@o2ib", int64(0), "o2ib[0-1]", "", "", int64(4294967294), uint8(9))
	f.Add("*.*.*.*@o2ib", "*.*.*.*@o2ib", "", int64(-1), "", "*.*.*.*@o2ib", "*.*.*.*@o2ib", int64(-1), uint8(2))
	f.Fuzz(func(t *testing.T, src1, dst1, rte1 string, prio1 int64, src2, dst2, rte2 string, prio2 int64, ops uint8) {
		k := sim.New(1)
		lnd := NewIdealLND(k, sim.Microsecond)
		ns := mkNodes(t, k, lnd, DefaultTunables(),
			[]string{"10.0.0.1@o2ib", "10.0.1.1@o2ib", "10.1.0.1@o2ib1"},
			[]string{"10.0.0.2@o2ib", "10.1.0.2@o2ib1"})
		startAll(t, ns...)
		a := ns[0]
		// Give a peers on both nets before the rules, as discovery would.
		for _, p := range []string{"10.0.0.2@o2ib", "10.1.0.2@o2ib1"} {
			md := a.MDBind(MDSpec{Length: 1, Threshold: 1, Handler: &evRec{}})
			_ = a.Put(AnyNID, md, AckReqNone, nid(p), testPortal, 0, 0, 0)
		}
		_ = k.RunUntil(k.Now() + sim.Second)
		added := 0
		for i, s := range []UDSPSpec{{src1, dst1, rte1, prio1}, {src2, dst2, rte2, prio2}} {
			verr := s.Validate()
			src, srcErr := ParseUDSPDescr(s.Src)
			dst, dstErr := ParseUDSPDescr(s.Dst)
			rte, rteErr := ParseUDSPDescr(s.Rte)
			descrOK := srcErr == nil && dstErr == nil && rteErr == nil
			comboOK := (src.present() || dst.present() || rte.present()) && !(src.present() && rte.present()) &&
				(!rte.present() || dst.present()) && s.Priority <= int64(^uint32(0)-1) &&
				(s.Priority < 0 || !rte.present() && src.present() != dst.present())
			if (verr == nil) != (descrOK && comboOK) {
				t.Fatalf("rule %d %+v: Validate %v, descriptors ok %v, combination ok %v", i, s, verr, descrOK, comboOK)
			}
			if verr != nil && strings.Contains(verr.Error(), "\n") {
				t.Fatalf("rule %d: error is not one line: %q", i, verr)
			}
			err := a.AddUDSP(s, int(ops%4)-1)
			if verr != nil && err == nil {
				t.Fatalf("rule %d %+v: Validate refused it (%v) but AddUDSP accepted it", i, s, verr)
			}
			if err == nil {
				added++
			}
		}
		shows := a.UDSPs()
		if len(shows) > added {
			t.Fatalf("%d rules shown after %d were added", len(shows), added)
		}
		for i, sh := range shows {
			if sh.Idx != i {
				t.Fatalf("show %d has idx %d: %+v", i, sh.Idx, shows)
			}
		}
		if a.DelUDSP(len(shows)) == nil {
			t.Fatal("deleting past the end succeeded")
		}
		for range shows {
			if err := a.DelUDSP(int(ops) % len(a.UDSPs())); err != nil {
				t.Fatal(err)
			}
		}
		if len(a.UDSPs()) != 0 {
			t.Fatalf("rules left after deleting all: %+v", a.UDSPs())
		}
		_ = k.RunUntil(k.Now() + sim.Second)
	})
}
