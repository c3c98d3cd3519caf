package modparam

// Dialect is how one Lustre release's kernel reads the options where releases differ. The
// zero value is master.
type Dialect struct {
	// ScanfTCPNIDs: tcp NIDs' addresses are read by sscanf "%u.%u.%u.%u" (libcfs_str2nid,
	// up to 2.12), not by rpc_pton (libcfs_strnid's str2addr_size, from 2.15).
	ScanfTCPNIDs bool
	// ScanfO2IBNIDs: o2ib NIDs' addresses are read by sscanf (up to 2.17; master gives o2ib
	// rpc_pton as tcp has it).
	ScanfO2IBNIDs bool
	// NoAnyNIDText: "<?>" is not a NID (up to 2.15; libcfs_strnid reads it as LNET_ANY_NID
	// from 2.16, which lnet_add_route then refuses).
	NoAnyNIDText bool
	// NoKfiNames: the kernel does not know the kfi net name (up to 2.15).
	NoKfiNames bool
	// NoEfaBxi3fNames: the kernel does not know the efa and bxi3f net names (up to 2.16).
	NoEfaBxi3fNames bool
	// PrefixInterfaceDup: a net's interface that an earlier interface of the net starts with
	// counts as a duplicate (lnet_ni_unique_net compares strlen(iface) characters, up to
	// 2.15; from 2.16 up to LNET_MAX_STR_LEN, so only the same name).
	PrefixInterfaceDup bool
}

// Error is an option the kernel refuses (or that lnetsim cannot model, Unmodelled): the
// kernel's message, and the part of the option's text it points at (byte offset and width,
// as lnet_syntax marks it).
type Error struct {
	Msg        string
	Off, Width int
	// Why says, in lnetsim's words, what is wrong there (the kernel does not say).
	Why string
	// Unmodelled: the kernel accepts this but lnetsim cannot express it.
	Unmodelled bool
}

func (e *Error) Error() string {
	if e.Why == "" {
		return e.Msg
	}
	return e.Msg + ": " + e.Why
}

// syntaxMsg is lnet_syntax's first line.
func syntaxMsg(param, text string) string {
	return "Error parsing '" + param + "=\"" + text + "\"'"
}
