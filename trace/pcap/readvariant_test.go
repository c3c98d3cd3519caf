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

// readVariantSample is a pulled 1 MiB PUT as the model captures it: PUT_RDREQ (client to
// server), the server's RDMA READ request, PUT_RDDONE (server to client).
func readVariantSample() []KibMsg {
	put := LNetHdr{DestNID: snid, SrcNID: cnid, DestPID: 12345, SrcPID: 12345, Type: LNetPut,
		PayloadLength: 1 << 20, MatchBits: 0x42, Portal: 51, MD: WireHandle{1, 2}}
	desc := RDMADesc{Key: 0x1234, Frags: []RDMAFrag{{Nob: 1 << 20}}}
	return []KibMsg{
		{Type: o2ib.MsgPUT_RDREQ, SrcNID: cnid, DstNID: snid, Hdr: put, Cookie: 7, RDMA: desc},
		{Type: o2ib.MsgPUT_RDDONE, SrcNID: snid, DstNID: cnid, Cookie: 7, Status: 1 << 20, Credits: 1},
	}
}

// TestReadVariantEncoding: the variant's messages carry VariantMagic and the sizes
// model/o2ib gives them (148 and 60 bytes).
func TestReadVariantEncoding(t *testing.T) {
	for i, want := range []int{148, 60} {
		m := readVariantSample()[i]
		b := m.AppendTo(nil)
		if len(b) != want || binary.LittleEndian.Uint32(b) != o2ib.VariantMagic || b[6] != uint8(m.Type) ||
			binary.LittleEndian.Uint32(b[8:]) != uint32(want) {
			t.Errorf("%s: %d bytes, magic %#x, type %#x, nob %d; want %d bytes, magic %#x", m.Type, len(b),
				binary.LittleEndian.Uint32(b), b[6], binary.LittleEndian.Uint32(b[8:]), want, o2ib.VariantMagic)
		}
	}
}

// TestReadVariantUnknownToTshark: tshark's stock dissectors leave the variant's messages
// as undissected data of an RC SEND (not LNet: no o2iblnd type or LNet header read into
// them), decode the RDMA READ request with its rkey and length, and flag nothing
// malformed. Skipped without tshark unless LNETSIM_REQUIRE_TSHARK=1 (CI installs it).
func TestReadVariantUnknownToTshark(t *testing.T) {
	tshark := needTshark(t)
	for _, tc := range []struct {
		link Link
		file string
	}{{LinkRoCE, "roce.pcap"}, {LinkIB, "ib.erf"}} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, tc.link)
		if err != nil {
			t.Fatal(err)
		}
		msgs := readVariantSample()
		at := sim.Time(1500 * sim.Millisecond)
		write := func(p *Packet) {
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		write(&Packet{Time: at, Src: client, Dst: server, Opcode: OpSendOnly, PSN: 1, Payload: msgs[0].AppendTo(nil)})
		write(&Packet{Time: at + 300, Src: server, Dst: client, Opcode: OpReadRequest, PSN: 2, RKey: 0x1234, DMALen: 1 << 20})
		write(&Packet{Time: at + 85000, Src: server, Dst: client, Opcode: OpSendOnly, PSN: 3, Payload: msgs[1].AppendTo(nil)})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), tc.file)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tshark, "-n", "-r", path, "-P", "-V").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: tshark: %v\n%s", tc.file, err, out)
		}
		text := string(out)
		for _, want := range []string{"Data (148 bytes)", "Data (60 bytes)", "RDMA Read Request", "Remote Key: 0x00001234", "DMA Length: 1048576"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: tshark output lacks %q", tc.file, want)
			}
		}
		for _, bad := range []string{"Malformed", "Lustre Network", "LNET", "Invalid Packet Length"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s: tshark output has %q:\n%s", tc.file, bad, text)
			}
		}
	}
}
