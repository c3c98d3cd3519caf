package scenarios

import (
	"encoding/json"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	name := os.Getenv("DUMP")
	if name == "" {
		t.Skip()
	}
	var s *Scenario
	var err error
	if _, _, ok := Builtin(name); ok {
		s, err = LoadBuiltin(name)
	} else {
		s, err = LoadFile(name)
	}
	if err != nil {
		t.Log(err)
		return
	}
	b, _ := json.MarshalIndent(s.Members, "", " ")
	t.Log(string(b))
	for _, m := range s.Members {
		t.Logf("%s global %+v", m.Name, *m.Global)
		for _, ni := range m.NIs {
			t.Logf("  %s tun %+v lnd %+v", ni.NID, *ni.Tunables, *ni.LND)
		}
	}
	t.Log(s.Hash)
}
