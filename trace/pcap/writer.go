package pcap

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/lnetsim/lnetsim/sim"
)

// Link selects the capture container and link layer.
type Link int

const (
	// LinkRoCE writes pcap (nanosecond) records of Ethernet/IPv4/UDP 4791/BTH: the default.
	LinkRoCE Link = iota
	// LinkIB writes ERF type 21 records starting at the IB Local Route Header.
	LinkIB
)

// ParseLink reads a --pcap-link value: "roce" (default) or "ib".
func ParseLink(s string) (Link, error) {
	switch s {
	case "", "roce":
		return LinkRoCE, nil
	case "ib", "erf":
		return LinkIB, nil
	}
	return 0, fmt.Errorf("unknown capture link %q (use roce or ib)", s)
}

// IB BTH opcodes (RC) used by the model.
const (
	OpSendOnly        uint8 = 0x04
	OpWriteOnly       uint8 = 0x0a
	OpReadRequest     uint8 = 0x0c
	OpReadRespOnly    uint8 = 0x10
	OpAcknowledge     uint8 = 0x11
	rocePort                = 4791
	pcapMagicNanos          = 0xa1b23c4d
	linkTypeEthernet        = 1
	erfTypeInfiniband       = 21
	snapLen                 = 65535
)

// Endpoint identifies one end of an IB packet: the NI's IPoIB address, its port LID and
// the queue pair number.
type Endpoint struct {
	IP  [4]byte
	LID uint16
	QPN uint32
}

// Packet is one IB packet to capture.
type Packet struct {
	Time     sim.Time
	Src, Dst Endpoint
	Opcode   uint8
	PSN      uint32
	// RETH is written for RDMA WRITE Only and RDMA READ Request.
	RemoteAddr uint64
	RKey       uint32
	DMALen     uint32
	// Payload holds the packet's payload bytes, all captured: Wireshark's InfiniBand
	// dissector flags any packet whose payload is cut short. Bulk RDMA data is therefore
	// not captured at all: an RDMA WRITE or READ appears as one packet whose RETH DMA length
	// gives the size of the whole transfer.
	Payload []byte
}

// Writer writes packets to a capture file.
type Writer struct {
	w    *bufio.Writer
	link Link
	buf  []byte
	n    int
}

// NewWriter writes the file header for link to w and returns a Writer. Call Flush at the end.
func NewWriter(w io.Writer, link Link) (*Writer, error) {
	pw := &Writer{w: bufio.NewWriter(w), link: link}
	if link == LinkRoCE {
		var h [24]byte
		binary.LittleEndian.PutUint32(h[0:], pcapMagicNanos)
		binary.LittleEndian.PutUint16(h[4:], 2)
		binary.LittleEndian.PutUint16(h[6:], 4)
		binary.LittleEndian.PutUint32(h[16:], snapLen)
		binary.LittleEndian.PutUint32(h[20:], linkTypeEthernet)
		if _, err := pw.w.Write(h[:]); err != nil {
			return nil, err
		}
	}
	return pw, nil
}

// Packets returns how many packets were written.
func (pw *Writer) Packets() int { return pw.n }

// Flush writes buffered data to the underlying writer.
func (pw *Writer) Flush() error { return pw.w.Flush() }

// ErrNegativeTime is returned for packets stamped before time zero.
var ErrNegativeTime = errors.New("pcap: negative packet time")

// Write appends p to the capture.
func (pw *Writer) Write(p *Packet) error {
	if p.Time < 0 {
		return ErrNegativeTime
	}
	// Transport part shared by both links: BTH [+ RETH] + payload + ICRC.
	tr := pw.buf[:0]
	tr = appendBTH(tr, p)
	if p.Opcode == OpWriteOnly || p.Opcode == OpReadRequest {
		tr = binary.BigEndian.AppendUint64(tr, p.RemoteAddr)
		tr = binary.BigEndian.AppendUint32(tr, p.RKey)
		tr = binary.BigEndian.AppendUint32(tr, p.DMALen)
	}
	tr = append(tr, p.Payload...)
	tr = append(tr, 0, 0, 0, 0) // ICRC (not computed; decoders do not check it)
	pw.buf = tr
	var err error
	switch pw.link {
	case LinkRoCE:
		err = pw.writeRoCE(p, tr)
	default:
		err = pw.writeERF(p, tr)
	}
	if err == nil {
		pw.n++
	}
	return err
}

func appendBTH(b []byte, p *Packet) []byte {
	b = append(b, p.Opcode, 0x00) // opcode; SE=0 M=0 pad=0 TVer=0
	b = binary.BigEndian.AppendUint16(b, 0xffff)
	b = binary.BigEndian.AppendUint32(b, p.Dst.QPN&0xffffff) // reserved byte + dest QP
	return binary.BigEndian.AppendUint32(b, p.PSN&0xffffff)  // A=0, reserved + PSN
}

func (pw *Writer) writeRoCE(p *Packet, tr []byte) error {
	const ethLen, ipLen, udpLen = 14, 20, 8
	var h [ethLen + ipLen + udpLen]byte
	// Ethernet: locally administered MACs derived from the IPs.
	h[0], h[1] = 0x02, 0x00
	copy(h[2:6], p.Dst.IP[:])
	h[6], h[7] = 0x02, 0x00
	copy(h[8:12], p.Src.IP[:])
	binary.BigEndian.PutUint16(h[12:], 0x0800)
	ip := h[ethLen:]
	ip[0] = 0x45
	totalIP := ipLen + udpLen + len(tr)
	binary.BigEndian.PutUint16(ip[2:], uint16(min(totalIP, 0xffff)))
	ip[6] = 0x40 // don't fragment
	ip[8] = 64
	ip[9] = 17 // UDP
	copy(ip[12:16], p.Src.IP[:])
	copy(ip[16:20], p.Dst.IP[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip[:ipLen]))
	udp := h[ethLen+ipLen:]
	binary.BigEndian.PutUint16(udp[0:], uint16(49152+p.Src.QPN%16384))
	binary.BigEndian.PutUint16(udp[2:], rocePort)
	binary.BigEndian.PutUint16(udp[4:], uint16(min(udpLen+len(tr), 0xffff)))
	n := len(h) + len(tr)
	if n > snapLen {
		return fmt.Errorf("pcap: packet of %d bytes exceeds the snapshot length %d", n, snapLen)
	}
	var rec [16]byte
	binary.LittleEndian.PutUint32(rec[0:], uint32(p.Time/sim.Second))
	binary.LittleEndian.PutUint32(rec[4:], uint32(p.Time%sim.Second))
	binary.LittleEndian.PutUint32(rec[8:], uint32(n))
	binary.LittleEndian.PutUint32(rec[12:], uint32(n))
	return pw.writeAll(rec[:], h[:], tr)
}

func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

func (pw *Writer) writeERF(p *Packet, tr []byte) error {
	const lrhLen = 8
	var lrh [lrhLen]byte
	lrh[0] = 0x00 // VL 0, LVer 0
	lrh[1] = 0x02 // SL 0, LNH = IBA local (BTH follows)
	binary.BigEndian.PutUint16(lrh[2:], p.Dst.LID)
	words := (lrhLen + len(tr) + 3) / 4 // packet length in 4-byte words, without VCRC
	binary.BigEndian.PutUint16(lrh[4:], uint16(words&0x7ff))
	binary.BigEndian.PutUint16(lrh[6:], p.Src.LID)
	vcrc := []byte{0, 0}
	capLen := lrhLen + len(tr) + len(vcrc)
	var rec [16]byte
	sec := uint64(p.Time / sim.Second)
	frac := (uint64(p.Time%sim.Second) << 32) / uint64(sim.Second)
	binary.LittleEndian.PutUint64(rec[0:], sec<<32|frac)
	rec[8] = erfTypeInfiniband
	rec[9] = 0x04 // flags: varying record length
	binary.BigEndian.PutUint16(rec[10:], uint16(16+capLen))
	binary.BigEndian.PutUint16(rec[14:], uint16(capLen))
	if 16+capLen > 0xffff {
		return fmt.Errorf("pcap: ERF record of %d bytes is too long", 16+capLen)
	}
	return pw.writeAll(rec[:], lrh[:], tr, vcrc)
}

func (pw *Writer) writeAll(parts ...[]byte) error {
	for _, b := range parts {
		if _, err := pw.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
