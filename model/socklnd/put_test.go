package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// The golden traces: every socklnd step (HELLOs, conns up, txs written) and LNet event from
// the first send (which connects the three typed sockets and runs LNet discovery) to the end.

func TestGoldenSmallPut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.MLength != 1024 {
		t.Fatalf("ACK = %+v\n%s", ack, c.log)
	}
	if put := c.sink[1].last(lnet.EventPUT); put == nil || put.Status != 0 || put.MLength != 1024 {
		t.Fatalf("PUT = %+v", put)
	}
	golden(t, "small_put", c.log)
}

func TestGoldenLargePut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.MLength != 1<<20 {
		t.Fatalf("ACK = %+v", ack)
	}
	golden(t, "large_put", c.log)
}

func TestGoldenSmallGet(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.get(t, 1, 2, 2048)
	c.run(t, sim.Second)
	if r := c.src[0].last(lnet.EventREPLY); r == nil || r.Status != 0 || r.MLength != 2048 {
		t.Fatalf("REPLY = %+v", r)
	}
	golden(t, "small_get", c.log)
}

func TestGoldenLargeGet(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.get(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if r := c.src[0].last(lnet.EventREPLY); r == nil || r.Status != 0 || r.MLength != 1<<20 {
		t.Fatalf("REPLY = %+v", r)
	}
	golden(t, "large_get", c.log)
}
