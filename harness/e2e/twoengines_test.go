package e2e

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// secondEngine is a second Docker engine on this machine, in a network
// namespace of its own joined to the host's by a veth pair: as far as the
// network goes, another machine at Addr whose engine listens on Host.
type secondEngine struct {
	Host, Addr string
	Data       string // its data root
}

// startSecondEngine starts a second dockerd inside a new network namespace
// with docker/engine2/netns-engine.sh (the README's recipe, with the first
// engine's storage driver), and has the script tear the engine, its mounts,
// the veth pair and the namespace down when the test ends, failed or not.
func startSecondEngine(t *testing.T) *secondEngine {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	if why := secondEngineMissing(); why != "" {
		if ci {
			t.Fatalf("CI=true and %s", why)
		}
		t.Skip(why)
	}
	e, err := secondEngineUp()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// secondEngineMissing says what this machine lacks to run a second engine
// ("" when nothing).
func secondEngineMissing() string {
	for _, tool := range []string{"ip", "nsenter", "dockerd", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "no " + tool + ": " + err.Error()
		}
	}
	if os.Geteuid() != 0 {
		return "a second engine needs root (network namespaces, dockerd)"
	}
	return ""
}

// The second engine's namespace number and folder, one per test process.
var (
	engine2N   = strconv.Itoa(os.Getpid()%200 + 20)
	engine2Dir = filepath.Join(os.TempDir(), "webbench-engine2-"+engine2N)
)

// secondEngineUp starts the second engine once per test process: TestMain
// starts it in the background, beside the first tests, and
// secondEngineDown stops it after the last.
var secondEngineUp = sync.OnceValues(func() (*secondEngine, error) {
	return netnsEngineUp("second", engine2N, engine2Dir)
})

// keptData is the data root (images, layers) the namespaced engine which
// keeps from one test process to the next, as another machine keeps its
// images: its stand-ins and load generator are then copied to it once,
// not in every run of the tests. It lies in the user's cache folder
// (delete webbench/e2e-engines there to free it); "" where there is none.
func keptData(which string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "webbench", "e2e-engines", which)
}

// dataInUse is netns-engine.sh's exit code when another engine runs on
// the data root it was given.
const dataInUse = 3

// netnsEngineScript is the README's recipe for an engine in a network
// namespace.
var netnsEngineScript = filepath.Join(repoDir, "docker", "engine2", "netns-engine.sh")

// netnsEngineUp starts the engine numbered n in namespace wbe2e<n>, its
// files under dir, its images kept (keptData) unless another engine runs
// on them (another test process's, or one a killed process left): then it
// starts empty. which names it in errors.
func netnsEngineUp(which, n, dir string) (*secondEngine, error) {
	fresh := filepath.Join(dir, "data")
	data := cmp.Or(keptData(which), fresh)
	var ee *exec.ExitError
	out, err := exec.Command(netnsEngineScript, "up", n, dir, data).Output()
	if errors.As(err, &ee) && ee.ExitCode() == dataInUse {
		data = fresh
		out, err = exec.Command(netnsEngineScript, "up", n, dir, data).Output()
	}
	if err != nil {
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s engine: %v: %s", which, err, ee.Stderr)
		}
		return nil, err
	}
	host := strings.TrimSpace(string(out))
	return &secondEngine{Host: host, Addr: strings.TrimSuffix(strings.TrimPrefix(host, "tcp://"), ":2375"), Data: data}, nil
}

// secondEngineDown stops the second engine if it was started, and says
// what it left: its namespace, its folder.
func secondEngineDown() error {
	e, _ := secondEngineUp()
	return netnsEngineDown("second", engine2N, engine2Dir, e)
}

// netnsEngineDown stops the engine numbered n (e, nil if it never came
// up) and says what it left.
func netnsEngineDown(which, n, dir string, e *secondEngine) error {
	args := []string{"down", n, dir}
	if e != nil {
		args = append(args, e.Data)
	}
	if out, err := exec.Command(netnsEngineScript, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("tearing the %s engine down: %v: %s", which, err, out)
	}
	if namespaceLeft(n) {
		return fmt.Errorf("namespace wbe2e%s left", n)
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s left", dir)
	}
	return nil
}

// namespaceLeft says whether namespace wbe2e<n> is still there.
func namespaceLeft(n string) bool {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "wbe2e"+n {
			return true
		}
	}
	return false
}

// The third engine's namespace number and folder: another number than the
// second's, from the process id as that one's is.
var (
	engine3N   = strconv.Itoa((os.Getpid()%200+100)%200 + 20)
	engine3Dir = filepath.Join(os.TempDir(), "webbench-engine3-"+engine3N)
)

// startThirdEngine starts a third engine as the second is started, in a
// namespace of its own that netns-engine.sh links to the second's: the
// two engines' containers reach each other as well as this machine's, as
// three machines on one LAN do. It is torn down when the test ends, failed
// or not, and the test fails if that leaves its namespace, its folder or
// the link's end in the second's namespace.
func startThirdEngine(t *testing.T) *secondEngine {
	t.Helper()
	var third *secondEngine
	t.Cleanup(func() {
		if err := netnsEngineDown("third", engine3N, engine3Dir, third); err != nil {
			t.Error(err)
		}
		out, err := exec.Command("nsenter", "--net=/var/run/netns/wbe2e"+engine2N, "ip", "-o", "link", "show").CombinedOutput()
		if err != nil || strings.Contains(string(out), "wbl") {
			t.Errorf("the link to the third engine is left in the second's namespace (%v): %s", err, out)
		}
	})
	third, err := netnsEngineUp("third", engine3N, engine3Dir)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(netnsEngineScript, "link", engine2N, engine3N).CombinedOutput(); err != nil {
		t.Fatalf("linking the second and third engines' namespaces: %v: %s", err, out)
	}
	return third
}

// giveBuilt gives the namespaced engine dst the images of targets that the
// main engine src already built, as `docker save | docker load` would
// (engine.CopyImage, through the Docker API's ImageSave and ImageLoad): an
// image is an image, and the build a test then asks of dst, from the same
// inputs, finds it (the harness builds nothing for a tag that carries its
// inputs' hash). What src has not built, or dst already has from the same
// inputs, is left alone. It returns the images copied, by tag.
func giveBuilt(ctx context.Context, t *testing.T, src, dst *engine.Engine, targets ...string) map[string]givenImage {
	t.Helper()
	given := map[string]givenImage{}
	for _, name := range targets {
		ref := "webbench/target-" + name + ":latest"
		id, have, ok, err := src.ImageLabels(ctx, ref)
		if err != nil || !ok || have[engine.LabelHash] == "" {
			continue // not built there: the run builds it
		}
		if _, there, ok, err := dst.ImageLabels(ctx, ref); err == nil && ok && there[engine.LabelHash] == have[engine.LabelHash] {
			continue // built there from the same inputs already (kept data)
		}
		if err := dst.CopyImage(ctx, src, ref); err != nil {
			t.Logf("giving engine %s the image %s (the run will build it): %v", dst.Name, ref, err)
			continue
		}
		given[ref] = givenImage{ID: id, Hash: have[engine.LabelHash]}
	}
	return given
}

// givenImage is an image giveBuilt copied: its id and the hash of the
// inputs it was built from.
type givenImage struct{ ID, Hash string }

func TestTwoEngines(t *testing.T) {
	eng := connect(t)
	t.Parallel() // beside TestRunLeavesTestsGreen, whose run is another process
	second := startSecondEngine(t)
	ctx := context.Background()
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	// One trial a cell: what crosses the link is asserted, not figures
	// (interleaved rounds are TestRunMatrix's). Warm-up is covered by
	// TestRunLeavesTestsGreen (quick profile).
	file := oneTrial(t, writeMatrix(t, "shared", "0", "node-http"))
	// Its plaintext over HTTPS too: the certificate must name the targets'
	// machine's address, and reach a container on a remote engine.
	// And by h2load and wrk beside bombardier: other generators across the link.
	withTLS := strings.Replace(readFile(t, file), "cpus: [1]", "cpus: [1]\nprotocol: [http1, https]\ngenerator: [bombardier, h2load, wrk]", 1)
	withTLS = strings.Replace(withTLS, "    port: 8080", "    port: 8080\n    protocols: [http1, https]", 1)
	if err := os.WriteFile(file, []byte(withTLS), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// The first run copies the load generator to the second engine, which
	// may keep one from an earlier test process: the runs after it must
	// find it there (below).
	dockerCLI(ctx, second.Host, "image", "rm", "--force", "webbench/loadgen:latest")
	given := giveBuilt(ctx, t, eng, eng2, "node-http")
	run := runOnEngines(ctx, t, []*engine.Engine{eng, eng2}, out, "run", "-f", file, "--label", "e2e-two", "--only", "node-http/plaintext",
		"--target-engine", second.Host, "--link", "veth pair between two network namespaces of one machine")
	env := run.Environment
	tg, ok1 := env.Machine(results.RoleTarget)
	lg, ok2 := env.Machine(results.RoleLoadgen)
	if !ok1 || !ok2 || tg.Host != second.Host || tg.Address != second.Addr || tg.OnlineCPUs < 1 || tg.CPUModel == "" || tg.CPUModel == "unknown" ||
		lg.Engine != "default" || lg.OnlineCPUs < 1 || lg.DockerVersion == "" {
		t.Errorf("machines not recorded: %+v", env.Machines)
	}
	if env.NetworkMode != "host" || !strings.Contains(env.Link, "veth") {
		t.Errorf("network mode %q, link %q", env.NetworkMode, env.Link)
	}
	if len(run.Ceilings) == 0 || run.Ceilings[0].RPS <= 0 {
		t.Errorf("no ceiling measured across the engines: %+v", run.Ceilings)
	}
	for _, ce := range run.Ceilings {
		if ce.RPS <= 0 || ce.Error != "" {
			t.Errorf("ceiling across the engines: %+v", ce)
		}
	}
	cells := cellsByID(run)
	for _, id := range []string{"node-http/plaintext/1cpu/c16", "node-http/plaintext/1cpu/c16/https",
		"node-http/plaintext/1cpu/c16/h2load", "node-http/plaintext/1cpu/c16/h2load/https",
		"node-http/plaintext/1cpu/c16/wrk", "node-http/plaintext/1cpu/c16/wrk/https"} {
		c := cells[id]
		if c == nil || c.Status != results.OK || len(c.Trials) != 1 || c.Trials[0].RPS <= 0 || c.Trials[0].TargetCPUCores <= 0 {
			t.Errorf("%s: %+v", id, c)
			continue
		}
		// Built on, and so run from, the second engine.
		if _, _, ok, err := eng2.ImageLabels(ctx, c.Image.ID); err != nil || !ok {
			t.Errorf("%s: image %s is not on the second engine (%v)", id, c.Image.ID, err)
		}
	}
	// The target's image given to the second engine is the one its cells
	// ran on: loaded, not built again (a build makes an image of another
	// id, and writes its steps to the run's build log). Unless the run
	// asked for other inputs than the main engine's build had (another
	// base image): then the build is due.
	ref, c := "webbench/target-node-http:latest", cells["node-http/plaintext/1cpu/c16"]
	if given[ref].ID != "" && c != nil && c.Image != nil { // a cell without its image is reported above
		_, labels, _, _ := eng2.ImageLabels(ctx, c.Image.ID)
		log, err := os.ReadFile(filepath.Join(out, "logs", "build-node-http.log"))
		switch {
		case labels[engine.LabelHash] != given[ref].Hash:
			t.Logf("%s given to the second engine, but the run built it from other inputs than the main engine's", ref)
		case c.Image.ID != given[ref].ID || err != nil || len(log) > 0:
			t.Errorf("%s was given to the second engine as %s, and built there again as %s (%v):\n%s", ref, given[ref].ID, c.Image.ID, err, log)
		default:
			t.Logf("%s given to the second engine by docker save | docker load, not built there", ref)
		}
	}
	if n := cells["node-http/plaintext/1cpu/c16/https"].Negotiated; n == nil || n.ALPN != "http/1.1" || n.TLS == "" {
		t.Errorf("https across the engines: negotiated %+v", n)
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "Two machines: targets on engine `target`") {
		t.Errorf("README does not show the two machines (%v)", err)
	}

	// ab (a request count) and openloop (a fixed rate) across the link too:
	// each needs a load the run above cannot give, so each gets a run.
	copies := map[string]int{} // by image
	for gen, load := range map[string]string{"ab": "requests: 3000", "openloop": "duration: 2s"} {
		text := strings.Replace(readFile(t, oneTrial(t, writeMatrix(t, "shared", "0", "node-http"))), "duration: 2s", load, 1)
		axis := "generator: [" + gen + "]"
		if gen == "openloop" {
			axis += "\nrate: [500]"
		}
		text = strings.Replace(text, "cpus: [1]", "cpus: [1]\n"+axis, 1)
		f := filepath.Join(t.TempDir(), "matrix.yaml")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		o := t.TempDir()
		// (The ceiling across the link is the first run's.)
		code, text := runCLI(ctx, t, "run", "-f", f, "--out", o, "--only", "node-http/plaintext", "--target-engine", second.Host, "--no-ceiling")
		// An image copied to the second engine stays there, the load
		// generator's (copied by id) with its tag, so a later run's reap
		// does not take it for a dangling build: no image is copied twice.
		// (A parallel test's run may retag the load generator on this
		// engine: that new image is copied once.)
		for _, m := range copied.FindAllStringSubmatch(text, -1) {
			if copies[m[1]]++; copies[m[1]] > 1 {
				t.Errorf("%s across the engines: %s copied to engine %s again", gen, m[1], m[2])
			}
		}
		noLeftovers(t, eng)
		noLeftovers(t, eng2)
		r, err := results.Read(o)
		if code != cli.ExitOK || err != nil {
			t.Fatalf("%s across the engines: exit %d, %v", gen, code, err)
		}
		id := "node-http/plaintext/1cpu/c16/" + gen
		if gen == "openloop" {
			id = "node-http/plaintext/1cpu/c16/r500/openloop"
		}
		c := cellsByID(r)[id]
		if c == nil || c.Status != results.OK || len(c.Trials) != 1 || c.Trials[0].RPS <= 0 || r.Environment.NetworkMode != "host" {
			t.Errorf("%s across the engines: %s %+v, network %q", gen, id, c, r.Environment.NetworkMode)
		}
	}

	// Nothing answers at a wrong address: the run stops before any load.
	bad := strings.TrimSuffix(second.Addr, ".2") + ".77"
	out2 := t.TempDir()
	quick := strings.Replace(readFile(t, file), "ready_timeout: 30s", "ready_timeout: 2s", 1)
	file2 := filepath.Join(t.TempDir(), "matrix.yaml")
	if err := os.WriteFile(file2, []byte(quick), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text := runCLI(ctx, t, "run", "-f", file2, "--out", out2, "--target-engine", second.Host, "--target-address", bad)
	noLeftovers(t, eng)
	noLeftovers(t, eng2)
	if code == cli.ExitOK || !strings.Contains(text, "cannot reach the targets' machine, engine target ("+second.Host+"), at http://"+bad+":8080/") ||
		!strings.Contains(text, "the load generator on engine default") {
		t.Errorf("exit %d; want a failure naming both ends", code)
	}
	if run, err := results.Read(out2); err != nil || run.Stopped == "" || len(run.Cells) != 0 && run.Cells[0].Status == results.OK {
		t.Errorf("unreachable run: %v %+v", err, run)
	}
}

// copied finds what a run copied between engines: the image and where to.
var copied = regexp.MustCompile(`copying image (\S+) from engine \S+ to engine (\S+)`)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runOnEngines runs the harness with args into out, checks that it left
// nothing on any of engines and exited 0, and returns what it wrote.
func runOnEngines(ctx context.Context, t *testing.T, engines []*engine.Engine, out string, args ...string) *results.Run {
	t.Helper()
	code, _ := runCLI(ctx, t, append(args, "--out", out)...)
	for _, e := range engines {
		noLeftovers(t, e)
	}
	if code != cli.ExitOK {
		t.Fatalf("exit %d, want 0", code)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
