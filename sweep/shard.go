package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects every Count-th run of a plan, starting at Index.
type Shard struct {
	Index, Count int
	Source       string // where the shard came from: "--shard", "SLURM_ARRAY_TASK_ID", ...
}

// All is the shard that selects the whole plan.
var All = Shard{Index: 0, Count: 1, Source: "whole plan"}

// ParseShard reads "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: expected i/n with 0 <= i < n, e.g. --shard 0/4", s)
	}
	return Shard{Index: i, Count: n, Source: "--shard"}, nil
}

// ShardFromEnv finds the shard of a cluster job when --shard is absent: a Slurm job array
// (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, or shards if given) or a Kubernetes
// Indexed Job (JOB_COMPLETION_INDEX, which needs shards, the number of completions). It
// reports false when neither is set.
func ShardFromEnv(getenv func(string) string, shards int) (Shard, bool, error) {
	pick := func(idxVar, idx string, count int, countVar string) (Shard, bool, error) {
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			return Shard{}, false, fmt.Errorf("%s=%q is not a task index", idxVar, idx)
		}
		if count < 1 {
			return Shard{}, false, fmt.Errorf("%s is set but the number of shards is unknown: pass --shards N (%s)", idxVar, countVar)
		}
		if i >= count {
			return Shard{}, false, fmt.Errorf("%s=%d is not below the number of shards %d", idxVar, i, count)
		}
		return Shard{Index: i, Count: count, Source: idxVar}, true, nil
	}
	if idx := getenv("SLURM_ARRAY_TASK_ID"); idx != "" {
		count := shards
		if count < 1 {
			if c, err := strconv.Atoi(getenv("SLURM_ARRAY_TASK_COUNT")); err == nil {
				count = c
			}
		}
		// Arrays written --array=0-(n-1) as `sweep emit slurm` does: ids are shard indices.
		return pick("SLURM_ARRAY_TASK_ID", idx, count, "or SLURM_ARRAY_TASK_COUNT")
	}
	if idx := getenv("JOB_COMPLETION_INDEX"); idx != "" {
		return pick("JOB_COMPLETION_INDEX", idx, shards, "the Job's completions")
	}
	return Shard{}, false, nil
}

// Select returns the runs of plan in shard s, in plan order.
func (s Shard) Select(plan []Run) []Run {
	var out []Run
	for _, r := range plan {
		if r.Index%s.Count == s.Index {
			out = append(out, r)
		}
	}
	return out
}

// String renders the shard as i/n.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
