package socklnd

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Version is a socklnd protocol version (KSOCK_PROTO_V*).
type Version uint32

// Protocol versions. V1 is the bare LNet header with LNET_PROTO_TCP_MAGIC; V2 added the
// socklnd message header (NOOPs, zero-copy ACK cookies); V3 gave ZC-ACKs and keepalive NOOPs
// their own (BULK_IN) socket; V4 carries 16-byte NIDs and is what an IPv6 peer speaks.
const (
	ProtoV1 Version = 1
	ProtoV2 Version = 2
	ProtoV3 Version = 3
	ProtoV4 Version = 4
)

// Wire constants (lnet-idl.h, socklnd-idl.h).
const (
	ProtoTCPMagic   = 0xeebc0ded // LNET_PROTO_TCP_MAGIC: V1 HELLO
	ProtoMagic      = 0x45726963 // LNET_PROTO_MAGIC: V2+ HELLO
	ProtoV1Major    = 1          // LNET_PROTO_TCP_VERSION_MAJOR
	ProtoV1Minor    = 0          // LNET_PROTO_TCP_VERSION_MINOR
	MsgNoop         = 0xc0       // KSOCK_MSG_NOOP
	MsgLNet         = 0xc1       // KSOCK_MSG_LNET
	KsockMsgHdrSize = 24         // struct ksock_msg_hdr: type, csum, two ZC cookies
	LNetHdrSize     = 72         // struct lnet_hdr_nid4
	HelloSize       = 56         // struct ksock_hello_msg_nid4 without the IP list
	HelloV1Size     = LNetHdrSize
	// InterfacesNum is LNET_INTERFACES_NUM, the most IPs a HELLO may list.
	InterfacesNum = 16
	// KeepalivePing is SOCKNAL_KEEPALIVE_PING: the ZC-ACK cookie of a keepalive NOOP.
	KeepalivePing = 1
	lnetMsgHello  = 4 // LNET_MSG_HELLO
)

// Hello is struct ksock_hello_msg (NIDs of 8 bytes: V1 to V3).
type Hello struct {
	Version        Version
	SrcNID, DstNID lnet.NID
	SrcPID, DstPID uint32
	SrcIncarnation uint64
	DstIncarnation uint64
	CType          ConnType
	IPs            []uint32 // kshm_ips: sent empty by every current kernel, still decoded
}

// Encode returns h as its version puts it on the wire (little-endian host order):
// ksocknal_send_hello_v1 for V1 (an LNet header of type HELLO whose dest_nid field holds the
// TCP magic and version 1.0, the incarnation and type in the union, the IP list as payload),
// ksocknal_send_hello_v2 for V2 and V3 (LNET_PROTO_MAGIC, the version, then the fields).
func (h *Hello) Encode() ([]byte, error) {
	if len(h.IPs) > InterfacesNum {
		return nil, fmt.Errorf("socklnd: HELLO lists %d IPs (at most %d)", len(h.IPs), InterfacesNum)
	}
	le := binary.LittleEndian
	var b []byte
	switch h.Version {
	case ProtoV1:
		b = make([]byte, HelloV1Size, HelloV1Size+4*len(h.IPs))
		le.PutUint32(b[0:], ProtoTCPMagic)
		le.PutUint16(b[4:], ProtoV1Major)
		le.PutUint16(b[6:], ProtoV1Minor)
		le.PutUint64(b[8:], uint64(h.SrcNID))
		le.PutUint32(b[20:], h.SrcPID)
		le.PutUint32(b[24:], lnetMsgHello)
		le.PutUint32(b[28:], uint32(4*len(h.IPs)))
		le.PutUint64(b[32:], h.SrcIncarnation)
		le.PutUint32(b[40:], uint32(int32(h.CType)))
	case ProtoV2, ProtoV3:
		b = make([]byte, HelloSize, HelloSize+4*len(h.IPs))
		le.PutUint32(b[0:], ProtoMagic)
		le.PutUint32(b[4:], uint32(h.Version))
		le.PutUint64(b[8:], uint64(h.SrcNID))
		le.PutUint64(b[16:], uint64(h.DstNID))
		le.PutUint32(b[24:], h.SrcPID)
		le.PutUint32(b[28:], h.DstPID)
		le.PutUint64(b[32:], h.SrcIncarnation)
		le.PutUint64(b[40:], h.DstIncarnation)
		le.PutUint32(b[48:], uint32(int32(h.CType)))
		le.PutUint32(b[52:], uint32(len(h.IPs)))
	default:
		return nil, fmt.Errorf("socklnd: cannot encode a version %d HELLO (V1 to V3 are modelled)", h.Version)
	}
	for _, ip := range h.IPs {
		b = le.AppendUint32(b, ip)
	}
	return b, nil
}

// Errors of DecodeHello; each stands for the kernel's -EPROTO with its reason.
var (
	ErrBadMagic      = errors.New("socklnd: HELLO has an unknown magic")
	ErrUnknownProto  = errors.New("socklnd: HELLO has an unknown protocol version")
	ErrShortHello    = errors.New("socklnd: HELLO is truncated")
	ErrNotHello      = errors.New("socklnd: V1 header is not a HELLO")
	ErrBadNIPs       = errors.New("socklnd: HELLO lists too many IPs")
	ErrZeroIP        = errors.New("socklnd: HELLO lists a zero IP")
	ErrHelloAnyNID   = errors.New("socklnd: HELLO carries LNET_NID_ANY")
	ErrHelloMismatch = errors.New("socklnd: peer is not the NID connected to")
	ErrHelloType     = errors.New("socklnd: HELLO connection type does not match")
)

// ParseVersion models ksocknal_parse_proto_version on a HELLO's first 8 bytes: LNET_PROTO_MAGIC
// (in either byte order; flip reports the peer's order differs) with version 2, 3 or 4, or the
// V1 TCP magic with version 1.0. It returns 0 for anything else.
func ParseVersion(first8 []byte) (v Version, flip bool) {
	if len(first8) < 8 {
		return 0, false
	}
	le, be := binary.LittleEndian, binary.BigEndian
	switch le.Uint32(first8) {
	case ProtoMagic:
		v = Version(le.Uint32(first8[4:]))
	case swab32(ProtoMagic):
		v, flip = Version(be.Uint32(first8[4:])), true
	case ProtoTCPMagic:
		if le.Uint16(first8[4:]) == ProtoV1Major && le.Uint16(first8[6:]) == ProtoV1Minor {
			return ProtoV1, false
		}
		return 0, false
	default:
		return 0, false
	}
	if v < ProtoV2 || v > ProtoV4 {
		return 0, flip
	}
	return v, flip
}

func swab32(x uint32) uint32 { return x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24 }

// DecodeHello reads a HELLO as ksocknal_recv_hello and pro_recv_hello do: magic, version,
// then the rest in the version's layout (byte-swapped when the peer's order differs), the
// IP list checked (at most 16, none zero). It returns the bytes consumed. A V4 HELLO is
// recognised but not decoded (ErrUnknownProto: the model has no 16-byte NIDs).
func DecodeHello(b []byte) (Hello, int, error) {
	var h Hello
	if len(b) < 4 {
		return h, 0, ErrShortHello
	}
	le := binary.LittleEndian
	if m := le.Uint32(b); m != ProtoMagic && m != swab32(ProtoMagic) && m != ProtoTCPMagic {
		return h, 0, ErrBadMagic
	}
	v, flip := ParseVersion(b)
	if len(b) < 8 {
		return h, 0, ErrShortHello
	}
	if v == 0 || v == ProtoV4 {
		return h, 0, ErrUnknownProto
	}
	h.Version = v
	var o binary.ByteOrder = le
	if flip {
		o = binary.BigEndian
	}
	var nips, n int
	if v == ProtoV1 {
		if len(b) < HelloV1Size {
			return h, 0, ErrShortHello
		}
		if le.Uint32(b[24:]) != lnetMsgHello {
			return h, 0, ErrNotHello
		}
		h.SrcNID = lnet.NID(le.Uint64(b[8:]))
		h.SrcPID = le.Uint32(b[20:])
		h.SrcIncarnation = le.Uint64(b[32:])
		h.CType = ConnType(int32(le.Uint32(b[40:])))
		nips, n = int(le.Uint32(b[28:])/4), HelloV1Size
	} else {
		if len(b) < HelloSize {
			return h, 0, ErrShortHello
		}
		h.SrcNID = lnet.NID(o.Uint64(b[8:]))
		h.DstNID = lnet.NID(o.Uint64(b[16:]))
		h.SrcPID = o.Uint32(b[24:])
		h.DstPID = o.Uint32(b[28:])
		h.SrcIncarnation = o.Uint64(b[32:])
		h.DstIncarnation = o.Uint64(b[40:])
		h.CType = ConnType(int32(o.Uint32(b[48:])))
		nips, n = int(o.Uint32(b[52:])), HelloSize
	}
	if nips > InterfacesNum {
		return h, 0, ErrBadNIPs
	}
	if len(b) < n+4*nips {
		return h, 0, ErrShortHello
	}
	for i := range nips {
		ip := o.Uint32(b[n+4*i:])
		if v == ProtoV1 {
			ip = le.Uint32(b[n+4*i:])
		}
		if ip == 0 {
			return h, 0, ErrZeroIP
		}
		h.IPs = append(h.IPs, ip)
	}
	return h, n + 4*nips, nil
}

// HelloResult is what ksocknal_recv_hello concludes from a peer's HELLO.
type HelloResult uint8

// Outcomes of CheckHello.
const (
	HelloOK          HelloResult = iota // the connection proceeds
	HelloLostRace                       // EALREADY: the peer answered CONN_NONE; retry after min_reconnectms
	HelloRenegotiate                    // EPROTO (positive): the peer wants another version; retry with it
	HelloFatal                          // a negative errno: the connection attempt fails
)

// CheckHello models the decisions of ksocknal_recv_hello once the HELLO is read. For the
// active side (myType != ConnNone) the peer must be the NID and PID connected to; a CONN_NONE
// answer means a lost race when the version is the one offered (protoMatch), else a request to
// renegotiate; any other type must be the inverse of mine. For the passive side the socket's
// type is the inverse of the peer's (an unknown type is fatal). It returns the passive side's
// type (myType for the active side) and the errno-carrying error for HelloFatal.
func CheckHello(h *Hello, myType ConnType, wantNID lnet.NID, wantPID uint32, protoMatch bool) (ConnType, HelloResult, error) {
	if h.SrcNID.IsAny() {
		return ConnNone, HelloFatal, ErrHelloAnyNID
	}
	if myType == ConnNone { // passive
		t := InvertType(h.CType)
		if t == ConnNone {
			return ConnNone, HelloFatal, ErrHelloType
		}
		return t, HelloOK, nil
	}
	if h.SrcNID != wantNID || h.SrcPID != wantPID {
		return myType, HelloFatal, ErrHelloMismatch
	}
	if h.CType == ConnNone {
		if protoMatch {
			return myType, HelloLostRace, nil
		}
		return myType, HelloRenegotiate, nil
	}
	if InvertType(h.CType) != myType {
		return myType, HelloFatal, ErrHelloType
	}
	return myType, HelloOK, nil
}

// LosesRace models the connection race rule of ksocknal_create_conn's passive side: an
// incoming connection from a peer whose NID is lower than mine is refused (answered with
// CONN_NONE, the peer retries later) while I am myself connecting to that peer, so of two
// peers connecting to each other at once the one with the higher NID completes its
// connection. The kernel compares struct lnet_nid with memcmp; for 4-byte NIDs of one type
// that is the order of the net number, then the address, which is lnet.NID's numeric order.
func LosesRace(peer, me lnet.NID, connecting bool) bool {
	return connecting && peer < me
}
