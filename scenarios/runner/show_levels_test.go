package runner

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestShowLevels renders net, peer and route shows with their levels and filters on a
// scenario run to its end (testdata/show): `scenario` loads and runs the YAML given, `show
// node=N` prints what the command given prints on N. `go test ./scenarios/runner -run
// TestShowLevels -rewrite` regenerates the expected output.
func TestShowLevels(t *testing.T) {
	datadriven.Walk(t, "testdata/show", func(t *testing.T, path string) {
		var c *cluster
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "scenario":
				s, err := scenarios.Load(path, []byte(d.Input))
				if err != nil {
					return "error: " + err.Error()
				}
				p, err := prepare(s, s.Seed, "")
				if err != nil {
					t.Fatal(err)
				}
				p.ws.start()
				p.faults.schedule()
				if err := runCapped(p.c.k, s.Duration, DefaultMaxEvents, DefaultMaxEventsPerInstant, nil); err != nil {
					t.Fatal(err)
				}
				c = p.c
				return ""
			case "show":
				var name string
				d.ScanArgs(t, "node", &name)
				n := c.byName[name]
				if n == nil {
					t.Fatalf("no node %s", name)
				}
				doc := show(c, n, strings.TrimSpace(d.Input))
				if doc == nil {
					return "unknown command\n"
				}
				b, err := yaml.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}
