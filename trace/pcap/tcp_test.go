package pcap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTCPDecodedByTshark: a socklnd PUT of 1 MiB (header captured, payload counted), its
// ZC-ACK NOOP and the ACK, as TCP on port 988, decode with stock tshark's LNet dissector.
func TestTCPDecodedByTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("LNETSIM_REQUIRE_TSHARK") == "1" {
			t.Fatal("tshark not found and LNETSIM_REQUIRE_TSHARK=1")
		}
		t.Skip("tshark not installed")
	}
	t.Setenv("HOME", t.TempDir())
	a, b := [4]byte{192, 168, 1, 1}, [4]byte{192, 168, 1, 2}
	an, bn := NID8(a, 0, LNDTypeSock), NID8(b, 0, LNDTypeSock)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, LinkRoCE)
	if err != nil {
		t.Fatal(err)
	}
	put := KsockMsg{Cookies: [2]uint64{2, 0}, Hdr: LNetHdr{DestNID: bn, SrcNID: an, DestPID: 12345, SrcPID: 12345,
		Type: LNetPut, PayloadLength: 1 << 20, MD: WireHandle{Interface: 1, Object: 7}, MatchBits: 7, Portal: 4}}
	ack := KsockMsg{Hdr: LNetHdr{DestNID: an, SrcNID: bn, DestPID: 12345, SrcPID: 12345, Type: LNetAck,
		MD: WireHandle{Interface: 1, Object: 7}, MatchBits: 7, MLength: 1 << 20}}
	noop := KsockMsg{Noop: true, Cookies: [2]uint64{0, 2}}
	segs := []TCPSegment{
		{Time: 1000, SrcIP: a, DstIP: b, SrcPort: 1021, DstPort: LNetTCPPort, Seq: 1, Payload: put.AppendTo(nil), Len: 96 + 1<<20},
		{Time: 390000, SrcIP: b, DstIP: a, SrcPort: LNetTCPPort, DstPort: 1022, Seq: 1, Payload: noop.AppendTo(nil), Len: 24},
		{Time: 390100, SrcIP: b, DstIP: a, SrcPort: LNetTCPPort, DstPort: 1023, Seq: 1, Payload: ack.AppendTo(nil), Len: 96},
	}
	for i := range segs {
		if err := w.WriteTCP(&segs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "socklnd.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-n", "-r", path, "-T", "fields", "-e", "frame.number", "-e", "tcp.srcport",
		"-e", "lnet.ksm_type", "-e", "lnet.msg_type", "-e", "lnet.nid.addr",
		"-e", "lnet.payload_length", "-e", "lnet.ksm_zc_req_cookie", "-e", "lnet.ksm_zc_ack_cookie", "-e", "_ws.malformed").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "Running as") {
			lines = append(lines, l)
		}
	}
	want := []string{ // frame, port, socklnd type, LNet type, NIDs (dest, src), length, ZC cookies, malformed
		"1\t1021\t0x000000c1\t1\t192.168.1.2,192.168.1.1\t1048576\t0x0000000000000002\t0x0000000000000000\t",
		"2\t988\t0x000000c0\t\t\t\t0x0000000000000000\t0x0000000000000002\t",
		"3\t988\t0x000000c1\t0\t192.168.1.1,192.168.1.2\t0\t0x0000000000000000\t0x0000000000000000",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("tshark fields:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
