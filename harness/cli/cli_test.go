package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/report"
	"github.com/webbench/webbench/harness/results"
)

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeMatrix(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "t"), 0o755)
	os.WriteFile(filepath.Join(dir, "t", "Dockerfile"), []byte("ARG DEBIAN_IMAGE\nFROM ${DEBIAN_IMAGE}\n"), 0o644)
	path := filepath.Join(dir, "matrix.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const small = `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 2s}
cpus: [1, 4]
connections: [8]
targets:
  t: {build: t, port: 8080}
scenarios:
  s: {path: /, expect: {status: 200}}
`

// Invalid input exits 2 with every problem listed, and run never reaches
// Docker (it would fail with exit 1 on a machine without one).
// The commands read build times from a record of the tests' own, never
// from the user's.
func TestMain(m *testing.M) {
	times, err := os.MkdirTemp("", "webbench-cli-times")
	if err != nil {
		panic(err)
	}
	os.Setenv(buildtime.PathVar, filepath.Join(times, "build-times.json"))
	code := m.Run()
	os.RemoveAll(times)
	os.Exit(code)
}

func TestInvalidMatrixExits2(t *testing.T) {
	bad := strings.Replace(strings.Replace(small, "duration: 2s", "duration: 2x", 1), "connections: [8]", "connections: [0]", 1)
	path := writeMatrix(t, bad)
	for _, cmd := range []string{"plan", "run"} {
		code, _, stderr := runMain(cmd, "-f", path)
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", cmd, code, ExitUsage)
		}
		for _, want := range []string{"matrix.yaml:3:18: load.duration: invalid duration", "matrix.yaml:5:15: connections[0]: must be at least 1"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr %q lacks %q", cmd, stderr, want)
			}
		}
		// A bad value is one problem, not a cascade of "missing" ones.
		if n := strings.Count(stderr, "matrix.yaml:"); n != 2 {
			t.Errorf("%s: %d problems reported, want 2:\n%s", cmd, n, stderr)
		}
	}
}

func TestPlan(t *testing.T) {
	path := writeMatrix(t, small)
	code, out, _ := runMain("plan", "-f", path)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "t/s/1cpu/c8") || !strings.Contains(out, "2 cells") {
		t.Errorf("plan output:\n%s", out)
	}
	// 4 target cores + 1 for bombardier never fit the small machines tests run on.
	if !strings.Contains(out, "t/s/4cpu/c8") || (!strings.Contains(out, "skip:") && !strings.Contains(out, "0 skipped")) {
		t.Errorf("plan output:\n%s", out)
	}
	if code, _, stderr := runMain("plan", "-f", path, "--only", "nothing"); code != ExitUsage || !strings.Contains(stderr, "selects no cell") {
		t.Errorf("--only nothing: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runMain("plan", "-f", path, "--profile", "nope"); code != ExitUsage || !strings.Contains(stderr, `no profile "nope"`) {
		t.Errorf("--profile nope: exit %d, %q", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"report"}, {"run", "--network", "overlay"}, {"plan", "--bogus"}} {
		if code, _, _ := runMain(args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	if code, _, _ := runMain("report", t.TempDir()); code != ExitUsage {
		t.Errorf("report of a folder without results.json: exit %d", code)
	}
}

func TestDefaultLabel(t *testing.T) {
	for _, tc := range []struct {
		n     int
		model string
		want  string
	}{
		{2, "AMD EPYC", "2c-amd-epyc"},
		{2, "Intel(R) Xeon(R) Processor", "2c-intel-xeon"},
		{8, "Intel(R) Core(TM) i7-10510U CPU @ 1.80GHz", "8c-intel-core-i7-10510u-cpu-1-80ghz"},
	} {
		if got := DefaultLabel(tc.n, tc.model); got != tc.want {
			t.Errorf("DefaultLabel(%d, %q) = %q, want %q", tc.n, tc.model, got, tc.want)
		}
	}
}

// -h prints a command's usage, flags spelled as the README spells them, and
// exits 0; an argument a command does not take is an error, exit 2.
func TestHelpAndArguments(t *testing.T) {
	for _, cmd := range []string{"plan", "run", "report", "compare", "index", "clean"} {
		code, out, _ := runMain(cmd, "-h")
		if code != ExitOK || !strings.HasPrefix(out, "usage: harness "+cmd) {
			t.Errorf("%s -h: exit %d, output %q", cmd, code, out)
		}
	}
	if _, out, _ := runMain("run", "-h"); !strings.Contains(out, "--resume") || !strings.Contains(out, "  -f ") {
		t.Errorf("run -h spells flags wrongly:\n%s", out)
	}
	for _, args := range [][]string{{"plan", "extra"}, {"clean", "x"}, {"index", "a", "b"}, {"clean", "--force"}} {
		if code, _, _ := runMain(args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	path := writeMatrix(t, small)
	if code, _, stderr := runMain("plan", "-f", path, "--max-cells", "1"); code != ExitUsage || !strings.Contains(stderr, "expands to 2 cells, more than --max-cells 1") {
		t.Errorf("--max-cells 1: exit %d, %q", code, stderr)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		if code, _, stderr := runMain("plan", "-f", fifo); code != ExitUsage || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("a FIFO as the matrix: exit %d, %q", code, stderr)
		}
	}
}

// plan says, without asking Docker, which targets will be skipped unless
// the engine has or can pull a base image that has no local stand-in, and
// what it will build.
func TestPlanNamesRiskyImages(t *testing.T) {
	path := writeMatrix(t, strings.Replace(small, "images: {debian: debian:bookworm-slim}", "images: {debian: debian:bookworm-slim, sdk: mcr.example/sdk:10}", 1)+"")
	dir := filepath.Dir(path)
	os.MkdirAll(filepath.Join(dir, "n"), 0o755)
	os.WriteFile(filepath.Join(dir, "n", "Dockerfile"), []byte("ARG SDK_IMAGE\nFROM ${SDK_IMAGE}\n"), 0o644)
	text, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(text), "targets:\n", "targets:\n  net: {build: n, port: 8080}\n", 1)), 0o644)
	code, out, stderr := runMain("plan", "-f", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "net ") || !strings.Contains(out, "skipped unless the engine has or can pull mcr.example/sdk:10 (no local stand-in)") {
		t.Errorf("plan does not name the risky image:\n%s", out)
	}
	if strings.Contains(out, "t                          2 cell(s), 1 image(s) to build;") || !strings.Contains(out, "building them takes about") {
		t.Errorf("plan output:\n%s", out)
	}
	// A base named directly in FROM is said per target, with the fix.
	os.WriteFile(filepath.Join(dir, "t", "Dockerfile"), []byte("FROM python:3.12-slim\n"), 0o644)
	code, out, stderr = runMain("plan", "-f", path)
	if code != ExitOK || !strings.Contains(out, "its Dockerfile names python:3.12-slim in FROM, not under images:") ||
		!strings.Contains(out, "declare it under images: (python: python:3.12-slim) and write ARG PYTHON_IMAGE / FROM ${PYTHON_IMAGE}") {
		t.Errorf("plan does not name the undeclared base: exit %d\n%s%s", code, out, stderr)
	}
}

// The help is generated from the flag sets: every flag a command parses is
// in `harness -h` and in its own -h, and the README's "Commands" block is
// the generated synopses, so neither can leave a flag out.
func TestHelpCannotDrift(t *testing.T) {
	_, top, _ := runMain("-h")
	for _, c := range commands {
		if c.run == nil {
			continue
		}
		_, own, _ := runMain(c.name, "-h")
		c.flagSet().VisitAll(func(f *flag.Flag) {
			if !strings.Contains(top, dash(f.Name)+" ") && !strings.Contains(top, dash(f.Name)+"]") {
				t.Errorf("harness -h lacks %s %s", c.name, dash(f.Name))
			}
			if !strings.Contains(own, "  "+dash(f.Name)) {
				t.Errorf("harness %s -h lacks %s", c.name, dash(f.Name))
			}
		})
	}
	for _, want := range []string{"--max-cells N", "--target-engine E", "--loadgen-engine E", "--target-address ADDR", "--link TEXT", "clean [--all] [--engine E]"} {
		if !strings.Contains(top, want) {
			t.Errorf("harness -h lacks %q:\n%s", want, top)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "## Commands\n\n```\n"+Synopses()+"```\n") {
		t.Errorf("README.md's Commands block is not the generated synopses; it should read:\n%s", Synopses())
	}
}

// An unknown flag names the nearest known one, exit 2, with no usage dump.
func TestUnknownFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--onyl", "x"}, "harness run: unknown flag --onyl (did you mean --only?)\n"},
		{[]string{"plan", "--max-cell", "3"}, "harness plan: unknown flag --max-cell (did you mean --max-cells?)\n"},
		{[]string{"clean", "--zzzzzz"}, "harness clean: unknown flag --zzzzzz\n"},
		{[]string{"run", "--seed", "x"}, `harness run: flag --seed: invalid value "x": parse error` + "\n"},
	} {
		code, out, stderr := runMain(tc.args...)
		if code != ExitUsage || !strings.HasPrefix(stderr, tc.want) || out != "" || strings.Contains(stderr, "usage:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, stderr, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	old := Version
	defer func() { Version = old }()
	Version = "v1.2.3-4-gabcdef"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if code, out, _ := runMain(args...); code != ExitOK || out != "v1.2.3-4-gabcdef\n" {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

// harness new writes a target that serves the default scenarios and prints
// the entry to add, with the images keys the matrix lacks; it never
// overwrites a folder and refuses a name that is no image reference.
func TestNewTarget(t *testing.T) {
	dir := t.TempDir()
	path := writeMatrix(t, small)
	for _, lang := range []string{"go", "node", "python"} {
		code, out, stderr := runMain("new", "my-"+lang, "--lang", lang, "--dir", dir, "-f", path)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", lang, code, stderr)
		}
		df, err := os.ReadFile(filepath.Join(dir, "my-"+lang, "Dockerfile"))
		if err != nil || !strings.Contains(string(df), "FROM ${") || strings.Contains(string(df), "{{") {
			t.Errorf("%s: Dockerfile %q, %v", lang, df, err)
		}
		if !strings.Contains(out, "  my-"+lang+":\n    build: ") || !strings.Contains(out, "scenarios: [plaintext, json]") {
			t.Errorf("%s: no matrix entry in:\n%s", lang, out)
		}
		// small declares debian only.
		if lang == "go" && (!strings.Contains(out, "golang: golang:") || strings.Contains(out, "debian: debian:")) {
			t.Errorf("go: images to add wrong:\n%s", out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "my-go", "go.mod")); err != nil {
		t.Errorf("go.mod not written: %v", err)
	}
	for _, args := range [][]string{
		{"new", "my-go", "--dir", dir},    // exists
		{"new", "Bad_Name", "--dir", dir}, // not an image name
		{"new", "a-", "--dir", dir},
		{"new", "x", "--lang", "cobol", "--dir", dir},
		{"new"},
	} {
		if code, _, _ := runMain(args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// new reads -f for the entry it prints: a file that is no matrix (a
// device, a folder, a file that does not parse) is refused, naming it,
// before any target folder is written; a matrix yet to be written is fine.
func TestNewRefusesWhatIsNoMatrix(t *testing.T) {
	dir := t.TempDir()
	notYaml := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notYaml, []byte("just some notes\n"), 0o644)
	for _, file := range []string{"/dev/zero", t.TempDir(), notYaml} {
		code, out, stderr := runMain("new", "mine", "--dir", dir, "-f", file)
		if code != ExitUsage || !strings.Contains(stderr, "-f "+file) || strings.Contains(out, "Add it under targets:") {
			t.Errorf("-f %s: exit %d, want %d naming it:\n%s%s", file, code, ExitUsage, stderr, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "mine")); err == nil {
			t.Fatalf("-f %s: the target folder was written before -f was refused", file)
		}
	}
	missing := filepath.Join(t.TempDir(), "matrix.yaml")
	if code, out, stderr := runMain("new", "mine", "--dir", dir, "-f", missing); code != ExitOK || !strings.Contains(out, "Add it under targets: in "+missing) {
		t.Errorf("-f of a matrix yet to be written: exit %d: %s%s", code, stderr, out)
	}
}

// A label names a folder under results/: one that would write elsewhere or
// need escaping is refused before any Docker call.
func TestLabelIsAFolderName(t *testing.T) {
	path := writeMatrix(t, small)
	for _, label := range []string{"../../escaped", "a/b", ".hidden", "a|b", strings.Repeat("x", 101)} {
		if code, _, stderr := runMain("run", "-f", path, "--label", label); code != ExitUsage || !strings.Contains(stderr, "--label") {
			t.Errorf("--label %q: exit %d, %q", label, code, stderr)
		}
	}
	if !validLabel.MatchString(DefaultLabel(2, "Intel(R) Xeon(R) Processor")) || !validLabel.MatchString("two-engines-netns") {
		t.Error("ordinary labels refused")
	}
}

// compare --fail-on-regression exits 1 naming what it fails on by kind:
// a 60% slowdown of the laptop run, a run whose every cell failed, a cell
// of the VM's missing from the laptop's; it exits 0 on a 20% slowdown
// (within the default drift allowance, since neither run has a control)
// and says what it judged by.
// --format json prints the comparison with its problems and regressions.
func TestCompareFailOnRegression(t *testing.T) {
	vm, laptop := "../compare/testdata/vm-16c", "../compare/testdata/laptop-4c"
	variant := func(name string, edit func(*results.Cell)) string {
		run, err := results.Read(laptop)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range run.Cells {
			edit(c)
		}
		dir := filepath.Join(t.TempDir(), name)
		if err := results.Write(dir, run); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	slow := variant("slow", func(c *results.Cell) { slowDown(c, 0.4) })
	code, out, errs := runMain("compare", laptop, slow, "--fail-on-regression", "--format", "json")
	var c struct {
		Runs     []string `json:"runs"`
		Problems []struct {
			Kind string `json:"kind"`
		} `json:"problems"`
		Regressions []struct {
			Cell string `json:"cell"`
		} `json:"regressions"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || code != ExitFailed || len(c.Runs) != 2 || len(c.Regressions) != 3 || !strings.Contains(errs, "regressed: mono-httplistener/plaintext/1cpu/c512") {
		t.Errorf("60%% slower: exit %d, %+v (%v), stderr %q", code, c, err, errs)
	}
	failed := variant("failed", func(c *results.Cell) { c.Status, c.Trials, c.Reason = results.Failed, nil, "exited" })
	if code, _, errs := runMain("compare", laptop, failed, "--fail-on-regression"); code != ExitFailed || !strings.Contains(errs, "nothing-measured: ") {
		t.Errorf("every cell failed: exit %d, stderr %q", code, errs)
	}
	near := variant("near", func(c *results.Cell) { slowDown(c, 0.8) })
	if code, _, errs := runMain("compare", laptop, near, "--fail-on-regression"); code != ExitOK || !strings.Contains(errs, "the gate passes") {
		t.Errorf("20%% slower: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runMain("compare", vm, laptop, "--fail-on-regression"); code != ExitFailed || !strings.Contains(errs, "missing: go-fasthttp/plaintext/1cpu/c512") {
		t.Errorf("VM to laptop: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runMain("compare", laptop, failed); code != ExitOK {
		t.Errorf("without --fail-on-regression: exit %d", code)
	}
	if code, _, errs := runMain("compare", laptop, vm, "--machine-floor", laptop+","+vm); code != ExitUsage || !strings.Contains(errs, "--machine-floor") {
		t.Errorf("machine floor from two machines: exit %d, stderr %q", code, errs)
	}
}

// plan and report print JSON on stdout with --format json.
func TestFormatJSON(t *testing.T) {
	file := writeMatrix(t, "version: 1\nimages: {debian: debian:bookworm-slim}\nload: {duration: 1s}\nconnections: [8]\nrate: [0, 1000]\ntargets: {a: {build: t, port: 8080}}\nscenarios: {p: {path: /, expect: {status: 200}}}\n")
	code, out, errs := runMain("plan", "-f", file, "--format", "json")
	var p struct {
		Cells []struct {
			ID, Generator string
		} `json:"cells"`
		Runnable int `json:"runnable"`
	}
	if err := json.Unmarshal([]byte(out), &p); code != ExitOK || err != nil || len(p.Cells) != 2 || p.Cells[1].Generator != "openloop" {
		t.Errorf("plan: exit %d, %v, %+v, stderr %q:\n%s", code, err, p, errs, out)
	}
	code, out, errs = runMain("report", "../compare/testdata/vm-16c", "--format", "json")
	var r struct {
		Scenarios []struct {
			Name string `json:"name"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &r); code != ExitOK || err != nil || len(r.Scenarios) == 0 {
		t.Errorf("report: exit %d, %v, %+v, stderr %q", code, err, r, errs)
	}
}

// A quick try with --only, or with settings given on the command line,
// writes beside, not over, the run of every cell.
func TestLabelFor(t *testing.T) {
	type in struct {
		profile, only string
		set           bool
	}
	cases := map[in]string{
		{"", "", false}:                         "2c-x",
		{QuickProfile, "", false}:               "2c-x",
		{"trials6", "", false}:                  "2c-x-trials6",
		{"", "go-nethttp", false}:               "2c-x-only",
		{"trials6", "go-nethttp,node-*", false}: "2c-x-trials6-only",
		{"", "", true}:                          "2c-x-set",
		{QuickProfile, "go-nethttp", true}:      "2c-x-set-only",
	}
	for in, want := range cases {
		if got := labelFor("2c-x", in.profile, in.only, in.set); got != want {
			t.Errorf("labelFor(%q, %q, %v) = %q, want %q", in.profile, in.only, in.set, got, want)
		}
	}
}

// A run that measured nothing exits apart from one that measured.
func TestOutcome(t *testing.T) {
	cases := []struct {
		ok, failed, skipped, want int
	}{{2, 0, 1, ExitOK}, {2, 1, 0, ExitFailed}, {0, 0, 3, ExitNothing}, {0, 1, 3, ExitFailed}}
	for _, c := range cases {
		got := ExitCode(outcome(map[results.Status]int{results.OK: c.ok, results.Failed: c.failed, results.Skipped: c.skipped}))
		if got != c.want {
			t.Errorf("%+v: exit %d", c, got)
		}
	}
}

// A FIFO as the index hung index, and a charts/ linked elsewhere had
// report delete the *.svg files there: both are refused.
func TestIndexAndReportRefuseWhatHangsOrDestroys(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "README.md"), 0o644); err != nil {
		t.Skip(err)
	}
	if code, _, stderr := runMain("index", dir); code != ExitUsage || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("index on a FIFO: exit %d, %s", code, stderr)
	}
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	data, err := os.ReadFile(filepath.Join("..", "compare", "testdata", "laptop-4c", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(run, "results.json"), data, 0o644)
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	os.WriteFile(filepath.Join(elsewhere, "keep.svg"), []byte("<svg/>"), 0o644)
	os.Symlink(elsewhere, filepath.Join(run, "charts"))
	if code, _, stderr := runMain("report", run); code != ExitUsage || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("report with a linked charts/: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "keep.svg")); err != nil {
		t.Errorf("report deleted a file through the link: %v", err)
	}
}

// A run past a cap of the report (without the caps, 200,000 cells made a
// 61 MB README) is rendered within it, and report warns with what was left out,
// which the README says at its top.
func TestReportWarnsCapped(t *testing.T) {
	run, err := results.Read(filepath.Join("..", "compare", "testdata", "laptop-4c"))
	if err != nil {
		t.Fatal(err)
	}
	cells := run.Cells
	run.Cells = nil
	for i := range report.DefaultCaps.Cells + 1 {
		c := *cells[i%len(cells)]
		c.Target = fmt.Sprintf("%s-%d", c.Target, i)
		run.Cells = append(run.Cells, &c)
	}
	dir := t.TempDir()
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain("report", dir)
	want := fmt.Sprintf("warning: %s is capped: 1 of the run's %s cells are left out", filepath.Join(dir, "README.md"), numfmt.Count(int64(len(run.Cells))))
	if code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("report: exit %d, stderr %q; want it to warn %q", code, stderr, want)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(md), "**Not all of this run is shown.**") {
		t.Error("the README does not say what was left out")
	}
}

// The first SIGTERM (sent through the channel OnSignals is given, as main
// passes its notified signals) stops report: exit 130, the folder as it
// was; a second exits 130 at once. Before, report ignored the first and
// rendered on until a second killed it.
func TestReportStopsOnFirstSignal(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "report", "testdata", "run", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644)
	sigs := make(chan os.Signal, 2)
	exited := make(chan int, 1)
	var said bytes.Buffer
	ctx := OnSignals(context.Background(), sigs, &said, func(code int) { exited <- code })
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	for _, format := range []string{"md", "csv"} {
		var out, errb bytes.Buffer
		if code := Main(ctx, []string{"report", "--format", format, dir}, &out, &errb); code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("report --format %s after SIGTERM: exit %d, stderr %q; want 130, interrupted", format, code, errb.String())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("an interrupted report wrote %v", left)
	}
	sigs <- syscall.SIGTERM
	if code := <-exited; code != ExitInterrupted || !strings.Contains(said.String(), "interrupt") {
		t.Errorf("second signal: exit %d, said %q", code, said.String())
	}
}

// plan lists each service's own cores beside the cell's (plan.New says,
// and its tests check, what a machine with too few cores did instead).
func TestPlanOwnCores(t *testing.T) {
	c := matrix.Cell{Key: cellid.Key{Target: "d", Scenario: "s", CPUs: 1, Connections: 8}, Own: map[string]cpuset.Set{"db": {1}, "cache": {2, 3}}}
	if got, want := ownCores(c), ", cache cpus 2-3, db cpus 1"; got != want {
		t.Errorf("own cores %q, want %q", got, want)
	}
	if got := serviceSets(c); len(got) != 2 || got["db"] != "1" || got["cache"] != "2-3" {
		t.Errorf("service sets %v, want db 1 and cache 2-3", got)
	}
	if ownCores(matrix.Cell{}) != "" || serviceSets(matrix.Cell{}) != nil {
		t.Error("a cell without services of their own has own cores")
	}
}
