// Package pcap writes simulated o2iblnd traffic as capture files that Wireshark and tshark
// decode with their own InfiniBand, o2iblnd and LNet dissectors, with no options; socklnd
// traffic goes into the same pcap as TCP streams on port 988 (SockStreams).
//
// Two containers are offered:
//   - pcap with nanosecond timestamps, Ethernet/IPv4/UDP port 4791 (RoCEv2) carrying the IB
//     Base Transport Header and the payload: the default, readable by every Wireshark, with
//     the IPoIB-style addresses of the simulated NIs as IP addresses;
//   - ERF records of type 21 (InfiniBand), carrying the Local Route Header (LIDs, SL, VL):
//     a native IB view.
//
// LINKTYPE_INFINIBAND (247) is deliberately not used: tshark 4.0 rejects it.
//
// The o2iblnd message encoding (KibMsg, LNetHdr) follows the wire layout the dissector
// expects: a 48-byte kib_msg header (magic 0x0be91b91, version 0x12), 8-byte NIDs (IPv4
// address, net number, LND type), and the 72-byte LNet header whose message union is padded
// to 40 bytes. Bulk RDMA data is not captured: an RDMA WRITE is one packet whose RETH gives
// the transfer's size (Wireshark's InfiniBand dissector refuses to dissect the payload of a
// packet captured short, so the data cannot be recorded truncated either).
//
// PingInfo encodes LNet's ping buffers, the inline payload of ping replies and discovery
// pushes. Wireshark 4.0 has no dissector for them and flags every push Malformed;
// lnet_ping.lua (embedded as PingDissector; `lnetsim wireshark-plugin --install` puts it in
// Wireshark's personal plugin folder) is a Lua dissector that decodes them.
package pcap
