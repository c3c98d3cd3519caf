package tcp

import "fmt"

// registerInvariants adds the network's consistency checks to the kernel (run only under
// the invariants build tag).
func (n *Network) registerInvariants() {
	n.k.AddInvariant(n.checkConns)
}

// checkConns verifies every live connection's sender bookkeeping: flights sorted and
// contiguous from sndUna, the pipe and the SACKed and lost counts equal to what the flights
// say, and sequence numbers in order.
func (n *Network) checkConns() error {
	for _, h := range n.hosts {
		for _, id := range h.conns {
			c := n.conns[id]
			if err := c.check(); err != nil {
				return fmt.Errorf("tcp: conn %d (%s -> %s): %w", c.id, c.local, c.peer, err)
			}
		}
	}
	return nil
}

func (c *Conn) check() error {
	if !(c.sndUna <= c.sndNxt && c.sndNxt <= c.sndMax && c.sndNxt <= c.writeEnd) {
		return fmt.Errorf("sequence out of order: una %d nxt %d max %d written %d", c.sndUna, c.sndNxt, c.sndMax, c.writeEnd)
	}
	var pipe int64
	sacked, lost := 0, 0
	at := c.sndUna
	for i, f := range c.flights {
		if f.seq != at || f.end <= f.seq {
			return fmt.Errorf("flight %d [%d, %d) does not follow %d", i, f.seq, f.end, at)
		}
		at = f.end
		switch {
		case f.sacked && f.lost:
			return fmt.Errorf("flight %d both SACKed and lost", i)
		case f.sacked:
			sacked++
		case f.lost:
			lost++
		default:
			pipe += f.end - f.seq
		}
	}
	if len(c.flights) > 0 && at != c.sndNxt {
		return fmt.Errorf("flights end at %d, sndNxt %d", at, c.sndNxt)
	}
	if pipe != c.pipe || sacked != c.nSacked || lost != c.nLost {
		return fmt.Errorf("pipe %d SACKed %d lost %d, flights say %d, %d, %d", c.pipe, c.nSacked, c.nLost, pipe, sacked, lost)
	}
	if c.rcvNxt < c.consumed {
		return fmt.Errorf("consumed %d beyond rcvNxt %d", c.consumed, c.rcvNxt)
	}
	return nil
}
