package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/model/socklnd"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// capture writes the o2iblnd traffic of a run as a packet capture (o2ib backend only): every
// o2iblnd message as an RC SEND carrying its kib_msg, every bulk RDMA WRITE as one packet whose
// RETH gives its size. CONNREQ and CONNACK, which travel in CM REQ/REP private data on the wire,
// are shown as SENDs to QP cmQPN so that Wireshark's o2iblnd dissector decodes them too.
// Inline payloads are written as LNet carries them where the model has their content (LNet's
// own ping and push buffers, as struct lnet_ping_info) and as zeros otherwise. The
// model numbers QPs from 1, but QPs 0 and 1 are the SMI and GSI on real fabrics (Wireshark
// parses their traffic as management datagrams), so captured QP numbers are offset by qpnBase.
type capture struct {
	file *atomicFile
	pcap *pcap.Writer
	err  error
	buf  []byte
	pad  []byte
	sock *pcap.SockStreams
}

func newCapture(path string, link pcap.Link) (*capture, error) {
	f, err := createAtomic(path, "capture")
	if err != nil {
		return nil, err
	}
	w, err := pcap.NewWriter(f, link) // the writer buffers
	if err != nil {
		_ = f.finish(false, nil)
		return nil, err
	}
	return &capture{file: f, pcap: w}, nil
}

// nid8 converts a NID to the 8-byte wire form (its LND type from its net: tcp or o2ib).
func nid8(n lnet.NID) uint64 {
	a := n.Addr()
	lnd := uint16(pcap.LNDTypeO2IB)
	if n.Net().Type() == lnet.SOCKLND {
		lnd = pcap.LNDTypeSock
	}
	return pcap.NID8([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}, n.Net().Num(), lnd)
}

// QP numbers as captured.
const (
	qpnBase = 0x100
	cmQPN   = 0xff
)

func endpoint(n lnet.NID, lid uint16, qpn uint32) pcap.Endpoint {
	a := n.Addr()
	return pcap.Endpoint{IP: [4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}, LID: lid, QPN: qpn}
}

func wireHdr(h *lnet.Header) pcap.LNetHdr {
	return pcap.LNetHdr{
		DestNID: nid8(h.Dst), SrcNID: nid8(h.Src), DestPID: h.DstPID, SrcPID: h.SrcPID,
		Type: uint32(h.Type), PayloadLength: uint32(h.PayloadLength),
		MD:        pcap.WireHandle{Interface: uint64(h.WMD.Idx), Object: uint64(h.WMD.Gen)},
		MatchBits: h.MatchBits, HdrData: h.HdrData, Portal: h.Portal, Offset: uint32(h.Offset),
		SinkLength: uint32(h.SinkLen), MLength: uint32(h.MLength),
	}
}

// MsgPosted writes one o2iblnd message.
func (c *capture) MsgPosted(ev *o2ib.MsgEvent) {
	if c.err != nil {
		return
	}
	m := pcap.KibMsg{Type: ev.Type, Credits: uint8(ev.Credits), SrcNID: nid8(ev.Src), DstNID: nid8(ev.Dst),
		SrcStamp: ev.SrcStamp, DstStamp: ev.DstStamp, Cookie: ev.Cookie, DstCookie: ev.DstCookie, Status: int32(ev.Status),
		ConnParams: pcap.ConnParams{QueueDepth: uint16(ev.QueueDepth), MaxFrags: uint16(ev.MaxFrags), MaxMsgSize: uint32(ev.MaxMsgSize)}}
	if ev.Hdr != nil {
		m.Hdr = wireHdr(ev.Hdr)
	}
	if ev.Type == o2ib.MsgIMMEDIATE && ev.PayloadLen > 0 {
		m.Payload = c.payload(ev)
	}
	if ev.RDMANob > 0 {
		m.RDMA = pcap.RDMADesc{Key: ev.RDMAKey, Frags: []pcap.RDMAFrag{{Nob: uint32(ev.RDMANob)}}}
	}
	srcQPN, dstQPN := ev.SrcQPN+qpnBase, ev.DstQPN+qpnBase
	if ev.Type == o2ib.MsgCONNREQ || ev.Type == o2ib.MsgCONNACK {
		srcQPN, dstQPN = cmQPN, cmQPN
	}
	c.buf = m.AppendTo(c.buf[:0])
	c.err = c.pcap.Write(&pcap.Packet{Time: ev.Time, Src: endpoint(ev.Src, ev.SrcLID, srcQPN), Dst: endpoint(ev.Dst, ev.DstLID, dstQPN),
		Opcode: pcap.OpSendOnly, PSN: uint32(ev.Seq), Payload: c.buf})
}

// payload returns the inline payload of an IMMEDIATE message: a ping reply's or discovery
// push's lnet_ping_info, cut or zero-padded to the payload length; zeros for others, whose
// content the model does not carry.
func (c *capture) payload(ev *o2ib.MsgEvent) []byte {
	n := ev.PayloadLen
	c.pad = c.pad[:0]
	if pb, ok := ev.Hdr.Data.(*lnet.PingBuffer); ok && pb != nil {
		c.pad = pingInfo(pb).AppendTo(c.pad)
	}
	for len(c.pad) < n {
		c.pad = append(c.pad, 0)
	}
	return c.pad[:n]
}

// pingInfo is the wire form of a ping buffer, with the feature bits lnet_ping_target_update
// sets.
func pingInfo(pb *lnet.PingBuffer) *pcap.PingInfo {
	p := &pcap.PingInfo{Features: pcap.PingFeatNIStatus, PID: lnet.LNET_PID_LUSTRE, NIs: make([]pcap.PingNI, len(pb.NIs))}
	if pb.MultiRail {
		p.Features |= pcap.PingFeatMultiRail
	}
	if pb.Discovery {
		p.Features |= pcap.PingFeatDiscovery
	}
	if pb.RoutingDisabled {
		p.Features |= pcap.PingFeatRteDisabled
	}
	for i, ni := range pb.NIs {
		p.NIs[i] = pcap.PingNI{NID: uint64(ni.NID), Status: uint32(ni.Status)}
	}
	if len(pb.Metadata) > 0 {
		p.Features |= pcap.PingFeatMetadata
		for _, nid := range pb.Metadata {
			p.Metadata = append(p.Metadata, uint64(nid))
		}
	}
	return p
}

// RDMAPosted writes one RDMA WRITE, or the read variant's RDMA READ request (from the
// reader to the source; the response's data is not captured, as a WRITE's is not).
func (c *capture) RDMAPosted(ev *o2ib.RDMAEvent) {
	if c.err != nil {
		return
	}
	op := pcap.OpWriteOnly
	if ev.Read {
		op = pcap.OpReadRequest
	}
	c.err = c.pcap.Write(&pcap.Packet{Time: ev.Time, Src: endpoint(ev.Src, ev.SrcLID, ev.SrcQPN+qpnBase), Dst: endpoint(ev.Dst, ev.DstLID, ev.DstQPN+qpnBase),
		Opcode: op, PSN: uint32(ev.Seq), RKey: ev.RKey, DMALen: uint32(ev.Bytes)})
}

// sockRecord writes one socklnd record on its socket's TCP stream (pcap.SockStreams: the
// handshake before the first record, segments of at most the MSS): the acceptor request and
// HELLO whole, a message's socklnd and LNet headers with its payload counted (a PUT's) or
// captured as zeros (a REPLY's; LNet's ping and push buffers as they are). The payload
// record itself was written with its header. A socket's end is its FIN (and the peer's ACK
// of it) or an RST, when socklnd closed it or saw it reset.
func (c *capture) sockRecord(ev *socklnd.WireEvent) {
	if c.err != nil {
		return
	}
	if c.sock == nil {
		if c.sock, c.err = pcap.NewSockStreams(c.pcap); c.err != nil {
			return
		}
	}
	switch r := ev.Rec.(type) {
	case *socklnd.ConnReq:
		c.err = c.sock.Write(ev.Time, ev.Src, ev.Dst, pcap.AppendConnReq(nil, nid8(r.Target)), socklnd.ConnReqSize)
	case *socklnd.Hello:
		h := *r
		h.SrcNID, h.DstNID = lnet.NID(nid8(h.SrcNID)), lnet.NID(nid8(h.DstNID))
		enc, err := h.Encode()
		if err != nil {
			c.err = err
			return
		}
		c.err = c.sock.Write(ev.Time, ev.Src, ev.Dst, enc, len(enc))
	case *socklnd.Msg:
		m := pcap.KsockMsg{Noop: r.Type == socklnd.MsgNoop, Cookies: r.Cookies}
		if m.Noop {
			c.err = c.sock.Msg(ev.Time, ev.Src, ev.Dst, &m, 0)
			return
		}
		m.Hdr = wireHdr(&r.Hdr)
		var data []byte
		if pb, ok := r.Hdr.Data.(*lnet.PingBuffer); ok && pb != nil {
			data = pingInfo(pb).AppendTo(nil) // LNet's own ping or push buffer
			data = data[:min(len(data), r.Hdr.PayloadLength)]
		}
		c.err = c.sock.MsgData(ev.Time, ev.Src, ev.Dst, &m, data, r.Hdr.PayloadLength)
	case *socklnd.Fin:
		c.err = c.sock.Close(ev.Time, ev.Src, ev.Dst)
	case *socklnd.Rst:
		c.err = c.sock.Abort(ev.Time, ev.Src, ev.Dst)
	}
}

// ConnChange is not captured (connection steps appear as their CONNREQ/CONNACK messages).
func (c *capture) ConnChange(*o2ib.ConnEvent) {}

// close flushes and renames the capture into place, or removes it on error.
func (c *capture) close(ok bool) error {
	err := c.err
	if err == nil {
		err = c.pcap.Flush()
	}
	return c.file.finish(ok, err)
}
