// Package legacy2yaml converts the legacy lnet module options ip2nets=, routes= and
// networks= into the YAML document `lnetctl import` reads, with the semantics of Lustre's
// lnet_legacy2yaml script (lustre/scripts/lnet_legacy2yaml, LU-19502, first released in
// 2.17.0): rules, routes and nets keep the order they are given in; a rule's interfaces and
// ip-range patterns are numbered 0, 1, ... in the order written; patterns are copied, not
// expanded, a pattern starting with '*' double-quoted; text from '#' to the end of a rule is
// dropped; rules are separated by ';' or newlines; a backslash-newline joins lines.
//
// Where the text comes from follows the script: a Converter takes modprobe configuration
// files (Modprobe: `options ... lnet ...` lines, backslash continuations, ip2nets/routes/
// networks assignments quoted or not), files holding one parameter's value (File), and the
// argument or standard input (Inline: its assignments, or, when it has none, the whole text
// as ip2nets rules). Its refusals carry the script's message, located at file:line:column
// and with the fix (Error).
//
// The script's grammar is not the kernel's, so the kernel-faithful option parsers of
// scenarios/modparam and scenarios/ippattern are deliberately not used here: the script
// accepts any ip-range token made of [A-Za-z0-9[*].,/-] holding three dots (the kernel's
// cfs_ip_addr_parse checks each field), keeps nets and gateways as written without
// expanding ranges or checking the net type (lnet_parse_routes expands [a-b] in both and
// refuses unknown LNDs), reads an optional hop count 1-255 only as the second word of a
// legacy route, accepts a second route form `net: { gateway: G, hop: H, priority: P }`
// (lustre_routes_config's), and refuses a rule holding a second net or a route holding a
// second gateway instead of reading on as the kernel does.
//
// Where this package differs from the script itself: text that is not UTF-8 is refused with
// its position (the script stops with a Python traceback for a file, and reads the
// argument's bytes as escapes); refusals are located and carry a fix.
package legacy2yaml
