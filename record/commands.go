package record

import "github.com/lnetsim/lnetsim/sim"

// CommandsFile holds the lnetctl commands a run's timeline ran (only when it has some).
const CommandsFile = "commands.csv"

// Command is one row of commands.csv: an lnetctl command run on a node, and its outcome as
// lnetctl would report it: ok, or the errno the kernel refused it with (ENOENT, EEXIST, ...).
type Command struct {
	Time    sim.Time
	Node    string
	Name    string // the timeline entry's name (the command check refers to it)
	Command string // as written
	Result  string // ok or an errno name
	// AnsweredBy is the NID whose REPLY answered a ping ("" for other commands).
	AnsweredBy string
	Detail     string
}

var commandsHeader = []string{"time_ns", "node", "name", "command", "result", "answered_by", "detail"}

// WriteCommands writes commands.csv.
func (r *Run) WriteCommands(cmds []Command) {
	t := r.csvFile(CommandsFile, commandsHeader)
	for _, c := range cmds {
		t.int(int64(c.Time))
		t.str(c.Node)
		t.str(c.Name)
		t.str(c.Command)
		t.str(c.Result)
		t.str(c.AnsweredBy)
		t.str(c.Detail)
		r.end(t)
	}
	if err := t.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
}
