package modparam

import "github.com/lnetsim/lnetsim/model/lnet"

// Dialect is how one Lustre release's kernel reads the options where releases differ
// (lnet.ModuleDialect, a part of the release's profile). The zero value is master.
type Dialect lnet.ModuleDialect

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
