package pcap

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/sim"
)

var (
	client = Endpoint{IP: [4]byte{10, 0, 0, 1}, LID: 1, QPN: 0x11}
	server = Endpoint{IP: [4]byte{10, 0, 0, 2}, LID: 2, QPN: 0x22}
	cnid   = NID8(client.IP, 0, LNDTypeO2IB)
	snid   = NID8(server.IP, 0, LNDTypeO2IB)
)

// sample returns one message of every o2iblnd type, as the model sends them.
func sample() []KibMsg {
	put := LNetHdr{DestNID: snid, SrcNID: cnid, DestPID: 12345, SrcPID: 12345, Type: LNetPut,
		PayloadLength: 1 << 20, MatchBits: 0x42, Portal: 51, MD: WireHandle{1, 2}}
	small := put
	small.PayloadLength = 8
	get := LNetHdr{DestNID: snid, SrcNID: cnid, DestPID: 12345, SrcPID: 12345, Type: LNetGet,
		MatchBits: 0x43, Portal: 51, SinkLength: 1 << 20, MD: WireHandle{3, 4}}
	ack := LNetHdr{DestNID: cnid, SrcNID: snid, Type: LNetAck, MatchBits: 0x42, MLength: 8}
	desc := RDMADesc{Key: 0x1234, Frags: []RDMAFrag{{Nob: 1 << 20, Addr: 0x7f0000000000}}}
	base := KibMsg{SrcNID: cnid, DstNID: snid, SrcStamp: 100, DstStamp: 200, Credits: 1}
	msgs := []KibMsg{
		{Type: o2ib.MsgCONNREQ, ConnParams: ConnParams{QueueDepth: 8, MaxFrags: 257, MaxMsgSize: 4096}},
		{Type: o2ib.MsgCONNACK, ConnParams: ConnParams{QueueDepth: 8, MaxFrags: 257, MaxMsgSize: 4096}},
		{Type: o2ib.MsgNOOP},
		{Type: o2ib.MsgIMMEDIATE, Hdr: small, Payload: make([]byte, 8)},
		{Type: o2ib.MsgIMMEDIATE, Hdr: ack},
		{Type: o2ib.MsgPUT_REQ, Hdr: put, Cookie: 7},
		{Type: o2ib.MsgPUT_ACK, Cookie: 7, DstCookie: 8, RDMA: desc},
		{Type: o2ib.MsgPUT_NAK, Cookie: 7, Status: 0},
		{Type: o2ib.MsgPUT_DONE, Cookie: 8, Status: 1 << 20},
		{Type: o2ib.MsgGET_REQ, Hdr: get, Cookie: 9, RDMA: desc},
		{Type: o2ib.MsgGET_DONE, Cookie: 9, Status: -61},
	}
	for i := range msgs {
		m := &msgs[i]
		m.SrcNID, m.DstNID, m.SrcStamp, m.DstStamp, m.Credits = base.SrcNID, base.DstNID, base.SrcStamp, base.DstStamp, base.Credits
	}
	return msgs
}

func writeSample(t *testing.T, link Link) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, link)
	if err != nil {
		t.Fatal(err)
	}
	at := sim.Time(1500 * sim.Millisecond)
	for i, m := range sample() {
		at += 3 * sim.Microsecond
		if err := w.Write(&Packet{Time: at, Src: client, Dst: server, Opcode: OpSendOnly, PSN: uint32(i), Payload: m.AppendTo(nil)}); err != nil {
			t.Fatal(err)
		}
	}
	// The bulk of a PUT: one RDMA WRITE whose RETH gives the size; no data captured.
	if err := w.Write(&Packet{Time: at + 1, Src: client, Dst: server, Opcode: OpWriteOnly, PSN: 99,
		RemoteAddr: 0x7f0000000000, RKey: 0x1234, DMALen: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Packets() != len(sample())+1 {
		t.Fatalf("Packets() = %d", w.Packets())
	}
	return buf.Bytes()
}

func TestKibEncoding(t *testing.T) {
	for _, m := range sample() {
		b := m.AppendTo(nil)
		if got := binary.LittleEndian.Uint32(b); got != o2ib.MsgMagic {
			t.Fatalf("magic %#x", got)
		}
		if nob := binary.LittleEndian.Uint32(b[8:]); int(nob) != len(b) {
			t.Fatalf("type %#x: nob %d, encoded %d bytes", m.Type, nob, len(b))
		}
		if m.Type == o2ib.MsgIMMEDIATE || m.Type == o2ib.MsgPUT_REQ || m.Type == o2ib.MsgGET_REQ {
			// kib header (48) + LNet header (always 72)
			if len(b) < o2ib.MsgHdrSize+o2ib.LNetHdrSize {
				t.Fatalf("type %#x: %d bytes, shorter than both headers", m.Type, len(b))
			}
		}
	}
	h := LNetHdr{Type: LNetGet}
	if n := len(h.AppendTo(nil)); n != o2ib.LNetHdrSize {
		t.Fatalf("GET LNet header is %d bytes, want 72 (union padded to 40)", n)
	}
	if got := NID8([4]byte{10, 0, 0, 1}, 1, LNDTypeO2IB); got != 0x0005_0001_0a000001 {
		t.Fatalf("NID8 = %#x", got)
	}
}

func TestPcapHeaderAndTimestamps(t *testing.T) {
	b := writeSample(t, LinkRoCE)
	if binary.LittleEndian.Uint32(b) != pcapMagicNanos || binary.LittleEndian.Uint32(b[20:]) != linkTypeEthernet {
		t.Fatal("bad pcap global header")
	}
	rec := b[24:]
	if sec, ns := binary.LittleEndian.Uint32(rec), binary.LittleEndian.Uint32(rec[4:]); sec != 1 || ns != 500_003_000 {
		t.Fatalf("first record stamped %d s %d ns, want 1 s 500003000 ns", sec, ns)
	}
}

// needTshark returns tshark's path, skipping the test when it is not installed (failing it
// instead when LNETSIM_REQUIRE_TSHARK=1, as in CI). The test gets an empty HOME, so tshark is
// stock: no personal plugins (wireshark-plugin --install).
func needTshark(t *testing.T) string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("LNETSIM_REQUIRE_TSHARK") == "1" {
			t.Fatal("tshark not found and LNETSIM_REQUIRE_TSHARK=1")
		}
		t.Skip("tshark not installed")
	}
	t.Setenv("HOME", t.TempDir())
	return tshark
}

// TestDecodedByTshark writes both containers and asks tshark to decode them: every o2iblnd
// message type must be recognised, and nothing may be flagged malformed. The test is skipped
// when tshark is not installed unless LNETSIM_REQUIRE_TSHARK=1 (CI installs it).
func TestDecodedByTshark(t *testing.T) {
	tshark := needTshark(t)
	for _, tc := range []struct {
		link Link
		file string
	}{{LinkRoCE, "roce.pcap"}, {LinkIB, "ib.erf"}} {
		path := filepath.Join(t.TempDir(), tc.file)
		if err := os.WriteFile(path, writeSample(t, tc.link), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tshark, "-n", "-r", path, "-P", "-V").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: tshark: %v\n%s", tc.file, err, out)
		}
		text := string(out)
		for _, want := range []string{"CONNREQ", "CONNACK", "NOOP", "IMMEDIATE", "PUT_REQ", "PUT_ACK", "PUT_NAK", "PUT_DONE", "GET_REQ", "GET_DONE", "LNET_PUT", "LNET_GET", "LNET_ACK", "RDMA WRITE"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: tshark output lacks %q", tc.file, want)
			}
		}
		// The one known note: an inline PUT payload no Wireshark subdissector consumes
		// (see KibMsg.AppendTo). Anything else flagged is a bug in the encoding.
		known := "[Expert Info (Error/Malformed): Capture:128 offset:120 (length:128) msg_type:1 ib_type:d1]"
		if n := strings.Count(text, known); n != 1 {
			t.Errorf("%s: the inline-PUT note appears %d times, want 1", tc.file, n)
		}
		if n := strings.Count(text, "Group: Malformed"); n != 1 {
			i := strings.Index(text, "[Malformed")
			t.Errorf("%s: %d malformed flags, want only the inline-PUT note; first near: %s", tc.file, n, text[max(0, i-400):min(len(text), i+200)])
		}
		if strings.Contains(text, "Invalid Packet Length") {
			t.Errorf("%s: the InfiniBand dissector finds a packet length wrong", tc.file)
		}
	}
}
