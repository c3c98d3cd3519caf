package plots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// HealthPerRun draws each run's lowest series on one figure; runs without health changes
// have no line, and none at all is ErrNothingToPlot.
func TestHealthPerRun(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if errors.Join(os.Mkdir(a, 0o755), os.Mkdir(b, 0o755)) != nil {
		t.Fatal("mkdir")
	}
	csv := "time_ns,node,kind,nid,old,new,cause\n1000000000,c,ni,10.0.0.1@o2ib,1000,900,failure\n2000000000,c,peer_ni,10.0.0.2@o2ib,1000,0,failure\n"
	if err := os.WriteFile(filepath.Join(a, "health.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "health.csv"), []byte("time_ns,node,kind,nid,old,new,cause\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "f.png")
	if err := HealthPerRun([]string{a, b}, []string{"2.12", "2.15"}, "t", out); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("figure: %v", err)
	}
	if err := HealthPerRun([]string{b}, []string{"2.15"}, "t", out); !errors.Is(err, ErrNothingToPlot) {
		t.Fatalf("no health change: %v", err)
	}
}
