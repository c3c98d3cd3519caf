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
// with no flag and shows the NI that is DOWN; a buffer with NID metadata shows its entries.
func TestPingDissector(t *testing.T) {
	tshark := needTshark(t)
	if text := decodePing(t, tshark, samplePing(), false); !strings.Contains(text, "Group: Malformed") {
		t.Errorf("stock tshark no longer flags the push: Wireshark may now decode portal 0 itself\n%s", text)
	}
	text := decodePing(t, tshark, samplePing(), true)
	for _, want := range []string{"LNet ping buffer", "Magic: 0x70696e67", "Multi-Rail: True", "NI 0: 0@lo UP",
		"NI 1: 10.0.0.1@o2ib UP", "NI 2: 10.0.0.3@o2ib DOWN", "[ping buffer: 3 NIs, DOWN: 10.0.0.3@o2ib]", "NID metadata: False"} {
		if !strings.Contains(text, want) {
			t.Errorf("with lnet_ping.lua, tshark output lacks %q", want)
		}
	}
	if strings.Contains(text, "Malformed") || strings.Contains(text, "Expert Info") {
		t.Errorf("with lnet_ping.lua the push is still flagged:\n%s", text)
	}
	p := samplePing()
	p.Features |= PingFeatMetadata
	p.Metadata = []uint64{cnid}
	text = decodePing(t, tshark, p, true)
	for _, want := range []string{"NID metadata: True", "Metadata entries: 1", "Metadata NID: 10.0.0.1@o2ib"} {
		if !strings.Contains(text, want) {
			t.Errorf("with lnet_ping.lua, the metadata buffer's output lacks %q\n%s", want, text)
		}
	}
	if strings.Contains(text, "Malformed") || strings.Contains(text, "Expert Info") {
		t.Errorf("with lnet_ping.lua the metadata push is flagged:\n%s", text)
	}
}

// decodePing writes p as a discovery push to a capture and returns tshark's verbose decoding,
// with lnet_ping.lua when lua.
func decodePing(t *testing.T, tshark string, p *PingInfo, lua bool) string {
	t.Helper()
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
	file, script := filepath.Join(dir, "push.pcap"), filepath.Join(dir, "lnet_ping.lua")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, PingDissector, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "-r", file, "-P", "-V"}
	if lua {
		args = append([]string{"-X", "lua_script:" + script}, args...)
	}
	out, err := exec.Command(tshark, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	return string(out)
}

// TestPingInfoMetadata: with NID metadata (LNET_PING_FEAT_METADATA) the NIs are followed by
// the entry count and, per entry, its NID and 32 bytes of the 0x5a test pattern.
func TestPingInfoMetadata(t *testing.T) {
	p := samplePing()
	p.Features |= PingFeatMetadata
	p.Metadata = []uint64{cnid}
	b := p.AppendTo(nil)
	if len(b) != p.Len() || len(b) != 16+3*16+4+40 {
		t.Fatalf("ping info is %d bytes (Len %d), want 108", len(b), p.Len())
	}
	le := binary.LittleEndian
	md := b[16+3*16:]
	if le.Uint32(b[4:]) != 0x9a || le.Uint32(md) != 1 || le.Uint64(md[4:]) != cnid || !bytes.Equal(md[12:], bytes.Repeat([]byte{0x5a}, 32)) {
		t.Fatalf("bad metadata % x (features %#x)", md, le.Uint32(b[4:]))
	}
}
