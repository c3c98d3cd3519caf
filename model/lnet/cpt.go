package lnet

// MaxCPTs bounds Tunables.CPTs (real systems have one CPT per NUMA node or a few per
// socket; the model's router pool index must fit a message's int8).
const MaxCPTs = 32

// ncpts is LNET_CPT_NUMBER (Tunables.CPTs, 0 meaning 1).
func (n *Node) ncpts() int { return max(n.tun.CPTs, 1) }

// cptOfNID models lnet_nid2cpt / lnet_cpt_of_nid_locked for an NI that spans every CPT (the
// model's NIs have no CPT list: ni_cpts is NULL): one CPT gives 0; otherwise
// lnet_nid4_cpt_hash of an IPv4-type NID, the sum of the 8 bytes of the 64-bit NID
// (net << 32 | address, the layout the model's NID shares) modulo the number of CPTs.
func (n *Node) cptOfNID(nid NID) int {
	k := n.ncpts()
	if k == 1 {
		return 0
	}
	return nidByteSum(nid) % k
}

// CPTOfNID is cptOfNID for an LND: the CPT whose resources (o2iblnd's tx and FastReg
// pools) serve traffic with nid, as kiblnd_get_idle_tx picks them by lnet_cpt_of_nid.
func (n *Node) CPTOfNID(nid NID) int { return n.cptOfNID(nid) }

// NCPTs is LNET_CPT_NUMBER, the CPTs an NI of the node spans (the model's NIs span all).
func (n *Node) NCPTs() int { return n.ncpts() }

// nidByteSum is the pair-sum of lnet_nid4_cpt_hash: the sum of the NID's 8 bytes.
func nidByteSum(nid NID) int {
	const pairBits = 0x0001000100010001
	const mask = pairBits * 0xff
	key := uint64(nid)
	sum := key&mask + key>>8&mask
	return int(sum * pairBits >> 48)
}
