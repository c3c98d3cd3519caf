package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/sim"
	"github.com/lnetsim/lnetsim/sim/phold"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks of the simulator itself",
	}
	cmd.AddCommand(newBenchPholdCmd(), newBenchClusterCmd())
	return cmd
}

// pholdResult is what `lnetsim bench phold` reports.
type pholdResult struct {
	LPs          int     `json:"lps"`
	Pop          int     `json:"pop"`
	End          string  `json:"end"`
	Events       uint64  `json:"events"`
	Checksum     uint64  `json:"checksum"`
	LoopSeconds  float64 `json:"loop_seconds"`
	EventsPerSec float64 `json:"events_per_second"`
}

func newBenchPholdCmd() *cobra.Command {
	var (
		lps, pop int
		end      string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "phold",
		Short: "Run the PHOLD benchmark on the event kernel",
		Long: `Runs PHOLD exactly as specified in sim/phold/REFERENCE.md (splitmix64 seed 42, lookahead
100us, exponential mean 900us, FIFO ties) on the sim kernel's public API and prints the event
count, the event-loop wall time (set-up excluded), events per second and the checksum, which
must equal the other engines' for the same configuration:

  --lps 1000  --pop 1000   --end 10s    ->  9999492 events, checksum 5003879041
  --lps 10000 --pop 10000  --end 1s     ->  9998677 events, checksum 49990286747
  --lps 10000 --pop 100000 --end 100ms  ->  9991015 events, checksum 49953399273`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			endT, err := sim.ParseTime(end)
			if err != nil {
				return usageErr("--end: %v", err)
			}
			if lps < 1 || pop < 0 {
				return usageErr("--lps must be at least 1 and --pop at least 0")
			}
			k := sim.New(1)
			m := phold.New(k, phold.Default(lps, pop, endT))
			start := time.Now()
			if err := k.Run(); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			wall := time.Since(start).Seconds()
			res := pholdResult{LPs: lps, Pop: pop, End: endT.String(), Events: m.Count,
				Checksum: m.Checksum(), LoopSeconds: wall, EventsPerSec: float64(m.Count) / wall}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			_, err = fmt.Fprintf(out, "phold lps=%d pop=%d end=%s: events=%d loop=%.3fs events/s=%.0f checksum=%d\n",
				lps, pop, res.End, res.Events, res.LoopSeconds, res.EventsPerSec, res.Checksum)
			return err
		},
	}
	cmd.Flags().IntVar(&lps, "lps", 1000, "number of logical processes")
	cmd.Flags().IntVar(&pop, "pop", 1000, "initial population of events")
	cmd.Flags().StringVar(&end, "end", "10s", "virtual end time (e.g. 10s, 100ms)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
