package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// NID metadata in the ping buffer (LU-18808, from 2.17; Profile.NoNIDMetadata before). An
// LND may attach a small block of its own data to each of its NIDs in the node's ping
// target (lnd_get_nid_metadata), which a peer reads with a ping of its own
// (lnet_discover_nid_metadata). Only efalnd has such data, which the model does not have; the
// model's metadata comes from CFS_FAIL_TEST_PING_MD alone, which fills every entry of a
// non-loopback NI with a fixed test pattern, as sanity-lnet test 270 uses it.

const (
	// nidMDEntrySize is struct lnet_nid_md_entry: a 64-bit NID and LNET_MD_BUFFER_SZ (32)
	// bytes of LND data.
	nidMDEntrySize = 8 + 32
	// pingBufferMax is LNET_PING_BUFFER_MAX, the largest reply buffer
	// lnet_discover_nid_metadata posts.
	pingBufferMax = 3960
	// MetadataPingTimeout is how long lnetctl ping's metadata ping waits for its REPLY: the
	// kernel passes LNET_TRANSACTION_TIMEOUT_DEFAULT (150) as a jiffies count to
	// wait_for_completion_timeout, 150 ms at HZ=1000.
	MetadataPingTimeout = 150 * sim.Millisecond
)

// metadataSize is lnet_size_of_metadata: a 32-bit count and nnis entries.
func metadataSize(nnis int) int { return 4 + nidMDEntrySize*nnis }

// extraBytesForMD models lnet_extra_bytes_for_md: the room a ping buffer leaves after its NIs
// for metadata, max_interfaces entries when CFS_FAIL_TEST_PING_MD fails this check (none of
// the model's LNDs has lnd_get_nid_metadata), else none.
func (n *Node) extraBytesForMD() int {
	if n.failCheck(FailTestPingMD) {
		return metadataSize(n.tun.MaxInterfaces)
	}
	return 0
}

// installMetadata models the metadata part of lnet_ping_target_install_locked: every NI, 0@lo
// first, makes one CFS_FAIL_TEST_PING_MD check, and each non-loopback NI whose check fails
// gets an entry with the test pattern (lnet_poison_nid_md_buffer). It returns the NIDs with
// an entry, in the buffer's order; any entry sets LNET_PING_FEAT_METADATA.
func (n *Node) installMetadata() []NID {
	_ = n.failCheck(FailTestPingMD) // 0@lo: checked, but lolnd never gets an entry
	var md []NID
	for _, ni := range n.nis {
		if len(md) >= n.tun.MaxInterfaces {
			break
		}
		if n.failCheck(FailTestPingMD) {
			md = append(md, ni.nid)
		}
	}
	return md
}

// pingTargetBytes is the size of the node's ping target (pb_nbytes): its NIs and the room
// lnet_ping_target_setup left for metadata. Pushes send it whole; a GET of it gets at most
// its sink's length.
func (n *Node) pingTargetBytes() int { return n.pingBuf.size() + n.pingExtra }

// NIDMetadataPing prepares lnet_discover_nid_metadata's ping of target: the first local NI on
// the target's net sends it (lnet_net2ni_locked; LNetGetForce) and its reply buffer is
// sized as the kernel sizes it: 16 bytes per local NI, 0@lo included (lnet_get_ni_bytes,
// which leaves out the 16-byte header), and lnet_extra_bytes_for_md's room, at most
// LNET_PING_BUFFER_MAX bytes.
// Without such an NI it fails ENOENT, logged.
func (n *Node) NIDMetadataPing(target NID) (src NID, sink int, err error) {
	var ni *NI
	if nt := n.netByID(target.Net()); nt != nil && len(nt.nis) > 0 {
		ni = nt.nis[0]
	}
	if ni == nil {
		n.Printk("LNetError: Can't find valid local NI: rc = %d", -ENOENT)
		return AnyNID, 0, Errno(-ENOENT)
	}
	sink = min(16*(len(n.nis)+1)+n.extraBytesForMD(), pingBufferMax)
	return ni.nid, sink, nil
}

// NIDMetadataReply models the end of lnet_discover_nid_metadata: the REPLY of target's ping
// target, b, arrived in mlen bytes. A reply shorter than the NIs it lists, or without
// LNET_PING_FEAT_METADATA, or with no entry fails EPROTO (logged as the kernel does); else
// lnet_dump_nid_metadata logs, when CFS_FAIL_TEST_PING_MD's check fails, one "found metadata
// reply" line per entry. It returns 0 or the negative errno.
func (n *Node) NIDMetadataReply(target NID, b *PingBuffer, mlen int) int {
	switch {
	case b == nil || mlen < 16:
		n.Printk("LNetError: %s: Short reply %d(16 min): rc = %d", target, mlen, -EPROTO)
		return -EPROTO
	case mlen < b.size():
		n.Printk("LNetError: %s: Short reply %d(%d expected): rc = %d", target, mlen, b.size(), -EPROTO)
		return -EPROTO
	case len(b.Metadata) == 0:
		n.Printk("LNetError: %s: Peer has no metadata: rc = %d", target, -EPROTO)
		return -EPROTO
	case len(b.Metadata) > n.tun.MaxInterfaces:
		n.Printk("LNetError: %s: Unexpected number of handshake entries %d: rc = %d", target, len(b.Metadata), -EPROTO)
		return -EPROTO
	}
	if n.failCheck(FailTestPingMD) {
		n.Printk("Ping reply received with mapping:")
		for _, nid := range b.Metadata {
			n.Printk("found metadata reply NI[%s]", nid)
		}
	}
	return 0
}

// ConsoleLine is one line of a node's kernel log (what dmesg shows): LNet's console messages
// the model writes.
type ConsoleLine struct {
	Time sim.Time
	Text string
}

// Printk appends a line to the node's kernel log. The model logs only what a scenario checks
// (sanity-lnet's dmesg greps), not every kernel message.
func (n *Node) Printk(format string, args ...any) {
	n.console = append(n.console, ConsoleLine{Time: n.k.Now(), Text: fmt.Sprintf(format, args...)})
}

// Console returns the node's kernel log, oldest first.
func (n *Node) Console() []ConsoleLine { return n.console }
