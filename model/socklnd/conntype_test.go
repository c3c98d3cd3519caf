package socklnd

import "testing"

func TestInvertTypeAndMask(t *testing.T) {
	for in, want := range map[ConnType]ConnType{ConnAny: ConnAny, ConnControl: ConnControl,
		ConnBulkIn: ConnBulkOut, ConnBulkOut: ConnBulkIn, ConnNone: ConnNone, 7: ConnNone} {
		if got := InvertType(in); got != want {
			t.Errorf("InvertType(%v) = %v, want %v", in, got, want)
		}
	}
	if ConnMask(false) != 0b0001 || ConnMask(true) != 0b1110 {
		t.Errorf("masks %04b %04b", ConnMask(false), ConnMask(true))
	}
}

// TestTxNob: the size compared with min_bulk counts both headers (24 + 72) from V2, the LNet
// header alone on V1, the socklnd header alone for a NOOP.
func TestTxNob(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		payload int
		noop    bool
		want    int
	}{{ProtoV3, 0, false, 96}, {ProtoV3, 928, false, 1024}, {ProtoV2, 4096, false, 4192},
		{ProtoV1, 928, false, 1000}, {ProtoV3, 0, true, 24}} {
		if got := TxNob(tc.v, tc.payload, tc.noop); got != tc.want {
			t.Errorf("TxNob(%d, %d, %v) = %d, want %d", tc.v, tc.payload, tc.noop, got, tc.want)
		}
	}
}

// TestMatchTx is the kernel's match table (ksocknal_match_tx, ksocknal_match_tx_v3) with
// min_bulk 1024.
func TestMatchTx(t *testing.T) {
	const Y, M, N = MatchYes, MatchMay, MatchNo
	type row struct {
		nob          int
		noop, nonblk bool
		// any, control, bulk_in, bulk_out
		v2, v3 [4]Match
	}
	for _, r := range []row{
		{nob: 96, v2: [4]Match{Y, Y, M, M}, v3: [4]Match{N, Y, N, M}},             // ACK, small PUT
		{nob: 1023, v2: [4]Match{Y, Y, M, M}, v3: [4]Match{N, Y, N, M}},           // just under min_bulk
		{nob: 1024, v2: [4]Match{Y, M, M, Y}, v3: [4]Match{N, M, N, Y}},           // min_bulk exactly: bulk
		{nob: 1 << 20, v2: [4]Match{Y, M, M, Y}, v3: [4]Match{N, M, N, Y}},        // 1 MiB PUT
		{nob: 24, noop: true, v2: [4]Match{Y, Y, M, M}, v3: [4]Match{N, Y, M, M}}, // blocking NOOP
		{nob: 24, noop: true, nonblk: true, v2: [4]Match{Y, Y, M, M}, v3: [4]Match{N, N, Y, N}},
	} {
		for ct := ConnAny; ct <= ConnBulkOut; ct++ {
			if got := MatchTx(ProtoV2, ct, r.nob, r.noop, r.nonblk, 1024); got != r.v2[ct] {
				t.Errorf("V2 %v nob %d noop %v nonblk %v: %d, want %d", ct, r.nob, r.noop, r.nonblk, got, r.v2[ct])
			}
			if got := MatchTx(ProtoV3, ct, r.nob, r.noop, r.nonblk, 1024); got != r.v3[ct] {
				t.Errorf("V3 %v nob %d noop %v nonblk %v: %d, want %d", ct, r.nob, r.noop, r.nonblk, got, r.v3[ct])
			}
		}
	}
}

// TestFindConn: typed beats fallback; the least queued wins among equals; ties go to the
// older last post with round_robin, else to the first in list order.
func TestFindConn(t *testing.T) {
	ctrl := ConnLoad{Type: ConnControl}
	in := ConnLoad{Type: ConnBulkIn}
	out := ConnLoad{Type: ConnBulkOut}
	three := []ConnLoad{ctrl, in, out}
	for _, tc := range []struct {
		name         string
		conns        []ConnLoad
		nob          int
		noop, nonblk bool
		rr           bool
		want         int
	}{
		{"small -> control", three, 96, false, false, true, 0},
		{"1 MiB -> bulk_out", three, 96 + 1<<20, false, false, true, 2},
		{"keepalive NOOP -> bulk_in", three, 24, true, true, true, 1},
		{"small, only bulk_out: fallback", []ConnLoad{out}, 96, false, false, true, 0},
		{"small, only bulk_in: refused", []ConnLoad{in}, 96, false, false, true, -1},
		{"two bulk_out, less queued wins", []ConnLoad{{ConnBulkOut, 5000, 1}, {ConnBulkOut, 10, 9}}, 4096, false, false, true, 1},
		{"equal, older post wins", []ConnLoad{{ConnBulkOut, 0, 9}, {ConnBulkOut, 0, 3}}, 4096, false, false, true, 1},
		{"equal, no round robin: first", []ConnLoad{{ConnBulkOut, 0, 9}, {ConnBulkOut, 0, 3}}, 4096, false, false, false, 0},
	} {
		if got := FindConn(tc.conns, ProtoV3, tc.nob, tc.noop, tc.nonblk, 1024, tc.rr); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestNextConnType follows ksocknal_connect's order: ANY, CONTROL, then BULK_IN and BULK_OUT
// alternating while conns_per_peer asks for more.
func TestNextConnType(t *testing.T) {
	all := ConnMask(true)
	for _, tc := range []struct {
		wanted          uint8
		bulkIn, bulkOut int
		want            ConnType
	}{
		{ConnMask(false), 0, 0, ConnAny},
		{all, 0, 0, ConnControl},
		{all &^ (1 << ConnControl), 0, 0, ConnBulkIn},
		{all &^ (1 << ConnControl), 1, 0, ConnBulkOut},
		{all &^ (1 << ConnControl), 1, 1, ConnBulkIn},
		{1 << ConnBulkOut, 2, 1, ConnBulkOut},
		{0, 0, 0, ConnNone},
	} {
		if got := NextConnType(tc.wanted, tc.bulkIn, tc.bulkOut); got != tc.want {
			t.Errorf("wanted %04b in %d out %d: %v, want %v", tc.wanted, tc.bulkIn, tc.bulkOut, got, tc.want)
		}
	}
}
