package pcap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/socklnd"
	"github.com/lnetsim/lnetsim/sim"
)

var (
	sockA  = netip.MustParseAddrPort("192.168.1.1:1023")
	sockB  = netip.MustParseAddrPort("192.168.1.2:988")
	sockAN = NID8(sockA.Addr().As4(), 0, LNDTypeSock)
	sockBN = NID8(sockB.Addr().As4(), 0, LNDTypeSock)
)

func TestSockHelloBytes(t *testing.T) {
	h := SockHello{SrcNID: sockAN, DstNID: sockBN, SrcPID: 12345, DstPID: 12345,
		SrcIncarnation: 0x1122334455667788, DstIncarnation: 0, CType: SockConnControl}
	got := hex.EncodeToString(h.AppendTo(nil))
	want := "63697245" + "03000000" + // LNET_PROTO_MAGIC, KSOCK_PROTO_V3
		"0101a8c000000200" + "0201a8c000000200" + // src, dst NID: 192.168.1.x@tcp (LND 2)
		"39300000" + "39300000" + // pids
		"8877665544332211" + "0000000000000000" + // incarnations
		"01000000" + "00000000" // SOCKLND_CONN_CONTROL, no IPs
	if got != want {
		t.Errorf("HELLO\n got %s\nwant %s", got, want)
	}
	// The same bytes as model/socklnd's own encoder (ksocknal_send_hello_v2) writes.
	m := socklnd.Hello{Version: socklnd.ProtoV3, SrcNID: lnet.NID(sockAN), DstNID: lnet.NID(sockBN), SrcPID: 12345,
		DstPID: 12345, SrcIncarnation: 0x1122334455667788, CType: socklnd.ConnControl}
	if enc, err := m.Encode(); err != nil || hex.EncodeToString(enc) != want {
		t.Errorf("socklnd.Hello.Encode: %x, %v", enc, err)
	}
	if got := hex.EncodeToString(AppendConnReq(nil, sockBN)); got != "0071ceac"+"01000000"+"0201a8c000000200" {
		t.Errorf("acceptor request %s", got)
	}
}

func TestKsockMsgBytes(t *testing.T) {
	noop := KsockMsg{Noop: true, Cookies: [2]uint64{0, 2}}
	if got := hex.EncodeToString(noop.AppendTo(nil)); got != "c0000000"+"00000000"+"0000000000000000"+"0200000000000000" {
		t.Errorf("NOOP %s", got)
	}
	put := KsockMsg{Cookies: [2]uint64{3, 0}, Hdr: LNetHdr{DestNID: sockBN, SrcNID: sockAN, DestPID: 12345,
		SrcPID: 12345, Type: LNetPut, PayloadLength: 1 << 20, MD: WireHandle{1, 7}, MatchBits: 7, Portal: 4}}
	b := put.AppendTo(nil)
	if len(b) != 96 {
		t.Fatalf("PUT is %d bytes, want 24 + 72", len(b))
	}
	if got := hex.EncodeToString(b[:40]); got != "c1000000"+"00000000"+"0300000000000000"+"0000000000000000"+"0201a8c000000200"+"0101a8c000000200" {
		t.Errorf("PUT header %s", got)
	}
	if typ, n := binary.LittleEndian.Uint32(b[24+24:]), binary.LittleEndian.Uint32(b[24+28:]); typ != LNetPut || n != 1<<20 {
		t.Errorf("LNet type %d length %d", typ, n)
	}
}

// sockStory writes the synthetic capture: A connects to B (acceptor request, HELLO both
// ways), PUTs 1 MiB (zero-copy cookie 3), B ACKs it with the ZC-ACK NOOP and the LNet ACK,
// A GETs 8 KiB and B REPLYs, then A closes and B's second connection is reset.
func sockStory(t *testing.T, s *SockStreams) {
	t.Helper()
	us := func(n int64) sim.Time { return sim.Time(n * int64(sim.Microsecond)) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	hello := func(src, dst uint64, inc uint64) *SockHello {
		return &SockHello{SrcNID: src, DstNID: dst, SrcPID: 12345, DstPID: 12345, SrcIncarnation: inc, CType: SockConnAny}
	}
	must(s.Open(us(10), sockA, sockB))
	must(s.Write(us(11), sockA, sockB, AppendConnReq(nil, sockBN), 16))
	must(s.Hello(us(11), sockA, sockB, hello(sockAN, sockBN, 100)))
	must(s.Hello(us(12), sockB, sockA, hello(sockBN, sockAN, 200)))
	hdr := func(typ uint32, src, dst uint64, n int) LNetHdr {
		return LNetHdr{DestNID: dst, SrcNID: src, DestPID: 12345, SrcPID: 12345, Type: typ, PayloadLength: uint32(n),
			MD: WireHandle{1, 7}, MatchBits: 7, Portal: 4}
	}
	put := KsockMsg{Cookies: [2]uint64{3, 0}, Hdr: hdr(LNetPut, sockAN, sockBN, 1<<20)}
	must(s.Msg(us(20), sockA, sockB, &put, 1<<20))
	must(s.Msg(us(400), sockB, sockA, &KsockMsg{Noop: true, Cookies: [2]uint64{0, 3}}, 0))
	ack := KsockMsg{Hdr: hdr(LNetAck, sockBN, sockAN, 0)}
	ack.Hdr.MLength = 1 << 20
	must(s.Msg(us(401), sockB, sockA, &ack, 0))
	get := KsockMsg{Hdr: hdr(LNetGet, sockAN, sockBN, 0)}
	get.Hdr.SinkLength = 8192
	must(s.Msg(us(410), sockA, sockB, &get, 0))
	must(s.Msg(us(420), sockB, sockA, &KsockMsg{Hdr: hdr(LNetReply, sockBN, sockAN, 8192)}, 8192))
	must(s.Close(us(500), sockA, sockB))
	must(s.Close(us(501), sockB, sockA))
	other := netip.MustParseAddrPort("192.168.1.1:1022")
	must(s.Msg(us(600), other, sockB, &KsockMsg{Noop: true}, 0)) // opened implicitly
	must(s.Abort(us(700), sockB, other))
}

// sockFrame is one captured TCP frame, parsed back.
type sockFrame struct {
	src, dst         uint16
	seq, ack         uint32
	flags            uint8
	wireLen, capData int
}

func parseSockFrames(t *testing.T, b []byte) []sockFrame {
	t.Helper()
	var out []sockFrame
	for b = b[24:]; len(b) > 0; {
		capLen, origLen := int(binary.LittleEndian.Uint32(b[8:])), int(binary.LittleEndian.Uint32(b[12:]))
		f := b[16 : 16+capLen]
		b = b[16+capLen:]
		ipTotal := int(binary.BigEndian.Uint16(f[14+2:]))
		tcp := f[14+20:]
		hl := int(tcp[12]>>4) * 4
		if origLen != 14+ipTotal {
			t.Fatalf("frame %d: original length %d, IP total length %d", len(out)+1, origLen, ipTotal)
		}
		out = append(out, sockFrame{src: binary.BigEndian.Uint16(tcp), dst: binary.BigEndian.Uint16(tcp[2:]),
			seq: binary.BigEndian.Uint32(tcp[4:]), ack: binary.BigEndian.Uint32(tcp[8:]), flags: tcp[13],
			wireLen: ipTotal - 20 - hl, capData: capLen - 14 - 20 - hl})
	}
	return out
}

func writeSockStory(t *testing.T) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, LinkRoCE)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSockStreams(w)
	if err != nil {
		t.Fatal(err)
	}
	sockStory(t, s)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if open := s.OpenConns(); len(open) != 0 {
		t.Errorf("connections left open: %v", open)
	}
	return buf.Bytes(), w.Packets()
}

// TestSockSequenceNumbers: the story's frames carry the sequence and acknowledgement numbers
// of the bytes each side wrote (ISN 0): handshake, 16-byte acceptor request, 56-byte HELLOs,
// the 1 MiB PUT (96 + 1048576 bytes) in 719 segments of at most 1460 bytes with PSH on the
// last, a 24-byte NOOP, 96-byte ACK and GET, a REPLY of 96 + 8192 captured bytes, FIN both
// ways, and the second connection opened implicitly and reset.
func TestSockSequenceNumbers(t *testing.T) {
	b, n := writeSockStory(t)
	fs := parseSockFrames(t, b)
	if len(fs) != n || n != 743 {
		t.Fatalf("%d frames parsed, %d written, want 743", len(fs), n)
	}
	const S, A, P, F, R = tcpSYN, tcpACK, tcpPSH | tcpACK, tcpFIN | tcpACK, tcpRST | tcpACK
	want := map[int]sockFrame{ // frame number (1-based) -> frame
		1:   {1023, 988, 0, 0, S, 0, 0},
		2:   {988, 1023, 0, 1, S | A, 0, 0},
		3:   {1023, 988, 1, 1, A, 0, 0},
		4:   {1023, 988, 1, 1, P, 16, 16},             // acceptor request
		5:   {1023, 988, 17, 1, P, 56, 56},            // HELLO
		6:   {988, 1023, 1, 73, P, 56, 56},            // HELLO back
		7:   {1023, 988, 73, 57, A, 1460, 96},         // PUT: headers captured, payload counted
		8:   {1023, 988, 1533, 57, A, 1460, 0},        // PUT payload
		725: {1023, 988, 1048353, 57, P, 392, 0},      // last: 73 + 96 + 1048576 = 1048745
		726: {988, 1023, 57, 1048745, P, 24, 24},      // ZC-ACK NOOP
		727: {988, 1023, 81, 1048745, P, 96, 96},      // LNet ACK
		728: {1023, 988, 1048745, 177, P, 96, 96},     // GET
		729: {988, 1023, 177, 1048841, A, 1460, 1460}, // REPLY: captured whole
		734: {988, 1023, 7477, 1048841, P, 988, 988},
		735: {1023, 988, 1048841, 8465, F, 0, 0},
		736: {988, 1023, 8465, 1048842, A, 0, 0},
		737: {988, 1023, 8465, 1048842, F, 0, 0},
		738: {1023, 988, 1048842, 8466, A, 0, 0},
		739: {1022, 988, 0, 0, S, 0, 0},
		742: {1022, 988, 1, 1, P, 24, 24},
		743: {988, 1022, 1, 25, R, 0, 0},
	}
	for i, f := range fs {
		if w, ok := want[i+1]; ok && f != w {
			t.Errorf("frame %d: %+v, want %+v", i+1, f, w)
		}
		if f.wireLen > defaultSockMSS {
			t.Errorf("frame %d: %d bytes, more than the MSS", i+1, f.wireLen)
		}
	}
}

// TestSockDecodedByTshark: the story decodes with stock tshark's LNet dissector on TCP port
// 988 (no options, no personal plugins): every NOOP and LNet message with the fields written,
// no frame malformed, no TCP analysis note (lost, retransmitted or unseen segments), only
// TCP's own notes on the FINs and the RST.
func TestSockDecodedByTshark(t *testing.T) {
	tshark := needTshark(t)
	b, _ := writeSockStory(t)
	path := filepath.Join(t.TempDir(), "sock.pcap")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-n", "-r", path, "-Y", "lnet.ksm_type || _ws.malformed || _ws.expert.severity >= 4194304 || tcp.analysis.flags",
		"-T", "fields", "-e", "frame.number", "-e", "tcp.srcport", "-e", "lnet.ksm_type", "-e", "lnet.msg_type",
		"-e", "lnet.nid.addr", "-e", "lnet.nid.type", "-e", "lnet.payload_length", "-e", "lnet.ksm_zc_req_cookie",
		"-e", "lnet.ksm_zc_ack_cookie", "-e", "_ws.malformed").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if !strings.HasPrefix(l, "Running as") {
			lines = append(lines, l)
		}
	}
	const z, two = "0x0000000000000000", "2,2"
	want := []string{ // frame, port, socklnd type, LNet type, NIDs (dest, src), LND types, length, ZC cookies, malformed
		"7\t1023\t0x000000c1\t1\t192.168.1.2,192.168.1.1\t" + two + "\t1048576\t0x0000000000000003\t" + z + "\t",
		"726\t988\t0x000000c0\t\t\t\t\t" + z + "\t0x0000000000000003\t",
		"727\t988\t0x000000c1\t0\t192.168.1.1,192.168.1.2\t" + two + "\t0\t" + z + "\t" + z + "\t",
		"728\t1023\t0x000000c1\t2\t192.168.1.2,192.168.1.1\t" + two + "\t0\t" + z + "\t" + z + "\t",
		"734\t988\t0x000000c1\t3\t192.168.1.1,192.168.1.2\t" + two + "\t8192\t" + z + "\t" + z + "\t",
		"735\t1023" + strings.Repeat("\t", 8), // FIN: TCP's closing notes
		"737\t988" + strings.Repeat("\t", 8),
		"742\t1022\t0x000000c0\t\t\t\t\t" + z + "\t" + z + "\t",
		"743\t988" + strings.Repeat("\t", 8), // RST: TCP's warning
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("tshark fields:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestSockPingDecoded: a ping REPLY carrying the ping buffer decodes with stock tshark, no
// flag; a discovery push (PUT of the buffer to portal 0) is flagged Malformed by stock tshark
// as over o2ib, and decodes with lnet_ping.lua, its tcp NIDs named.
func TestSockPingDecoded(t *testing.T) {
	tshark := needTshark(t)
	p := &PingInfo{Features: PingFeatNIStatus | PingFeatMultiRail | PingFeatDiscovery, PID: 12345, NIs: []PingNI{
		{NID: 9 << 48, Status: niStatusUp}, {NID: sockBN, Status: niStatusUp}}}
	data := p.AppendTo(nil)
	write := func(typ uint32) string {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, LinkRoCE)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSockStreams(w)
		if err != nil {
			t.Fatal(err)
		}
		m := KsockMsg{Hdr: LNetHdr{DestNID: sockAN, SrcNID: sockBN, DestPID: 12345, SrcPID: 12345, Type: typ,
			PayloadLength: uint32(len(data)), MatchBits: 1 << 63, Portal: PingPortal}}
		if err := s.MsgData(sim.Second, sockB, sockA, &m, data, len(data)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "ping.pcap")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	decode := func(path string, extra ...string) string {
		out, err := exec.Command(tshark, append(extra, "-n", "-r", path, "-V")...).CombinedOutput()
		if err != nil {
			t.Fatalf("tshark: %v\n%s", err, out)
		}
		return string(out)
	}
	if text := decode(write(LNetReply)); !strings.Contains(text, "Message type: REPLY (3)") || strings.Contains(text, "Malformed") {
		t.Errorf("ping REPLY: not decoded, or flagged:\n%s", text)
	}
	push := write(LNetPut)
	if text := decode(push); !strings.Contains(text, "Group: Malformed") {
		t.Errorf("stock tshark no longer flags the push over tcp:\n%s", text)
	}
	lua := filepath.Join(t.TempDir(), "lnet_ping.lua")
	if err := os.WriteFile(lua, PingDissector, 0o644); err != nil {
		t.Fatal(err)
	}
	text := decode(push, "-X", "lua_script:"+lua)
	for _, want := range []string{"LNet ping buffer", "NI 0: 0@lo UP", "NI 1: 192.168.1.2@tcp UP"} {
		if !strings.Contains(text, want) {
			t.Errorf("with lnet_ping.lua, tshark output lacks %q", want)
		}
	}
	if strings.Contains(text, "Malformed") {
		t.Errorf("with lnet_ping.lua the push is still flagged:\n%s", text)
	}
}

// TestSockMSS: a 1 MiB PUT with the largest MSS (a TSO sender's view) goes out in 17 segments
// of at most 65481 bytes, an MSS above that counts as 65481, and OpenAt stamps the handshake
// segments with their own times. A REPLY's captured frames fill the snap length at most.
func TestSockMSS(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, LinkRoCE)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSockStreams(w)
	if err != nil {
		t.Fatal(err)
	}
	s.MSS = 1 << 20
	if err := s.OpenAt(100, 200, 300, sockA, sockB); err != nil {
		t.Fatal(err)
	}
	put := KsockMsg{Hdr: LNetHdr{DestNID: sockBN, SrcNID: sockAN, Type: LNetPut, PayloadLength: 1 << 20, Portal: 4}}
	if err := s.Msg(400, sockA, sockB, &put, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	// A REPLY's payload is captured: its largest frame is the snap length exactly.
	reply := KsockMsg{Hdr: LNetHdr{DestNID: sockAN, SrcNID: sockBN, Type: LNetReply, PayloadLength: 1 << 20}}
	if err := s.Msg(500, sockB, sockA, &reply, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(buf.Bytes()[n+8:]); got != snapLen {
		t.Errorf("REPLY's first frame captures %d bytes, want %d", got, snapLen)
	}
	buf.Truncate(n)
	fs := parseSockFrames(t, buf.Bytes())
	if len(fs) != 3+17 {
		t.Fatalf("%d frames, want 3 + 17", len(fs))
	}
	if f := fs[3]; f.seq != 1 || f.wireLen != 65481 || f.capData != 96 || f.flags != tcpACK {
		t.Errorf("first segment %+v", f)
	}
	if f := fs[19]; f.seq != 1+16*65481 || f.wireLen != 96+1<<20-16*65481 || f.flags != tcpPSH|tcpACK {
		t.Errorf("last segment %+v", f)
	}
	b := buf.Bytes()[24:]
	for i, want := range []uint32{100, 200, 300, 400} {
		if ns := binary.LittleEndian.Uint32(b[4:]); ns != want {
			t.Errorf("frame %d stamped %d ns, want %d", i+1, ns, want)
		}
		b = b[16+binary.LittleEndian.Uint32(b[8:]):]
	}
}

// BenchmarkSockPut1MiB: the capture cost of one 1 MiB PUT and its ACK on an open connection
// (720 frames at the default MSS).
func BenchmarkSockPut1MiB(b *testing.B) {
	w, err := NewWriter(io.Discard, LinkRoCE)
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSockStreams(w)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Open(0, sockA, sockB); err != nil {
		b.Fatal(err)
	}
	put := KsockMsg{Hdr: LNetHdr{DestNID: sockBN, SrcNID: sockAN, Type: LNetPut, PayloadLength: 1 << 20, Portal: 4}}
	ack := KsockMsg{Hdr: LNetHdr{DestNID: sockAN, SrcNID: sockBN, Type: LNetAck, MLength: 1 << 20}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := s.Msg(sim.Time(i), sockA, sockB, &put, 1<<20); err != nil {
			b.Fatal(err)
		}
		if err := s.Msg(sim.Time(i), sockB, sockA, &ack, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Packets()-3)/float64(b.N), "frames/op")
}
