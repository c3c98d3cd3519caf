package o2ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/ib"
)

// dev is struct kib_dev with its kib_hca_dev: one IPoIB interface (an HCA port) that NIs are
// bound to by address, with the listening CM id, the memory region RDMA targets and the
// device event handler.
type dev struct {
	l      *LND
	port   *ib.Port
	ip     netip.Addr
	node   *ib.Node
	listen *ib.CMID
	mr     *ib.MR
	nets   []*kibNet
	failed bool // DEVICE_FATAL seen: resources must be rebuilt when the HCA is back
	svc    int
}

// devFor returns the device of port, creating it (kiblnd_create_dev and kiblnd_dev_failover's
// set-up: listener on the service port, a region covering memory, the event handler).
func (l *LND) devFor(port *ib.Port, ip netip.Addr, service int) (*dev, error) {
	if d := l.devOf[port]; d != nil {
		return d, nil
	}
	h := port.HCA()
	d := &dev{l: l, port: port, ip: ip, node: h.Node(), svc: service}
	if err := d.setup(); err != nil {
		return nil, err
	}
	h.RegisterEventHandler(d)
	l.devs = append(l.devs, d)
	l.devOf[port] = d
	return d, nil
}

// setup registers the region RDMA targets and listens on the service port (the kib_hca_dev
// part of kiblnd_dev_failover: PD, MR and the listening CM id).
func (d *dev) setup() error {
	h := d.port.HCA()
	mr, err := h.RegMR(1<<40, ib.AccessLocalWrite|ib.AccessRemoteWrite|ib.AccessRemoteRead)
	if err != nil {
		return fmt.Errorf("o2ib: %s: %w", d.port, err)
	}
	d.mr = mr
	if d.listen != nil {
		d.listen.Destroy()
	}
	id := d.node.CreateID(d.l)
	id.Context = d
	if err := id.BindAddr(netip.AddrPortFrom(d.ip, uint16(d.svc))); err != nil {
		return fmt.Errorf("o2ib: bind %s: %w", d.ip, err)
	}
	if err := id.Listen(0); err != nil {
		return fmt.Errorf("o2ib: listen %s: %w", d.ip, err)
	}
	d.listen = id
	return nil
}

// AsyncEvent models kiblnd_event_handler's health part: PORT_ERR on the device's port and
// DEVICE_FATAL put every NI on the device in fatal state (ni_fatal_error_on; what LNet does
// with it, per release, is Node.SetNIFatal's); PORT_ACTIVE clears it, after rebuilding the device's resources if the HCA had
// failed (the model's stand-in for kiblnd_dev_failover). Connections are not touched: they
// find out through their own completions and timeouts, as in the kernel.
func (d *dev) AsyncEvent(ev ib.AsyncEvent) {
	if ev.HCA != d.port.HCA() {
		return
	}
	switch ev.Type {
	case ib.EventPortErr:
		if ev.Port == d.port.Num {
			d.setFatal(true)
		}
	case ib.EventDeviceFatal:
		d.failed = true
		d.setFatal(true)
	case ib.EventPortActive:
		if ev.Port != d.port.Num || d.port.HCA().Fatal() {
			return
		}
		if d.failed {
			if d.setup() != nil {
				return
			}
			d.failed = false
		}
		d.setFatal(false)
	}
}

// setFatal is kiblnd_set_ni_fatal_on: every NI on the device gets the fatal state
// (lnet_set_link_fatal_state), and LNet is asked for a new ping target where it changed
// (lnet_mark_ping_buffer_for_update): both in Node.SetNIFatal.
func (d *dev) setFatal(on bool) {
	for _, n := range d.nets {
		n.node.SetNIFatal(n.ni, on)
	}
}
