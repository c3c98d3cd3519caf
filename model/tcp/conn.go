package tcp

import (
	"errors"
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
)

// Errors reported by Dial and Handler.Closed, named after the errno Linux returns.
var (
	ErrConnRefused  = errors.New("connection refused (ECONNREFUSED)")
	ErrConnReset    = errors.New("connection reset by peer (ECONNRESET)")
	ErrTimedOut     = errors.New("connection timed out (ETIMEDOUT)")
	ErrBrokenPipe   = errors.New("broken pipe (EPIPE)")
	ErrAddrInUse    = errors.New("address already in use (EADDRINUSE)")
	ErrAddrNotAvail = errors.New("cannot assign requested address (EADDRNOTAVAIL)")
)

// Record is what the application writes: Bytes bytes of stream (at least 1) carrying an
// opaque Payload, handed to the receiver once all of its bytes have arrived in order.
type Record struct {
	Bytes   int
	Payload any
}

// Handler receives a connection's upcalls.
type Handler interface {
	// Data is called for each record, in the order written, once all its bytes have
	// arrived (and reading is not paused).
	Data(c *Conn, rec Record)
	// Writable is called after a Write returned false, once the send buffer has room again
	// (free space at least half of what is queued, as sk_stream_write_space's test).
	Writable(c *Conn)
	// Closed is called once when the connection ends other than by the application's own
	// Close or Abort: io.EOF when the peer closed its side (FIN; the connection can still
	// send until Close), ErrConnReset on an RST, ErrTimedOut when retransmissions
	// (tcp_retries2) or keepalive probes went unanswered.
	Closed(c *Conn, err error)
}

// Options are per-socket settings (setsockopt). Zero fields take the network's defaults.
type Options struct {
	SendBuffer int // SO_SNDBUF in bytes (default Config.SendBuffer)
	RecvBuffer int // SO_RCVBUF in bytes (default Config.RecvBuffer)
	// Keepalive: SO_KEEPALIVE with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT. Probes start
	// after KeepIdle without anything received, are sent every KeepIntvl, and the connection
	// fails with ErrTimedOut when KeepCnt probes have gone unanswered (idle + intvl x cnt
	// after the last segment received). Off unless all three are positive.
	KeepIdle, KeepIntvl sim.Time
	KeepCnt             int
	// Reuse is how a Dial from an explicit local port shares that port (SO_REUSEADDR,
	// SO_REUSEPORT; see Reuse).
	Reuse Reuse
}

// Reuse is a socket's sharing of its local port, as Linux's bind and connect decide it
// (inet_csk_bind_conflict, __inet_check_established) for a connecting socket bound to an
// explicit port.
type Reuse uint8

const (
	// ReuseNone: the port must be free on its address, of connections and listeners alike
	// (EADDRINUSE).
	ReuseNone Reuse = iota
	// ReuseAddr (SO_REUSEADDR): the bind conflicts only with a listener on the port
	// (EADDRINUSE); the connect fails if a connection with the same local and remote
	// address and port exists (EADDRNOTAVAIL).
	ReuseAddr
	// ReusePort (SO_REUSEPORT, every socket of one owner): no bind conflict, listeners
	// included (theirs are taken to be SO_REUSEPORT too); the connect fails as ReuseAddr's.
	ReusePort
)

// State is a connection's TCP state (the subset the model uses).
type State uint8

// Connection states.
const (
	StateSynSent State = iota
	StateSynRcvd
	StateEstablished
	StateClosed
)

var stateNames = [...]string{"SYN_SENT", "SYN_RECV", "ESTABLISHED", "CLOSED"}

// String returns the name ss and netstat print.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// Info is a snapshot of a connection (as TCP_INFO reports it).
type Info struct {
	State        State
	RTT, RTTVar  sim.Time // smoothed RTT and its variation (0 before a sample)
	RTO          sim.Time // current retransmission timeout, backoff included
	Cwnd         int      // congestion window in bytes
	Ssthresh     int      // slow-start threshold in bytes
	MSS          int
	Unacked      int    // bytes sent and not acknowledged
	Queued       int    // bytes written and not acknowledged (sent or not)
	BytesAcked   uint64 // stream bytes the peer has acknowledged
	BytesRecv    uint64 // stream bytes received in order
	Retransmits  uint64 // chunks retransmitted on this connection
	RTOs         uint64
	FastRetrans  uint64
	PeerWindow   int // the peer's last advertised receive window
	ReadingPause bool
}

// Progress is how far a connection's byte stream has moved, at chunk granularity: for a
// caller that judges a transfer by bytes moving rather than by whole records (socklnd's
// sock_timeout pushes its receive deadline on every read). Reading it costs nothing and
// changes nothing.
type Progress struct {
	Read    uint64   // stream bytes the application has read: received in order, reading not paused
	ReadAt  sim.Time // when Read last grew (0: never)
	Acked   uint64   // stream bytes the peer has acknowledged
	AckedAt sim.Time // when Acked last grew (0: never)
	Queued  int      // bytes written and not acknowledged (sk_wmem_queued)
	// AckedFullAt is when bytes were last acknowledged while more than the send buffer was
	// queued (0: never). Write takes a record whole, so the bytes beyond SO_SNDBUF are those
	// a real sendmsg, copying what fits, would still hold: each such ACK frees space it
	// would fill, a wake-up of a writer blocked on a full buffer.
	AckedFullAt sim.Time
}

// Conn is one end of a TCP connection.
type Conn struct {
	n     *Network
	id    int32
	host  *Host
	boots uint32 // host incarnation the connection belongs to
	h     Handler
	opt   Options
	local netip.AddrPort
	peer  netip.AddrPort
	state State
	err   error
	tcb
}

// SetHandler sets the handler of c's upcalls. Set it in the accept or dial callback.
func (c *Conn) SetHandler(h Handler) { c.h = h }

// LocalAddr returns the connection's local address and port.
func (c *Conn) LocalAddr() netip.AddrPort { return c.local }

// RemoteAddr returns the peer's address and port.
func (c *Conn) RemoteAddr() netip.AddrPort { return c.peer }

// Host returns the host c belongs to.
func (c *Conn) Host() *Host { return c.host }

// Err returns why the connection ended (nil while it is open or after the application's
// own Close).
func (c *Conn) Err() error { return c.err }

// Write queues rec for sending and reports whether it was taken. A record is taken whole
// while the send buffer has any room (so the buffer may overshoot by less than one
// record, as a partly copied sendmsg leaves the rest to its caller); when it has none,
// Write returns false and the Handler's Writable follows once there is room. Write on a
// closed or closing connection returns false and never calls Writable.
func (c *Conn) Write(rec Record) bool { return c.n.write(c, rec) }

// Close sends FIN after the data already written: the peer reads what was sent, then
// io.EOF. No upcall is made to c's Handler afterwards.
func (c *Conn) Close() { c.n.close(c, false) }

// Abort sends RST and drops what is queued (close with SO_LINGER 0): the peer sees
// ErrConnReset. No upcall is made to c's Handler afterwards.
func (c *Conn) Abort() { c.n.close(c, true) }

// SetReading pauses (false) or resumes (true) reading from the socket. While paused,
// arrived records stay in the receive buffer and shrink the window the peer may fill; on
// resume they are delivered and a window update is sent.
func (c *Conn) SetReading(on bool) { c.n.setReading(c, on) }

// Progress returns how far c's stream has moved (see Progress).
func (c *Conn) Progress() Progress {
	read := c.rcvNxt
	if c.paused {
		read = c.consumed
	}
	return Progress{Read: uint64(read), ReadAt: c.readAt, Acked: c.bytesAcked, AckedAt: c.ackedAt,
		Queued: int(c.writeEnd - c.sndUna), AckedFullAt: c.ackedFullAt}
}

// Info returns a snapshot of the connection's state.
func (c *Conn) Info() Info { return c.n.info(c) }
