package sweep

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// EmitSlurm writes a ready sbatch script that runs sweepFile as a job array of shards tasks
// (each task one shard, --array=0-(shards-1)), all writing to out, then tells the user how to
// merge.
func EmitSlurm(w io.Writer, sweepFile, out string, shards int) error {
	if shards < 1 {
		return fmt.Errorf("sweep emit: --shards must be at least 1")
	}
	_, err := fmt.Fprintf(w, `#!/bin/bash
# lnetsim sweep %[1]s as a Slurm job array of %[2]d shards.
# Submit: sbatch this-file.sh     Merge when all tasks are done:
#   lnetsim sweep merge %[1]s --out %[3]s
#SBATCH --job-name=lnetsim-%[4]s
#SBATCH --array=0-%[5]d
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=%[3]s/slurm-%%A_%%a.out
set -euo pipefail
# Each task takes every %[2]d-th run of the plan, starting at SLURM_ARRAY_TASK_ID; runs
# already complete are skipped, so a requeued task resumes.
exec lnetsim sweep run %[1]s --out %[3]s --shards %[2]d --workers 1
`, sweepFile, shards, out, jobName(sweepFile), shards-1)
	return err
}

// EmitK8s writes a Kubernetes Indexed Job manifest with shards completions; each pod runs
// the shard given by JOB_COMPLETION_INDEX. The image and the volume holding out are for the
// user to fill in.
func EmitK8s(w io.Writer, sweepFile, out string, shards, parallelism int) error {
	if shards < 1 {
		return fmt.Errorf("sweep emit: --shards must be at least 1")
	}
	if parallelism < 1 {
		parallelism = shards
	}
	_, err := fmt.Fprintf(w, `# lnetsim sweep %[1]s as a Kubernetes Indexed Job of %[2]d shards.
# Apply: kubectl apply -f this-file.yaml     Merge when it completes:
#   lnetsim sweep merge %[1]s --out %[3]s
apiVersion: batch/v1
kind: Job
metadata:
  name: lnetsim-%[4]s
spec:
  completionMode: Indexed
  completions: %[2]d
  parallelism: %[5]d
  backoffLimit: %[2]d
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: lnetsim
          image: REPLACE-WITH-AN-IMAGE-CONTAINING-lnetsim
          command: ["lnetsim", "sweep", "run", %[6]q, "--out", %[7]q, "--shards", "%[2]d", "--workers", "1"]
          resources:
            requests: {cpu: "1"}
          volumeMounts:
            - {name: results, mountPath: /results}
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: REPLACE-WITH-A-SHARED-CLAIM}
`, sweepFile, shards, out, jobName(sweepFile), parallelism, sweepFile, "/results/"+filepath.Base(out))
	return err
}

// jobName derives a DNS-safe job name from the sweep file name.
func jobName(sweepFile string) string {
	base := strings.TrimSuffix(filepath.Base(sweepFile), filepath.Ext(sweepFile))
	var b strings.Builder
	for _, c := range strings.ToLower(base) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "sweep"
	}
	return name[:min(len(name), 40)]
}
