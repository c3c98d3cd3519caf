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

const (
	niStatusUp   = 0x15aac0de // LNET_NI_STATUS_UP
	niStatusDown = 0xdeadface // LNET_NI_STATUS_DOWN
)

func samplePing() *PingInfo {
	return &PingInfo{Features: PingFeatNIStatus | PingFeatMultiRail | PingFeatDiscovery, PID: 12345, NIs: []PingNI{
		{NID: 9 << 48, Status: niStatusUp}, // 0@lo
		{NID: cnid, Status: niStatusUp},
		{NID: NID8([4]byte{10, 0, 0, 3}, 0, LNDTypeO2IB), Status: niStatusDown},
	}}
}

func TestPingInfoLayout(t *testing.T) {
	p := samplePing()
	b := p.AppendTo(nil)
	if len(b) != p.Len() || len(b) != 16+3*16 {
		t.Fatalf("ping info is %d bytes (Len %d), want 64", len(b), p.Len())
	}
	le := binary.LittleEndian
	if le.Uint32(b) != 0x70696e67 || le.Uint32(b[4:]) != 0x1a || le.Uint32(b[8:]) != 12345 || le.Uint32(b[12:]) != 3 {
		t.Fatalf("bad lnet_ping_info header % x", b[:16])
	}
	ni := b[16+2*16:]
	if le.Uint64(ni) != 0x0005_0000_0a000003 || le.Uint32(ni[8:]) != niStatusDown || le.Uint32(ni[12:]) != 0 {
		t.Fatalf("bad lnet_ni_status % x", ni)
	}
}

// TestPingDissector writes a discovery push (an IMMEDIATE PUT of a ping buffer to portal 0):
// stock tshark flags it Malformed (no dissector for portal 0), with lnet_ping.lua it decodes
// with no flag and shows the NI that is DOWN.
func TestPingDissector(t *testing.T) {
	tshark := needTshark(t)
	p := samplePing()
	push := KibMsg{Type: o2ib.MsgIMMEDIATE, SrcNID: cnid, DstNID: snid, Payload: p.AppendTo(nil),
		Hdr: LNetHdr{DestNID: snid, SrcNID: cnid, DestPID: 12345, SrcPID: 12345, Type: LNetPut,
			PayloadLength: uint32(p.Len()), MatchBits: 1 << 63, Portal: PingPortal}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, LinkRoCE)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Packet{Time: sim.Second, Src: client, Dst: server, Opcode: OpSendOnly, Payload: push.AppendTo(nil)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file, lua := filepath.Join(dir, "push.pcap"), filepath.Join(dir, "lnet_ping.lua")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lua, PingDissector, 0o644); err != nil {
		t.Fatal(err)
	}
	decode := func(extra ...string) string {
		out, err := exec.Command(tshark, append(extra, "-n", "-r", file, "-P", "-V")...).CombinedOutput()
		if err != nil {
			t.Fatalf("tshark: %v\n%s", err, out)
		}
		return string(out)
	}
	if text := decode(); !strings.Contains(text, "Group: Malformed") {
		t.Errorf("stock tshark no longer flags the push: Wireshark may now decode portal 0 itself\n%s", text)
	}
	text := decode("-X", "lua_script:"+lua)
	for _, want := range []string{"LNet ping buffer", "Magic: 0x70696e67", "Multi-Rail: True", "NI 0: 0@lo UP",
		"NI 1: 10.0.0.1@o2ib UP", "NI 2: 10.0.0.3@o2ib DOWN", "[ping buffer: 3 NIs, DOWN: 10.0.0.3@o2ib]"} {
		if !strings.Contains(text, want) {
			t.Errorf("with lnet_ping.lua, tshark output lacks %q", want)
		}
	}
	if strings.Contains(text, "Malformed") || strings.Contains(text, "Expert Info") {
		t.Errorf("with lnet_ping.lua the push is still flagged:\n%s", text)
	}
}
