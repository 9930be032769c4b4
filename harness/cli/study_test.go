package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyStudy copies a committed study into a temporary folder.
func copyStudy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "003-fastcgi")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "studies", "003-fastcgi"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// study --check refuses, naming the path, a README.md that is no regular
// file: a FIFO hung it (the read waits for a writer that never comes), a
// link to /dev/zero filled the memory.
func TestStudyCheckRefusesWhatHangsOrFloods(t *testing.T) {
	dir := copyStudy(t)
	readme := filepath.Join(dir, "README.md")
	os.Remove(readme)
	if err := syscall.Mkfifo(readme, 0o644); err != nil {
		t.Skip(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runMain("study", "--check", dir)
		done <- result{code, stderr}
	}()
	var got result
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute): // not a timing: only so that a hang fails rather than stalls the suite
		t.Error("study --check waited on a FIFO")
		if w, err := os.OpenFile(readme, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // the blocked reader sees the end of the file
		}
		got = <-done
	}
	if got.code != ExitUsage || !strings.Contains(got.stderr, readme+": a named pipe (FIFO), not a regular file") {
		t.Errorf("a FIFO as README.md: exit %d, %s", got.code, got.stderr)
	}

	os.Remove(readme)
	os.Symlink("/dev/zero", readme)
	if code, _, stderr := runMain("study", "--check", dir); code != ExitUsage || !strings.Contains(stderr, readme+": a device, not a regular file") {
		t.Errorf("/dev/zero as README.md: exit %d, %s", code, stderr)
	}
}

// A README.md that is a symbolic link is not written through, and the
// refusal names it (it read "cannot write to a symbolic link directly").
func TestStudyNamesALinkedREADME(t *testing.T) {
	dir := copyStudy(t)
	readme := filepath.Join(dir, "README.md")
	os.Rename(readme, filepath.Join(dir, "real.md"))
	os.Symlink("real.md", readme)
	if code, _, stderr := runMain("study", dir); code == 0 || !strings.Contains(stderr, readme+": ") || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("a linked README.md: exit %d, %s", code, stderr)
	}
}

// A hand-written not_testable_here that the runs contradict (they measured
// the claim) is an error of study.yaml: study --check prints every verdict
// and exits 2 naming the line. It rendered a README with the note before.
func TestStudyContradictedNote(t *testing.T) {
	dir := copyStudy(t)
	path := filepath.Join(dir, "study.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	claim := "  - id: c20-node-no-failed-requests\n"
	edited := strings.Replace(string(data), claim, claim+"    not_testable_here: \"said by hand\"\n", 1)
	if edited == string(data) {
		t.Fatalf("no claim %q in %s", claim, path)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain("study", "--check", dir)
	if code != ExitUsage || !strings.Contains(stderr, "not_testable_here") || !strings.Contains(stdout, "c20-node-no-failed-requests: ") {
		t.Errorf("exit %d, stdout %q…, stderr %q; want the verdicts printed and exit %d naming not_testable_here", code, stdout[:min(len(stdout), 200)], stderr, ExitUsage)
	}
}
