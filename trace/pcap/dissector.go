package pcap

import _ "embed"

// PingDissector is lnet_ping.lua, a Wireshark Lua dissector for LNet ping buffers (struct
// lnet_ping_info) on the reserved portal 0: ping replies and discovery pushes. Wireshark 4.0
// has none, so its LNet dissector flags every discovery push Malformed (it flags any inline
// PUT payload that no portal dissector consumes); with this plugin
// (tshark -X lua_script:lnet_ping.lua) the pushes decode, with each NI's advertised status.
//
//go:embed lnet_ping.lua
var PingDissector []byte
