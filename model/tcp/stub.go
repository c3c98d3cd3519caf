package tcp

import "net/netip"

// tcb is a connection's transmission control block.
type tcb struct{}

// packet is a chunk of data segments or a control segment in flight.
type packet struct{}

// Handle runs the network's events.
func (n *Network) Handle(kind int, arg uint64) {}

func (n *Network) dial(h *Host, src, dst netip.AddrPort, opt Options, done func(*Conn, error)) {}
func (n *Network) crash(h *Host)                                                               { h.crashed = true }
func (n *Network) write(c *Conn, rec Record) bool                                              { return false }
func (n *Network) close(c *Conn, abort bool)                                                   {}
func (n *Network) setReading(c *Conn, on bool)                                                 {}
func (n *Network) info(c *Conn) Info                                                           { return Info{State: c.state} }
