package cli

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// planJSON runs plan --format json with args and returns its cells' ids.
func planJSON(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, stderr := runMain(append([]string{"plan", "--format", "json"}, args...)...)
	var p struct {
		Cells []struct{ ID string } `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &p); code != ExitOK || err != nil {
		t.Fatalf("plan %v: exit %d, %v, stderr %q", args, code, err, stderr)
	}
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.ID)
	}
	return ids
}

// Each settings flag changes what plan expands and says, over the profile.
func TestSettingsFlags(t *testing.T) {
	path := writeMatrix(t, strings.Replace(small, "cpus: [1, 4]", "cpus: [1]", 1)+
		"profiles:\n  p: {load: {trials: 4, warmup: 1s}, connections: [16]}\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"t/s/1cpu/c8"}},
		{[]string{"--profile", "p"}, []string{"t/s/1cpu/c16"}},
		{[]string{"--profile", "p", "--connections", "32,64"}, []string{"t/s/1cpu/c32", "t/s/1cpu/c64"}},
		{[]string{"--set", "connections=[2, 3]"}, []string{"t/s/1cpu/c2", "t/s/1cpu/c3"}},
		{[]string{"--connections", "5", "--set", "connections=[6]"}, []string{"t/s/1cpu/c6"}}, // a later one wins
		{[]string{"--rate", "0,1000"}, []string{"t/s/1cpu/c8", "t/s/1cpu/c8/r1000/openloop"}},
		{[]string{"--protocol", "http1,https"}, []string{"t/s/1cpu/c8"}}, // t speaks only http1
	} {
		if got := planJSON(t, append([]string{"-f", path}, c.args...)...); !slices.Equal(got, c.want) {
			t.Errorf("plan %v: cells %q, want %q", c.args, got, c.want)
		}
	}
	code, out, stderr := runMain("plan", "-f", path, "--profile", "p", "--trials", "2", "--duration", "5s")
	if code != ExitOK || !strings.Contains(out, "2 trial(s) of 5s after 1s warm-up") {
		t.Errorf("--trials 2 --duration 5s over profile p: exit %d, stderr %q:\n%s", code, stderr, out)
	}
	code, _, stderr = runMain("plan", "-f", path, "--protocol", "https")
	if code != ExitUsage || !strings.Contains(stderr, "matrix.yaml: the matrix expands to no cell (with --protocol https)") {
		t.Errorf("--protocol https, which no target speaks: exit %d, stderr %q", code, stderr)
	}
}

// A bad setting exits 2 before any engine is asked, named by its flag and
// key, with the message the matrix file would get.
func TestSettingsFlagsRefused(t *testing.T) {
	// An engine that is not there: a run that got past the settings
	// would exit 1 dialling it, never measure.
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	path := writeMatrix(t, small)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "load.trialz=2"}, "harness: --set load.trialz=2: load.trialz: unknown key (known: aggregate, duration,"},
		{[]string{"--set", "targets.t.port=1"}, "harness: --set targets.t.port=1: targets: unknown key (known: connections,"},
		{[]string{"--set", "load.trials=x"}, `harness: --set load.trials=x: load.trials: want an integer, got "x"`},
		{[]string{"--set", "connections=64"}, `harness: --set connections=64: connections: want a list, got "64"`},
		{[]string{"--set", "load.trials=1001"}, "harness: --set load.trials=1001: load.trials: must be at most 1000, got 1001"},
		{[]string{"--trials", "0"}, "harness: --trials 0: load.trials: must be at least 1, got 0"},
		{[]string{"--duration", "10"}, `harness: --duration 10: load.duration: invalid duration "10"`},
		{[]string{"--protocol", "http3"}, `harness: --protocol http3: protocol[0]: want "http1" or "https" or "h2" or "h2c", got "http3"`},
		{[]string{"--rate", "-1"}, "harness: --rate -1: rate[0]: must be at least 0, got -1"},
		{[]string{"--connections", "8,8"}, `harness: --connections 8,8: connections[1]: duplicate value "8"`},
		{[]string{"--loadgens", "1,2"}, "harness: --loadgens 1,2: loadgens[1]: 2 generator engines asked, but this run has one"},
		{[]string{"--loadgens", "0"}, "harness: --loadgens 0: loadgens[0]: must be at least 1, got 0"},
		{[]string{"--set", "trials"}, `harness run: flag --set: invalid value "trials": want KEY=VALUE`},
	} {
		for _, cmd := range []string{"plan", "run"} {
			want := strings.Replace(c.want, "harness run:", "harness "+cmd+":", 1)
			code, _, stderr := runMain(append([]string{cmd, "-f", path}, c.args...)...)
			if code != ExitUsage || !strings.HasPrefix(stderr, want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", cmd, c.args, code, stderr, want)
			}
		}
	}
}

// A resumed run applies again the settings it was given, then those given
// now, which win; a bad one recorded is named at its results.json.
func TestResumeAppliesRecordedSettings(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock")) // as above
	run, err := results.Read("../report/testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run.FinishedAt, run.Matrix.Set = nil, []string{"load.trials=2", "connections=[8]"}
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	var o runOpts
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	o.register(fs)
	if err := fs.Parse([]string{"--resume", dir, "--trials", "3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.resumed(fs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range o.mf.set {
		got = append(got, s.Flag)
	}
	rec := filepath.Join(dir, "results.json") + ": set "
	if want := []string{rec + "load.trials=2", rec + "connections=[8]", "--trials 3"}; !slices.Equal(got, want) {
		t.Errorf("settings %q, want %q", got, want)
	}
	run.Matrix.Set = []string{"load.trials=0"}
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain("run", "--resume", dir, "-f", "../../matrix.yaml"); code != ExitUsage || !strings.Contains(stderr, rec+"load.trials=0: load.trials: must be at least 1") {
		t.Errorf("a bad recorded setting: exit %d, stderr %q", code, stderr)
	}
}
