package socklnd

// ConnType is a socket's role (SOCKLND_CONN_*, uapi/linux/lnet/socklnd.h).
type ConnType int8

// Connection types with the kernel's values.
const (
	ConnNone     ConnType = -1 // SOCKLND_CONN_NONE: a passive side's "retry" answer in HELLO
	ConnAny      ConnType = 0  // SOCKLND_CONN_ANY: one socket for everything (typed_conns=0)
	ConnControl  ConnType = 1  // SOCKLND_CONN_CONTROL: small messages
	ConnBulkIn   ConnType = 2  // SOCKLND_CONN_BULK_IN: the peer's bulk to me; my ZC-ACKs (SOCKLND_CONN_ACK)
	ConnBulkOut  ConnType = 3  // SOCKLND_CONN_BULK_OUT: my bulk to the peer
	NumConnTypes          = 4  // SOCKLND_CONN_NTYPES
)

var connTypeNames = [...]string{"any", "control", "bulk_in", "bulk_out"}

// String returns "control", "bulk_in"... ("none" for ConnNone).
func (c ConnType) String() string {
	if c >= 0 && int(c) < len(connTypeNames) {
		return connTypeNames[c]
	}
	return "none"
}

// ConnMask models ksocknal_conn_cb_mask: the set of types (bit per type) a peer is connected
// by: ANY alone without typed_conns, else CONTROL, BULK_IN and BULK_OUT.
func ConnMask(typedConns bool) uint8 {
	if !typedConns {
		return 1 << ConnAny
	}
	return 1<<ConnControl | 1<<ConnBulkIn | 1<<ConnBulkOut
}

// InvertType models ksocknal_invert_type: the type the passive side gives the socket the
// active side opened as t (my BULK_OUT is the peer's BULK_IN). ConnNone for a bad type.
func InvertType(t ConnType) ConnType {
	switch t {
	case ConnAny, ConnControl:
		return t
	case ConnBulkIn:
		return ConnBulkOut
	case ConnBulkOut:
		return ConnBulkIn
	}
	return ConnNone
}

// Match is a conn's fitness for a tx (SOCKNAL_MATCH_*).
type Match uint8

// Match values with the kernel's values.
const (
	MatchNo  Match = 0 // the protocol refuses the tx on this conn
	MatchYes Match = 1 // the conn's type fits the tx
	MatchMay Match = 2 // a fallback when no conn of the right type exists
)

// TxNob is the byte count a tx puts on the wire, the size the match rules compare with
// min_bulk: the socklnd message header (24 bytes, none on V1) plus the LNet header (72) plus
// the payload for an LNet message; the socklnd header alone for a NOOP (noop true).
func TxNob(v Version, payload int, noop bool) int {
	if noop {
		return KsockMsgHdrSize
	}
	if v == ProtoV1 {
		return LNetHdrSize + payload
	}
	return KsockMsgHdrSize + LNetHdrSize + payload
}

// MatchTx models pro_match_tx: ksocknal_match_tx for V1/V2 and ksocknal_match_tx_v3 for V3
// (V4 has V3's rules). nob is TxNob; noop says the tx carries no LNet message (a keepalive or
// ZC-ACK NOOP); nonblk marks a tx that must not queue behind bulk (NOOPs sent by the reaper or
// as ZC-ACKs). The rule: messages of min_bulk bytes or more prefer BULK_OUT, smaller ones
// CONTROL, each accepting the other as fallback; V1/V2 also use BULK_IN as a fallback and
// ANY for everything; from V3 the BULK_IN socket carries only NOOPs and ANY is refused.
func MatchTx(v Version, t ConnType, nob int, noop, nonblk bool, minBulk int) Match {
	if v < ProtoV3 {
		switch t {
		case ConnAny:
			return MatchYes
		case ConnBulkIn:
			return MatchMay
		case ConnBulkOut:
			if nob < minBulk {
				return MatchMay
			}
			return MatchYes
		case ConnControl:
			if nob >= minBulk {
				return MatchMay
			}
			return MatchYes
		}
		return MatchNo
	}
	switch t {
	case ConnBulkIn: // SOCKLND_CONN_ACK
		if nonblk {
			return MatchYes
		}
		if noop {
			return MatchMay
		}
		return MatchNo
	case ConnBulkOut:
		if nonblk {
			return MatchNo
		}
		if nob < minBulk {
			return MatchMay
		}
		return MatchYes
	case ConnControl:
		if nonblk {
			return MatchNo
		}
		if nob >= minBulk {
			return MatchMay
		}
		return MatchYes
	}
	return MatchNo // ConnAny and bad types
}

// ConnLoad is what ksocknal_find_conn_locked weighs for one conn: its type, the bytes queued
// on it (ksnc_tx_nob plus what sits in the socket's send buffer) and when a tx was last posted
// on it (ksnc_tx_last_post, whole seconds in the kernel).
type ConnLoad struct {
	Type     ConnType
	Queued   int
	LastPost int64
}

// FindConn models ksocknal_find_conn_locked: among conns (in the peer's list order) the
// least loaded conn whose match is YES, else the least loaded MAY; ties go to the conn with
// the older last post when round_robin is set, else to the first. It returns the index in
// conns, or -1 when every conn refuses the tx.
func FindConn(conns []ConnLoad, v Version, nob int, noop, nonblk bool, minBulk int, roundRobin bool) int {
	typed, fallback := -1, -1
	better := func(cur, c int) bool {
		if cur < 0 || conns[cur].Queued > conns[c].Queued {
			return true
		}
		return conns[cur].Queued == conns[c].Queued && roundRobin && conns[cur].LastPost > conns[c].LastPost
	}
	for i, c := range conns {
		switch MatchTx(v, c.Type, nob, noop, nonblk, minBulk) {
		case MatchYes:
			if better(typed, i) {
				typed = i
			}
		case MatchMay:
			if better(fallback, i) {
				fallback = i
			}
		}
	}
	if typed >= 0 {
		return typed
	}
	return fallback
}

// NextConnType models the choice at the top of ksocknal_connect's loop: given the types
// still wanted (a ConnMask minus those connected) and the bulk-in/bulk-out counts, the type
// the next active connection is opened as: ANY, else CONTROL, else BULK_IN while there are
// no more bulk-in than bulk-out sockets, else BULK_OUT. ConnNone when nothing is wanted.
func NextConnType(wanted uint8, bulkIn, bulkOut int) ConnType {
	switch {
	case wanted == 0:
		return ConnNone
	case wanted&(1<<ConnAny) != 0:
		return ConnAny
	case wanted&(1<<ConnControl) != 0:
		return ConnControl
	case wanted&(1<<ConnBulkIn) != 0 && bulkIn <= bulkOut:
		return ConnBulkIn
	}
	return ConnBulkOut
}
