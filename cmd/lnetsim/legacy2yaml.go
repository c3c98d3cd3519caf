package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lnetsim/lnetsim/scenarios/legacy2yaml"
)

// negNumber is what argparse takes for a negative number rather than an option.
var negNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// legacyLong and legacyShort are the command's options, as argparse matches them.
var (
	legacyLong  = []string{"ip2nets", "routes", "networks", "modprobe", "output", "default-hop", "help"}
	legacyShort = "irnmoh"
)

// argparseArgs reads the command line as the script's argparse does, for pflag: a long
// option may be shortened to a unique prefix (--def 2); --default-hop takes the next
// argument as its value unless it is an option (nargs='?': "--default-hop 3" and
// "--default-hop" both work); an argument starting with '-' that is a negative number, or
// holds a space and starts with no option, is the positional argument, not an option.
func argparseArgs(args []string) []string {
	var out, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, val, hasVal := strings.Cut(name, "=")
			var match []string
			for _, l := range legacyLong {
				if l == name {
					match = []string{l}
					break
				}
				if strings.HasPrefix(l, name) {
					match = append(match, l)
				}
			}
			if len(match) == 1 {
				a = "--" + match[0]
				if hasVal {
					a += "=" + val
				}
				if match[0] == "default-hop" && !hasVal && i+1 < len(args) && !argparseOption(args[i+1]) {
					a += "=" + args[i+1]
					i++
				}
				out = append(out, a)
				continue
			}
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && !argparseOption(a) {
			positional = append(positional, a)
			continue
		}
		out = append(out, a)
	}
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out
}

// argparseOption says whether argparse takes a as an option (rather than as a value or the
// positional argument).
func argparseOption(a string) bool {
	if !strings.HasPrefix(a, "-") || a == "-" {
		return false
	}
	if negNumber.MatchString(a) {
		return false
	}
	if name, ok := strings.CutPrefix(a, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		for _, l := range legacyLong {
			if strings.HasPrefix(l, name) {
				return true
			}
		}
	} else if strings.ContainsRune(legacyShort, rune(a[1])) {
		return true
	}
	return !strings.Contains(a, " ")
}

// stdinPiped says whether standard input is not a terminal (the script reads it then).
func stdinPiped(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

func newLegacy2YAMLCmd() *cobra.Command {
	var ip2nets, routes, networks, modprobe []string
	cmd := &cobra.Command{
		Use:   "legacy2yaml [OPTIONS-LINE | IP2NETS]",
		Short: "Convert legacy lnet ip2nets=, routes=, networks= options to lnetctl import YAML",
		Long: `legacy2yaml does what Lustre's lnet_legacy2yaml script (2.17.0, LU-19502) does: it reads the
legacy lnet module options ip2nets=, routes= and networks= and prints, on standard output,
the YAML document "lnetctl import" reads (sections net, ip2nets, route). It never writes
files.

Inputs are read in this order and their entries kept in it: modprobe configuration files
(-m: "options lnet ..." lines, backslash continuations), then ip2nets (-i), routes (-r) and
networks (-n) files, each holding one parameter's value, then the argument or, without one,
standard input when it is not a terminal. The argument and standard input may hold
assignments (ip2nets="...", routes='...', networks=...); when they hold none, the whole text
is ip2nets rules. Rules are separated by ';' or newlines; '#' starts a comment.

  ip2nets   NET[(IFACE,...)] IP-PATTERN...        e.g. tcp0(eth0,eth1) 10.0.0.*; o2ib 192.168.[1-2].*
  routes    NET [HOP] GATEWAY[:PRIORITY]          e.g. tcp0 1 10.0.0.1@o2ib0:7
            NET: { gateway: GW, hop: H, priority: P }
  networks  NET[(IFACE,...)],...                  e.g. tcp0(eth0),o2ib(ib0)

--default-hop [N] gives every route without a hop count hop N (1 when N is left out).

Exit status (the script's): 0 converted, 1 nothing to convert, 2 bad input (located as
file:line:column, with the fix) or a bad option.`,
		Example: `  lnetsim legacy2yaml 'tcp0(eth0,eth1) 10.0.0.*; o2ib0 192.168.[1-2].*'
  lnetsim legacy2yaml "options lnet 'ip2nets=\"tcp0 10.0.0.*\" routes=\"tcp0 1 10.0.0.2@o2ib0\"'"
  lnetsim legacy2yaml -m /etc/modprobe.d/lustre.conf
  lnetsim legacy2yaml -r routes.conf --default-hop 2`,
		// --default-hop takes its value as argparse does (argparseArgs), so the flags are
		// parsed here
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmd.Flags().Parse(argparseArgs(args)); err != nil {
				if errors.Is(err, pflag.ErrHelp) {
					return cmd.Help()
				}
				return usageErr("%v", err)
			}
			if h, _ := cmd.Flags().GetBool("help"); h {
				return cmd.Help()
			}
			args = cmd.Flags().Args()
			if len(args) > 1 {
				return usageErr("unrecognized arguments: %s (give at most one OPTIONS-LINE or IP2NETS argument; quote it)", strings.Join(args[1:], " "))
			}
			if cmd.Flags().Changed("output") {
				return usageErr("--output: legacy2yaml never writes files; redirect its standard output instead (lnetsim legacy2yaml ... > FILE)")
			}
			hop := 0
			if f := cmd.Flags().Lookup("default-hop"); f.Changed {
				v, ok := legacy2yaml.ParseInt(f.Value.String())
				if !ok {
					return usageErr("argument --default-hop: invalid int value: %q (give a whole number from 1 to 255)", f.Value.String())
				}
				hop = v
			}
			var c legacy2yaml.Converter
			bad := func(err error) error {
				var le *legacy2yaml.Error
				if errors.As(err, &le) {
					return &exitError{code: exitUsage, err: fmt.Errorf("error: %w", err)}
				}
				return &exitError{code: exitUsage, err: err}
			}
			readFile := func(name string) (string, error) {
				data, err := os.ReadFile(name)
				if err != nil {
					return "", &exitError{code: exitUsage, err: fmt.Errorf("error: cannot read %s: %w", name, err)}
				}
				return string(data), nil
			}
			for _, f := range modprobe {
				data, err := readFile(f)
				if err != nil {
					return err
				}
				if err := c.Modprobe(f, data); err != nil {
					return bad(err)
				}
			}
			for _, set := range []struct {
				p     legacy2yaml.Param
				files []string
			}{{legacy2yaml.IP2Nets, ip2nets}, {legacy2yaml.Routes, routes}, {legacy2yaml.Networks, networks}} {
				for _, f := range set.files {
					data, err := readFile(f)
					if err != nil {
						return err
					}
					if err := c.File(set.p, f, data); err != nil {
						return bad(err)
					}
				}
			}
			switch {
			case len(args) == 1:
				if err := c.Inline(legacy2yaml.ArgumentSource, args[0]); err != nil {
					return bad(err)
				}
			case stdinPiped(cmd.InOrStdin()):
				data, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("error: cannot read standard input: %w", err)}
				}
				if err := c.Inline(legacy2yaml.StdinSource, string(data)); err != nil {
					return bad(err)
				}
			}
			if c.Empty() {
				return &exitError{code: exitRuntime, err: errors.New("error: " + legacy2yaml.NoDataMessage)}
			}
			if cmd.Flags().Changed("default-hop") {
				if err := c.DefaultHop(hop); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("error: %w", err)}
				}
			}
			_, err := io.WriteString(cmd.OutOrStdout(), c.YAML())
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&ip2nets, "ip2nets", "i", nil, "file holding ip2nets rules (repeatable)")
	fl.StringArrayVarP(&routes, "routes", "r", nil, "file holding routes (repeatable)")
	fl.StringArrayVarP(&networks, "networks", "n", nil, "file holding networks entries (repeatable)")
	fl.StringArrayVarP(&modprobe, "modprobe", "m", nil, "modprobe configuration file to read lnet options from (repeatable)")
	fl.String("default-hop", "", "hop count `N` for routes given none (1 when N is left out)")
	fl.Lookup("default-hop").NoOptDefVal = "1"
	fl.StringP("output", "o", "", "not offered: legacy2yaml writes standard output only")
	_ = fl.MarkHidden("output")
	return cmd
}
