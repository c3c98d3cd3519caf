package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
)

// validateResult is one file's outcome, as `lnetsim validate --output json` prints it.
type validateResult struct {
	File   string             `json:"file"`
	Valid  bool               `json:"valid"`
	Hash   string             `json:"hash,omitempty"`
	Errors []*scenarios.Error `json:"errors"`
}

// parseSets turns --set key=value flags into overrides.
func parseSets(sets []string) ([]scenarios.Override, error) {
	var out []scenarios.Override
	for _, s := range sets {
		o, err := scenarios.ParseSet(s)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		out = append(out, o)
	}
	return out, nil
}

// loadScenario loads a file, standard input ("-"), or a built-in scenario written as
// builtin:NAME.
func loadScenario(cmd *cobra.Command, arg string, ovs []scenarios.Override) (*scenarios.Scenario, error) {
	if name, ok := strings.CutPrefix(arg, "builtin:"); ok {
		return scenarios.LoadBuiltin(name, ovs...)
	}
	if arg == "-" {
		data, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return nil, err
		}
		return scenarios.Load("<stdin>", data, ovs...)
	}
	return scenarios.LoadFile(arg, ovs...)
}

func newValidateCmd() *cobra.Command {
	var (
		sets      []string
		output    string
		quiet     bool
		nids      bool
		canonical bool
		backend   string
	)
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them",
		Long: `Validate loads each scenario file strictly (unknown keys, wrong types, bad units, references
to missing nodes, nets or NIs, impossible values) and prints every problem found, each located
as file:line:col: path: message (hint), at most 20 then a count of the rest. A valid scenario
is then built as run builds it (cluster, workloads, faults, expectations) without running it,
so validate accepts exactly what run can start. A built-in scenario is named builtin:NAME;
"-" reads standard input.

Exit status: 0 all files valid, 2 at least one invalid (or a usage error).`,
		Example: `  lnetsim validate scenarios/catalogue/*.yaml
  lnetsim validate --set lnet.retry_count=3 --set faults[0].at=20s my.yaml
  lnetsim validate --output json builtin:default`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageErr("--output must be text or json, got %q", output)
			}
			if backend != runner.BackendO2IB && backend != runner.BackendIdeal {
				return usageErr("--backend must be o2ib or ideal, got %q", backend)
			}
			ovs, err := parseSets(sets)
			if err != nil {
				return err
			}
			var results []validateResult
			loaded := map[string]*scenarios.Scenario{}
			invalid := 0
			for _, f := range args {
				res := validateResult{File: f, Errors: []*scenarios.Error{}}
				s, err := loadScenario(cmd, f, ovs)
				var el scenarios.ErrorList
				if err == nil {
					err = buildCheck(f, s, backend)
				}
				switch {
				case err == nil:
					res.Valid, res.Hash = true, s.Hash
					loaded[f] = s
				case errors.As(err, &el):
					res.Errors = el
					invalid++
				default:
					res.Errors = []*scenarios.Error{{File: f, Message: err.Error()}}
					invalid++
				}
				results = append(results, res)
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(map[string]any{"files": results}); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					for _, e := range r.Errors {
						fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
					}
					if r.Valid && !quiet {
						fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (scenario hash %s)\n", r.File, r.Hash[:16])
					}
					if s := loaded[r.File]; s != nil {
						if err := printDetails(cmd, s, nids, canonical); err != nil {
							return err
						}
					}
				}
			}
			if invalid > 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d scenario files invalid", invalid, len(args))}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a scenario field by path, e.g. --set lnet.retry_count=3 (repeatable)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print only errors")
	cmd.Flags().BoolVar(&nids, "nids", false, "print each node's NIs with their assigned NIDs")
	cmd.Flags().BoolVar(&canonical, "canonical", false, "print the canonical form the scenario hash covers")
	cmd.Flags().StringVar(&backend, "backend", runner.BackendO2IB, "build the scenario for this LND, as run --backend does: o2ib or ideal")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// buildCheck builds a loaded scenario as run does before its first event (runner.Check), so
// that validate accepts exactly what run can start; a failure is reported against the file.
func buildCheck(file string, s *scenarios.Scenario, backend string) error {
	if err := runner.Check(s, backend); err != nil {
		return scenarios.ErrorList{{File: file, Message: "loads, but run cannot build it: " + err.Error()}}
	}
	return nil
}

// printDetails prints a valid scenario's NIDs and/or canonical form.
func printDetails(cmd *cobra.Command, s *scenarios.Scenario, nids, canonical bool) error {
	out := cmd.OutOrStdout()
	if nids {
		for _, m := range s.Members {
			role := ""
			if m.Routing {
				role = " (router)"
			}
			fmt.Fprintf(out, "  %s%s\n", m.Name, role)
			for i, ni := range m.NIs {
				fmt.Fprintf(out, "    %s:%d  %-22s %-6s hca %d port %d\n", m.Name, i, ni.NID, ni.Interface, ni.HCA, ni.Port)
			}
		}
	}
	if canonical {
		c, err := s.Canonical()
		if err != nil {
			return err
		}
		if _, err := out.Write(c); err != nil {
			return err
		}
	}
	return nil
}

func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List and show the built-in scenario catalogue",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range scenarios.Catalogue() {
				desc := ""
				if s, err := scenarios.LoadBuiltin(name); err == nil {
					desc = firstSentence(s.Description)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-26s %s\n", name, desc)
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in scenario's YAML",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.Catalogue(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			_, data, ok := scenarios.Builtin(args[0])
			if !ok {
				return usageErr("no built-in scenario named %q (lnetsim scenarios list shows them)", args[0])
			}
			_, err := cmd.OutOrStdout().Write(data)
			return err
		},
	})
	return cmd
}

// firstSentence returns text up to its first full stop, on one line.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
