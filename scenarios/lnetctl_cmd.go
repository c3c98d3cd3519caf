package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Command is an lnetctl command of the fault timeline (`lnetctl: "route del --net o2ib1
// --gateway 10.0.0.5@o2ib"`), parsed with lnetctl's argument grammar and checked at load as
// lnetctl and liblnetconfig check it before calling the kernel. Its resolved values are what
// the runner passes to the model; the kernel's own refusals happen at run time.
type Command struct {
	// Verb is the command's words, e.g. "route add", "set routing", "ping".
	Verb string `json:"verb"`
	// Args maps each option given (its first long name) to its value ("" for a flag).
	Args map[string]string `json:"args,omitempty"`
	// Operands are the words that are not options (set VALUE, ping NID, ...).
	Operands []string `json:"operands,omitempty"`
	// Resolved values, as the checks leave them.
	Net      string   `json:"net,omitempty"`      // --net, canonical (o2ib1)
	NIDs     []string `json:"nids,omitempty"`     // --gateway, --nid or operand NIDs, ranges expanded
	Prim     string   `json:"prim,omitempty"`     // --prim_nid
	Hop      int      `json:"hop,omitempty"`      // route add --hop (-1: undefined)
	Priority int      `json:"priority,omitempty"` // route add --priority
	// Sensitivity is route add's --health_sensitivity (2.15, 2.16) when given other than -1:
	// the gateway's lp_health_sensitivity; nil is lnet_add_route's default, 1.
	Sensitivity *int `json:"health_sensitivity,omitempty"`
	Value       int  `json:"value,omitempty"`     // set VALUE, --health, --conns-per-peer
	NonMR       bool `json:"non_mr,omitempty"`    // peer add --non_mr
	LockPrim    bool `json:"lock_prim,omitempty"` // peer add --lock_prim (2.16+)
	Force       bool `json:"force,omitempty"`     // peer del --force (2.16+), discover --force
	// Rule is the drop or delay rule of lnetctl fault drop|delay add, and the source and
	// destination of del ("" for --all).
	Rule *FaultRule `json:"rule,omitempty"`
	// Sub are the commands an import runs, one per entry of its document, in lnetctl's order.
	Sub []*Command `json:"sub,omitempty"`
	// Fail, on an import entry, is its failure at run time: after its verb ran (Fail.Run) or
	// instead of it.
	Fail *EntryFail `json:"fail,omitempty"`
	// Batch, on an import entry from 2.16, numbers the Netlink message it is sent in (one per
	// section): the first entry that fails ends its message, the rest of it is not run.
	Batch int `json:"batch,omitempty"`
	// UndoPrim, on an import entry, deletes its primary NID again when it fails
	// (lnet_peer_ni_cmd's report_err after a create).
	UndoPrim bool   `json:"undo_prim,omitempty"`
	node     string // the node it runs on (for checks that resolve references there)
	// rawNIDs: the NIDs go to the kernel as written, which resolves no host name (import
	// --exec's Netlink ping and discover sections).
	rawNIDs bool
	// order lists an ordered command's options as given (their canonical names), for a check
	// that reads them in lnetctl's order.
	order []string
	// shorts lists the options given by their short letter (canonical names), for a check
	// whose release reads the letter differently.
	shorts []string
}

// EntryFail is how an import entry fails whatever the state: the errno it reports (positive)
// and lnetctl's or the kernel's words, with whether the entry's verb runs first (what the
// kernel did before it met the bad value; a refusal of the verb is then the entry's).
type EntryFail struct {
	Errno int    `json:"errno"`
	Text  string `json:"text"`
	Run   bool   `json:"run,omitempty"`
}

// cmdOpt is one option of a command: its long names (the first is canonical), short letter
// (0: none) and whether it takes a value (getopt_long's required_argument), or a level in the
// next word (level: lnetctl's -v of net and peer show, which takes that word when it does not
// start with '-').
type cmdOpt struct {
	long  []string
	short byte
	arg   bool
	level bool
	multi bool // each value given is kept (joined by newlines), as lnetctl ORs them into a mask
	// shortDiffers: lnetctl's short option string reads the letter otherwise than the long
	// name: with a value where the long name takes none (net add's "k:" for
	// --skip-mr-route-setup: the letter takes the next word), or without one where it takes
	// one (debug peer's "k" for --nid: the NID is left out).
	shortDiffers bool
}

// cmdSpec is one lnetctl command: its options, how many operands it takes, and its check.
type cmdSpec struct {
	verb        string
	opts        []cmdOpt
	minOperands int
	maxOperands int
	check       func(r *resolver, p string, c *Command)
	// undo names the command for: runs after the fault's duration ("": none).
	undo string
	// o2ibOnly: only the InfiniBand model can run it.
	o2ibOnly bool
	// ordered: the options are recorded in the order given (Command.order), for a check that
	// reads them as lnetctl's getopt loop does.
	ordered bool
	// releaseOpts names options that only some releases' lnetctl declares, with the rule
	// telling the releases that lack them: on such a node the command is parsed without
	// them (forRelease), so that the option is unknown and its prefixes resolve, as there.
	releaseOpts map[string]releaseLacks
}

// forRelease returns the command as the lnetctl of a node of profile prof declares it:
// without the options of releaseOpts that release lacks.
func (s *cmdSpec) forRelease(prof lnet.Profile) *cmdSpec {
	if len(s.releaseOpts) == 0 {
		return s
	}
	c := *s
	c.opts = nil
	for _, o := range s.opts {
		if rl, ok := s.releaseOpts[o.long[0]]; ok && rl.lacks(prof) {
			continue
		}
		c.opts = append(c.opts, o)
	}
	return &c
}

// opt is shorthand for a value-taking option.
func opt(short byte, long ...string) cmdOpt { return cmdOpt{long: long, short: short, arg: true} }

// levelOpt is shorthand for an option with an optional level in the next word.
func levelOpt(short byte, long ...string) cmdOpt {
	return cmdOpt{long: long, short: short, level: true}
}

// maxShowDetail is the highest level that prints more than the one below it.
const maxShowDetail = 4

// unexpectedArgError is a word that is not an option where the command takes no more
// operands.
type unexpectedArgError struct{ word string }

func (e *unexpectedArgError) Error() string { return fmt.Sprintf("unexpected argument %q", e.word) }

// registerCommand adds an lnetctl command to the action registry under its verb.
func registerCommand(s *cmdSpec) {
	register(&Action{Name: s.verb, Fields: []string{"node", "lnetctl", "name"}, Optional: []string{"name"},
		Undo: s.undo, Cmd: s, O2IBOnly: s.o2ibOnly, check: func(r *resolver, _ *faultCtx, p string, i int, f *Fault) {
			if f.Name == "" {
				f.Name = "cmd" + strconv.Itoa(i)
			}
			if f.Cmd != nil && s.check != nil {
				f.Cmd.node = f.Node
				s.check(r, p+".lnetctl", f.Cmd)
			}
		}})
}

// splitWords splits a command line into words as a shell would for lnetctl: on blanks,
// with '...' and "..." quoting.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// findCommand returns the command whose verb the words start with (the longest match) and
// the remaining words.
func findCommand(words []string) (*cmdSpec, []string) {
	words = trimLnetctl(words)
	for n := min(3, len(words)); n >= 1; n-- {
		if a := actions[strings.Join(words[:n], " ")]; a != nil && a.Cmd != nil {
			return a.Cmd, words[n:]
		}
	}
	return nil, words
}

// trimLnetctl drops a leading "lnetctl" word: the command may be pasted as typed.
func trimLnetctl(words []string) []string {
	if len(words) > 0 && words[0] == "lnetctl" {
		return words[1:]
	}
	return words
}

// lookup returns the option a long name (or, as getopt_long accepts, an unambiguous prefix of
// one) or short letter names.
func (s *cmdSpec) lookup(long string, short byte) (*cmdOpt, error) {
	var match *cmdOpt
	for i := range s.opts {
		o := &s.opts[i]
		if long == "" {
			if o.short == short && short != 0 {
				return o, nil
			}
			continue
		}
		for _, l := range o.long {
			if l == long {
				return o, nil
			}
			if strings.HasPrefix(l, long) {
				if match != nil && match != o {
					return nil, fmt.Errorf("option '--%s' is ambiguous", long)
				}
				match = o
			}
		}
	}
	if match == nil {
		if long != "" {
			return nil, fmt.Errorf("unrecognized option '--%s'", long)
		}
		return nil, fmt.Errorf("invalid option -- '%c'", short)
	}
	return match, nil
}

// parse reads the words after the verb as getopt_long does: --name value, --name=value,
// -x value, -xvalue; the other words are operands, wherever they are (a negative number too,
// for a command that takes operands); "--" ends options. A level option (-v of net and peer
// show) is "1" alone, or the next word as lnetctl reads it (0 to maxShowDetail); a level
// joined to it (-v2, --verbose=2), which lnetctl reads as level 1 or refuses, is refused with
// the fix.
func (s *cmdSpec) parse(words []string) (*Command, error) {
	c := &Command{Verb: s.verb, Args: map[string]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			c.Operands = append(c.Operands, words[i+1:]...)
			break
		}
		var o *cmdOpt
		var val string
		var hasVal bool
		var err error
		switch {
		case strings.HasPrefix(w, "--"):
			name, v, eq := strings.Cut(w[2:], "=")
			o, err = s.lookup(name, 0)
			val, hasVal = v, eq
			switch {
			case err != nil || !eq || o.arg:
			case o.level:
				err = fmt.Errorf("write --%s %s: lnetctl ignores a level joined by '=' and shows level 1", o.long[0], v)
			default:
				err = fmt.Errorf("option '--%s' doesn't allow an argument", o.long[0])
			}
		case len(w) > 1 && w[0] == '-' && !(s.maxOperands > 0 && isNumber(w)):
			o, err = s.lookup("", w[1])
			switch {
			case err == nil && o.shortDiffers && !o.arg:
				err = fmt.Errorf("lnetctl's getopt gives -%c a value (its short options hold \"%c:\"), which takes the next word: write --%s", w[1], w[1], o.long[0])
			case err == nil && o.shortDiffers:
				err = fmt.Errorf("lnetctl's getopt gives -%c no value (its short options hold \"%c\"), which leaves --%s out: write --%s", w[1], w[1], o.long[0], o.long[0])
			}
			if err == nil {
				c.shorts = append(c.shorts, o.long[0])
			}
			if err == nil && len(w) > 2 {
				switch {
				case o.level:
					err = fmt.Errorf("write -%c %s: lnetctl does not read a level joined to -%c", w[1], w[2:], w[1])
				case !o.arg:
					err = fmt.Errorf("give each option separately: %s", w)
				}
				val, hasVal = w[2:], true
			}
		default:
			c.Operands = append(c.Operands, w)
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.ordered {
			c.order = append(c.order, o.long[0])
		}
		if o.level {
			val = "1"
			if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
				i++
				if n, err := strconv.Atoi(words[i]); err != nil || n > maxShowDetail {
					return nil, fmt.Errorf("-%c level %q: give 0 to %d (lnetctl would take the word and show level 1)", o.short, words[i], maxShowDetail)
				}
				val = words[i]
			}
			c.Args[o.long[0]] = val
			continue
		}
		if o.arg && !hasVal {
			if i+1 >= len(words) {
				return nil, fmt.Errorf("option '--%s' requires an argument", o.long[0])
			}
			i++
			val = words[i]
		}
		if prev, ok := c.Args[o.long[0]]; ok && o.multi {
			val = prev + "\n" + val
		}
		c.Args[o.long[0]] = val
	}
	switch {
	case len(c.Operands) < s.minOperands:
		return nil, fmt.Errorf("%s needs %d argument(s) after the command", s.verb, s.minOperands)
	case len(c.Operands) > s.maxOperands:
		return nil, &unexpectedArgError{c.Operands[s.maxOperands]}
	}
	return c, nil
}

// isNumber reports whether w is a (negative) integer: an operand, not an option.
func isNumber(w string) bool {
	w = strings.TrimPrefix(w, "-")
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// usage lists a command's options for a hint.
func (s *cmdSpec) usage() string {
	var parts []string
	for _, o := range s.opts {
		parts = append(parts, "--"+o.long[0])
	}
	if len(parts) == 0 {
		return "lnetctl " + s.verb
	}
	return "lnetctl " + s.verb + " takes " + strings.Join(parts, ", ")
}

// lnetctl parses and checks a timeline entry's lnetctl command, naming its action after the
// command's verb. It reports false when the entry cannot be checked further.
func (r *resolver) lnetctl(p string, f *Fault) bool {
	if f.Action != "" {
		r.errorAt(p+".action", "remove action: the command names what is done", "give action or lnetctl, not both")
		return false
	}
	words, err := splitWords(f.Lnetctl)
	if err == nil && len(trimLnetctl(words)) == 0 {
		err = fmt.Errorf("the command is empty")
	}
	if err != nil {
		r.errorAt(p+".lnetctl", "e.g. lnetctl: \"route del --net o2ib1 --gateway 10.0.0.5@o2ib\"", "%v", err)
		return false
	}
	full, rest := findCommand(words)
	if full == nil {
		r.errorAt(p+".lnetctl", "the scenario reference lists the commands: route, peer, net set, set, lnet, ping, discover", "unknown lnetctl command %q", strings.Join(trimLnetctl(words), " "))
		return false
	}
	spec := full
	m := r.s.Member(f.Node)
	if m != nil {
		spec = full.forRelease(r.rel[m.Group].Profile)
	}
	c, err := spec.parse(rest)
	if err != nil {
		// An option of other releases: say so, with the fix.
		if fc, ferr := full.parse(rest); ferr == nil {
			for _, name := range slices.Sorted(maps.Keys(full.releaseOpts)) {
				if _, ok := fc.Args[name]; ok && full.releaseOpts[name].lacks(r.rel[m.Group].Profile) {
					rl := full.releaseOpts[name]
					r.errorAt(p+".lnetctl", rl.fix, "%s: unrecognized option '--%s' (%s runs %s)", spec.verb, name, f.Node, r.rel[m.Group].Name)
					return false
				}
			}
		}
		r.errorAt(p+".lnetctl", spec.usage(), "%s: %v", spec.verb, err)
		return false
	}
	f.Action, f.Cmd = spec.verb, c
	return true
}
