package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

func TestSmallPut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	for _, l := range c.obs.lines {
		t.Log(l)
	}
	for _, l := range c.log {
		t.Log(l)
	}
	ack := c.src[0].last(lnet.EventACK)
	if ack == nil || ack.Status != 0 || ack.MLength != 1024 {
		t.Fatalf("ACK = %+v", ack)
	}
	if put := c.sink[1].last(lnet.EventPUT); put == nil || put.Status != 0 || put.MLength != 1024 {
		t.Fatalf("PUT = %+v", put)
	}
}

func TestLargePut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	for _, l := range c.obs.lines {
		t.Log(l)
	}
	for _, l := range c.log {
		t.Log(l)
	}
	ack := c.src[0].last(lnet.EventACK)
	if ack == nil || ack.Status != 0 || ack.MLength != 1<<20 {
		t.Fatalf("ACK = %+v", ack)
	}
}
