package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceOnlyOwnRunDirectories: Create refuses, and leaves untouched, anything at the run
// directory's path that is not an lnetsim run directory of the same scenario; it replaces an
// empty directory, a run of the same scenario and a run whose summary.json is damaged.
func TestReplaceOnlyOwnRunDirectories(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, files map[string]string) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, text := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	plain := filepath.Join(base, "plain")
	if err := os.WriteFile(plain, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(mk("target", nil), link); err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{
		plain: "exists and is not a directory",
		link:  "exists and is not a directory",
		mk("user", map[string]string{SummaryFile: `{"scenario":"x"}`, "notes.txt": "mine"}): `holds "notes.txt", which lnetsim does not write there`,
		mk("nosummary", map[string]string{"health.png": "mine"}):                            "has no summary.json",
		mk("other", map[string]string{SummaryFile: `{"scenario":"y"}`}):                     `holds a run of scenario "y", not "x"`,
	}
	for dir, why := range refused {
		_, err := Create(dir, "x")
		want := "results: " + dir + " " + why + ": refusing to replace it (choose another --out, or move it away)"
		if err == nil || err.Error() != want {
			t.Errorf("Create(%s) = %v, want %q", dir, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "user", "notes.txt")); string(b) != "mine" {
		t.Fatal("a refused directory changed")
	}
	for _, dir := range []string{mk("empty", nil), mk("same", map[string]string{SummaryFile: `{"scenario":"x"}`, "latency.svg": ""}),
		mk("damaged", map[string]string{SummaryFile: `{"scen`, MessagesFile: "id"})} {
		writeRun(t, dir)
		entries, _ := os.ReadDir(dir)
		if len(entries) != 6 {
			t.Errorf("%s: %d files after the run, want its 6", dir, len(entries))
		}
	}
	// A directory that appears while the run is written is checked again at Commit.
	late := filepath.Join(base, "late")
	r, err := Create(late, "x")
	if err != nil {
		t.Fatal(err)
	}
	mk("late", map[string]string{"notes.txt": "mine"})
	want := "results: " + late + ` holds "notes.txt", which lnetsim does not write there: refusing to replace it (choose another --out, or move it away)`
	if err := r.Commit(); err == nil || err.Error() != want {
		t.Fatalf("Commit over a directory made meanwhile: %v, want %q", err, want)
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 10 {
		t.Fatalf("%d entries in the parent, want the 10 made (no temporary directory left): %v", len(entries), entries)
	}
}
