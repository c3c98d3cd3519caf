// Command lnetsim is a deterministic discrete-event simulator of Lustre LNet over InfiniBand
// (o2iblnd). See README.md for the two commands a newcomer needs.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes shared by every subcommand (listed in the root command's help and README).
const (
	exitOK         = 0
	exitRuntime    = 1 // the simulation or an I/O step failed
	exitUsage      = 2 // bad flags, bad input files
	exitExpectFail = 3 // run, check: an expectation failed
	exitCap        = 4 // run, check: --max-events, --max-events-per-instant, --max-memory or --max-wall ended a run
)

// exitError carries an exit code out of a cobra RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI with args and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "lnetsim:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage // cobra's own errors are flag and argument errors
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "lnetsim",
		Short: "Deterministic simulator of Lustre LNet over InfiniBand (o2iblnd)",
		Long: `lnetsim replays what LNet and o2iblnd do when an InfiniBand network fails: health
values, interface selection, resends, timeouts and routing, bit for bit from a seed.

Exit status:
  0  success
  1  an I/O or internal error (a run could not write its results, a run failed)
  2  bad input: flags, arguments, scenario or sweep files
  3  an expectation failed (run and check)
  4  a cap (--max-events, --max-events-per-instant, --max-memory, --max-wall) ended a run: its results so far are
     written, marked "incomplete" in summary.json`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newBenchCmd(), newVersionCmd(), newValidateCmd(), newScenariosCmd(), newPlotCmd(), newSweepCmd(), newCheckCmd(), newWiresharkPluginCmd(), newCompareReleasesCmd(), newLegacy2YAMLCmd())
	return root
}
