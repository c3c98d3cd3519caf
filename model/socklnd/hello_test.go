package socklnd

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

var (
	nidA = lnet.MustNID("192.168.1.1@tcp")
	nidB = lnet.MustNID("192.168.1.2@tcp")
)

// TestHelloEncoding pins the bytes of a V3 and a V1 HELLO and decodes them back.
func TestHelloEncoding(t *testing.T) {
	v3 := Hello{Version: ProtoV3, SrcNID: nidA, DstNID: nidB, SrcPID: 12345, DstPID: 12345,
		SrcIncarnation: 0x1122334455667788, CType: ConnBulkOut}
	b, err := v3.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want3 = "63697245" + "03000000" + "0101a8c000000200" + "0201a8c000000200" + "39300000" + "39300000" +
		"8877665544332211" + "0000000000000000" + "03000000" + "00000000"
	if got := hex.EncodeToString(b); got != want3 || len(b) != HelloSize {
		t.Fatalf("V3 HELLO\n got %s\nwant %s", got, want3)
	}
	v1 := Hello{Version: ProtoV1, SrcNID: nidA, SrcPID: 12345, SrcIncarnation: 7, CType: ConnControl,
		IPs: []uint32{0xc0a80101}}
	b1, err := v1.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b1) != HelloV1Size+4 || binary.LittleEndian.Uint32(b1) != ProtoTCPMagic ||
		binary.LittleEndian.Uint32(b1[24:]) != 4 || binary.LittleEndian.Uint32(b1[28:]) != 4 {
		t.Fatalf("V1 HELLO % x", b1)
	}
	for _, h := range []Hello{v3, v1} {
		enc, _ := h.Encode()
		got, n, err := DecodeHello(enc)
		if err != nil || n != len(enc) || !reflect.DeepEqual(got, h) {
			t.Errorf("round trip V%d: %+v n=%d err=%v", h.Version, got, n, err)
		}
	}
}

// TestHelloFlipped: a big-endian peer's V2 HELLO (LNET_PROTO_MAGIC byte-swapped) decodes with
// its fields swapped back, as ksocknal_recv_hello_v2 does with ksnc_flip.
func TestHelloFlipped(t *testing.T) {
	b := make([]byte, HelloSize+4)
	be := binary.BigEndian
	be.PutUint32(b[0:], ProtoMagic)
	be.PutUint32(b[4:], 2)
	be.PutUint64(b[8:], uint64(nidB))
	be.PutUint64(b[16:], uint64(nidA))
	be.PutUint32(b[24:], 12345)
	be.PutUint64(b[32:], 99)
	be.PutUint32(b[48:], uint32(ConnControl))
	be.PutUint32(b[52:], 1)
	be.PutUint32(b[56:], 0x0a000001)
	h, n, err := DecodeHello(b)
	want := Hello{Version: ProtoV2, SrcNID: nidB, DstNID: nidA, SrcPID: 12345, SrcIncarnation: 99,
		CType: ConnControl, IPs: []uint32{0x0a000001}}
	if err != nil || n != len(b) || !reflect.DeepEqual(h, want) {
		t.Fatalf("flipped: %+v n=%d err=%v", h, n, err)
	}
}

// TestParseVersion is ksocknal_parse_proto_version's table.
func TestParseVersion(t *testing.T) {
	le := func(a, b uint32) []byte {
		x := binary.LittleEndian.AppendUint32(nil, a)
		return binary.LittleEndian.AppendUint32(x, b)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		v    Version
		flip bool
	}{
		{"V2", le(ProtoMagic, 2), ProtoV2, false},
		{"V3", le(ProtoMagic, 3), ProtoV3, false},
		{"V4", le(ProtoMagic, 4), ProtoV4, false},
		{"V5 unknown", le(ProtoMagic, 5), 0, false},
		{"V3 big-endian", binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, ProtoMagic), 3), ProtoV3, true},
		{"V1 1.0", le(ProtoTCPMagic, 0<<16|1), ProtoV1, false},
		{"V1 2.0 (major bumped)", le(ProtoTCPMagic, 0<<16|2), 0, false},
		{"acceptor magic", le(0xacce7100, 1), 0, false},
	} {
		v, flip := ParseVersion(tc.b)
		if v != tc.v || flip != tc.flip {
			t.Errorf("%s: %d %v, want %d %v", tc.name, v, flip, tc.v, tc.flip)
		}
	}
}

func TestDecodeHelloErrors(t *testing.T) {
	good, _ := (&Hello{Version: ProtoV3, SrcNID: nidA}).Encode()
	v1, _ := (&Hello{Version: ProtoV1, SrcNID: nidA}).Encode()
	mod := func(b []byte, off int, v uint32) []byte {
		c := append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShortHello},
		{"bad magic", mod(good, 0, 0xdeadbeef), ErrBadMagic},
		{"V4", mod(good, 4, 4), ErrUnknownProto},
		{"truncated", good[:40], ErrShortHello},
		{"17 IPs", mod(good, 52, 17), ErrBadNIPs},
		{"IP list missing", mod(good, 52, 1), ErrShortHello},
		{"zero IP", append(mod(good, 52, 1), 0, 0, 0, 0), ErrZeroIP},
		{"V1 not HELLO", mod(v1, 24, 1), ErrNotHello},
	} {
		if _, _, err := DecodeHello(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := (&Hello{Version: ProtoV4}).Encode(); err == nil {
		t.Error("V4 encode: no error")
	}
}

// TestCheckHello is ksocknal_recv_hello's decision table.
func TestCheckHello(t *testing.T) {
	h := func(src lnet.NID, ct ConnType) *Hello { return &Hello{SrcNID: src, SrcPID: 12345, CType: ct} }
	for _, tc := range []struct {
		name       string
		h          *Hello
		my         ConnType
		protoMatch bool
		wantType   ConnType
		want       HelloResult
	}{
		{"passive gets bulk_out: bulk_in", h(nidA, ConnBulkOut), ConnNone, true, ConnBulkIn, HelloOK},
		{"passive gets control", h(nidA, ConnControl), ConnNone, true, ConnControl, HelloOK},
		{"passive gets bad type", h(nidA, 9), ConnNone, true, ConnNone, HelloFatal},
		{"active, answer inverse", h(nidB, ConnBulkIn), ConnBulkOut, true, ConnBulkOut, HelloOK},
		{"active, answer none: lost race", h(nidB, ConnNone), ConnControl, true, ConnControl, HelloLostRace},
		{"active, answer none other version: renegotiate", h(nidB, ConnNone), ConnControl, false, ConnControl, HelloRenegotiate},
		{"active, wrong type", h(nidB, ConnControl), ConnBulkOut, true, ConnBulkOut, HelloFatal},
		{"active, someone else", h(nidA, ConnBulkIn), ConnBulkOut, true, ConnBulkOut, HelloFatal},
		{"any NID", h(lnet.AnyNID, ConnControl), ConnNone, true, ConnNone, HelloFatal},
	} {
		ct, res, err := CheckHello(tc.h, tc.my, nidB, 12345, tc.protoMatch)
		if ct != tc.wantType || res != tc.want || (res == HelloFatal) != (err != nil) {
			t.Errorf("%s: %v %d %v, want %v %d", tc.name, ct, res, err, tc.wantType, tc.want)
		}
	}
}

// TestLosesRace: the passive side refuses a lower NID's connection only while connecting to
// it itself; the higher NID's connection goes through.
func TestLosesRace(t *testing.T) {
	if !LosesRace(nidA, nidB, true) || LosesRace(nidB, nidA, true) || LosesRace(nidA, nidB, false) {
		t.Fatal("race rule")
	}
	o2 := lnet.MustNID("10.0.0.9@tcp1") // a higher net number beats any address on tcp0
	if LosesRace(o2, nidB, true) || !LosesRace(nidB, o2, true) {
		t.Fatal("race rule across nets")
	}
}
