// Package engine is the one place the harness talks to the Docker engine,
// through the Docker Go SDK with API version negotiation (it must work with
// engine 20.10, API 1.41). It owns labels, networks, image builds and
// imports, containers, exec, listing by label, and resource sampling. Every
// object it creates carries the tool label so a killed run's leftovers can
// be found and reaped. *Engine satisfies the runner's Engine interface.
package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// Labels the harness puts on what it creates.
const (
	LabelTool   = "io.webbench.tool" // always "webbench"
	LabelRun    = "io.webbench.run"  // the run id
	LabelRole   = "io.webbench.role" // target, loadgen
	LabelTarget = "io.webbench.target"
	LabelCell   = "io.webbench.cell"
	LabelHash   = "io.webbench.context-hash" // content hash of an image's build inputs
	LabelPID    = "io.webbench.pid"          // process that owns a container or network
	LabelHost   = "io.webbench.host"         // host that process runs on
	ToolName    = "webbench"
)

// LabelService is on a target's containers: the service each runs (db,
// server…), so that one service's containers can be found by label.
const LabelService = "io.webbench.service"

// Owner labels mark an object as belonging to this process, so that another
// run's startup reaping leaves it alone while this process lives.
func Owner() map[string]string {
	host, _ := os.Hostname()
	return map[string]string{LabelPID: strconv.Itoa(os.Getpid()), LabelHost: host}
}

// orphaned reports whether an object's owning process is gone: it ran on
// this host and no longer exists. Objects owned from another host (a
// shared engine) are not judged. An object with the tool label and no
// owner is not one the harness made (withTool gives every one an owner):
// it is a step container of a build, under way, on one of the harness's
// images, whose labels it inherits, and the builder removes it itself.
func orphaned(labels map[string]string) bool {
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil {
		return false
	}
	return gone(pid, labels[LabelHost])
}

// gone reports whether process pid of host has ended: only a process of
// this host can be judged, and this process never is.
func gone(pid int, host string) bool {
	if here, _ := os.Hostname(); host != here || pid == os.Getpid() {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err != nil && !errors.Is(err, syscall.EPERM)
}

// Engine is a connected Docker client.
type Engine struct {
	cli  *client.Client
	Name string // how errors and results call it: a matrix's engines key ("" for the only one)
	Spec string // the URL or context name it was dialled with ("" for the environment's)
}

// Connect reaches the engine named by the environment (DOCKER_HOST …),
// negotiating the API version down to what the engine speaks.
func Connect(ctx context.Context) (*Engine, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("docker engine not reachable: %w", err)
	}
	return &Engine{cli: cli}, nil
}

// Close releases the client.
func (e *Engine) Close() error { return e.cli.Close() }

// Info is what a result records about the engine and its host.
type Info struct {
	ID            string // the engine's own id, stable across restarts
	Name          string // the host name of the engine's machine
	Root          string // the engine's data folder: two engines of one host differ in it
	ServerVersion string
	APIVersion    string
	NCPU          int
	Kernel        string
	OS            string
	Driver        string
}

// Info asks the engine about itself.
func (e *Engine) Info(ctx context.Context) (Info, error) {
	res, err := e.cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return Info{}, fmt.Errorf("docker info: %w", err)
	}
	i := res.Info
	return Info{ID: i.ID, Name: i.Name, Root: i.DockerRootDir, ServerVersion: i.ServerVersion, APIVersion: e.cli.ClientVersion(), NCPU: i.NCPU,
		Kernel: i.KernelVersion, OS: i.OperatingSystem, Driver: i.Driver}, nil
}

func toolFilter(extra ...string) client.Filters {
	f := client.Filters{}.Add("label", LabelTool+"="+ToolName)
	for _, l := range extra {
		f.Add("label", l)
	}
	return f
}

// Object is a container or network the harness created.
type Object struct {
	Kind   string // "container" or "network"
	ID     string
	Name   string
	Labels map[string]string
}

func (o Object) String() string { return o.Kind + " " + o.Name }

// List returns the containers (running or not) and networks carrying the
// tool label and every extra label given as "key=value".
func (e *Engine) List(ctx context.Context, extra ...string) ([]Object, error) {
	var out []Object
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: toolFilter(extra...)})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, c := range cs.Items {
		out = append(out, Object{Kind: "container", ID: c.ID, Name: strings.TrimPrefix(first(c.Names), "/"), Labels: c.Labels})
	}
	ns, err := e.cli.NetworkList(ctx, client.NetworkListOptions{Filters: toolFilter(extra...)})
	if err != nil {
		return out, fmt.Errorf("list networks: %w", err)
	}
	for _, n := range ns.Items {
		out = append(out, Object{Kind: "network", ID: n.ID, Name: n.Name, Labels: n.Labels})
	}
	return out, nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Running is a container running on the engine, with the cores it is
// pinned to ("" when it may run on any).
type Running struct {
	Name, CPUSet string
	Labels       map[string]string
}

// RunningContainers lists every running container, the harness's or not.
func (e *Engine) RunningContainers(ctx context.Context) ([]Running, error) {
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var out []Running
	for _, c := range cs.Items {
		res, err := e.cli.ContainerInspect(ctx, c.ID, client.ContainerInspectOptions{})
		if err != nil {
			continue // gone meanwhile
		}
		ins := res.Container
		r := Running{Name: strings.TrimPrefix(ins.Name, "/"), Labels: c.Labels}
		if ins.HostConfig != nil {
			r.CPUSet = ins.HostConfig.CpusetCpus
		}
		out = append(out, r)
	}
	return out, nil
}

// CreateNetwork makes a user-defined bridge network for one run. It is
// internal: its containers reach each other and nothing outside it.
func (e *Engine) CreateNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	// Internal drops the route out, but the host keeps an address on the
	// bridge (its gateway), where every listener of the host answers;
	// inhibit_ipv4 leaves the bridge without one, so target code reaches
	// nothing but the run's containers (Docker 20.10+; older engines ignore
	// the option).
	r, err := e.cli.NetworkCreate(ctx, name, client.NetworkCreateOptions{Driver: "bridge", Internal: true, Labels: withTool(labels),
		Options: map[string]string{"com.docker.network.bridge.inhibit_ipv4": "true"}})
	if err != nil {
		return "", fmt.Errorf("create network: %w", err)
	}
	return r.ID, nil
}

// NetworkExists reports whether the network is still there.
func (e *Engine) NetworkExists(ctx context.Context, id string) (bool, error) {
	_, err := e.cli.NetworkInspect(ctx, id, client.NetworkInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// RemoveNetwork removes a network; one already gone is not an error.
func (e *Engine) RemoveNetwork(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	if _, err := e.cli.NetworkRemove(ctx, id, client.NetworkRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove network: %w", err)
	}
	return nil
}

func withTool(labels map[string]string) map[string]string {
	out := Owner()
	out[LabelTool] = ToolName
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// ContainerSpec says how to start one container.
type ContainerSpec struct {
	Name    string
	Image   string
	Cmd     []string // empty: the image's default
	Env     []string
	CPUSet  string // CpusetCpus
	Network string // a user-defined network's name, or a mode: "host", "none", "container:<id>"
	Aliases []string
	Labels  map[string]string
	// Limits: memory in bytes (no swap), processes, open files (soft and
	// hard); 0 leaves the engine's default.
	Memory, Pids, NoFile int64
	// Files are copied into the container between its creation and its
	// start (through the engine's API, so a remote engine gets them too).
	Files []File
}

// File is one file put into a container: read-only (0444) unless Mode
// says otherwise, owned by root, its folders made as needed (0755).
type File struct {
	Path string // absolute, in the container
	Data []byte
	Mode int64
}

// tarOf packs files, and the folders above them, for CopyToContainer at /.
func tarOf(files []File) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		rel := strings.TrimPrefix(path.Clean(f.Path), "/")
		if rel == "" || rel == "." || !path.IsAbs(f.Path) {
			return nil, fmt.Errorf("file %q: want an absolute path", f.Path)
		}
		var parents []string
		for d := path.Dir(rel); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755}); err != nil {
				return nil, err
			}
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o444
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: mode, Size: int64(len(f.Data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// startTimeout bounds creating and starting one container.
const startTimeout = 2 * time.Minute

// Start creates and starts a container. The id is returned even when start
// fails, so the caller's cleanup can remove what was created.
func (e *Engine) Start(ctx context.Context, s ContainerSpec) (string, error) {
	hc := &container.HostConfig{
		Resources:   container.Resources{CpusetCpus: s.CPUSet, Memory: s.Memory, MemorySwap: s.Memory},
		NetworkMode: container.NetworkMode(s.Network),
		LogConfig:   container.LogConfig{Type: "json-file", Config: map[string]string{"max-size": "10m", "max-file": "2"}},
		// Nothing the harness runs needs to gain privileges, open raw
		// sockets or make device nodes; nginx and php-fpm keep the
		// capabilities they need to switch to their worker user.
		SecurityOpt: []string{"no-new-privileges"},
		CapDrop:     []string{"NET_RAW", "MKNOD"},
	}
	if s.Pids > 0 {
		hc.Resources.PidsLimit = &s.Pids
	}
	if s.NoFile > 0 {
		hc.Resources.Ulimits = []*container.Ulimit{{Name: "nofile", Soft: s.NoFile, Hard: s.NoFile}}
	}
	var nc *network.NetworkingConfig
	if mode := container.NetworkMode(s.Network); s.Network != "" && !mode.IsHost() && !mode.IsNone() && !mode.IsContainer() {
		nc = &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
			s.Network: {Aliases: s.Aliases},
		}}
	}
	cfg := &container.Config{Image: s.Image, Cmd: s.Cmd, Env: s.Env, Labels: withTool(s.Labels)}
	// Create and start are not cancelled midway: a request the engine
	// carries out after the client gave up would leave a container nobody
	// knows the id of. A cancelled ctx is honoured right after, and the id
	// returned for the caller to remove.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	defer cancel()
	r, err := e.cli.ContainerCreate(octx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, NetworkingConfig: nc, Name: s.Name})
	if err != nil {
		return "", fmt.Errorf("create container %s: %w", s.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return r.ID, err
	}
	if len(s.Files) > 0 {
		tarball, err := tarOf(s.Files)
		if err != nil {
			return r.ID, fmt.Errorf("container %s: %w", s.Name, err)
		}
		if _, err := e.cli.CopyToContainer(octx, r.ID, client.CopyToContainerOptions{DestinationPath: "/", Content: tarball}); err != nil {
			return r.ID, fmt.Errorf("copy files into container %s: %w", s.Name, err)
		}
	}
	if _, err := e.cli.ContainerStart(octx, r.ID, client.ContainerStartOptions{}); err != nil {
		return r.ID, fmt.Errorf("start container %s: %w", s.Name, err)
	}
	return r.ID, ctx.Err()
}

// RemoveContainer kills and removes a container; one already gone is not
// an error, and neither is an empty id.
func (e *Engine) RemoveContainer(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	_, err := e.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !strings.Contains(err.Error(), "is already in progress") {
		return fmt.Errorf("remove container: %w", err)
	}
	return nil
}

// State is whether a container still runs and, if not, how it ended.
type State struct {
	Running   bool
	ExitCode  int
	OOMKilled bool
	Error     string
	// Pid is the container's first process as the engine's machine
	// numbers it; 0 when it is not running.
	Pid int
}

func (s State) String() string {
	if s.Running {
		return "running"
	}
	out := fmt.Sprintf("exited with code %d", s.ExitCode)
	if s.OOMKilled {
		out += ", OOM-killed"
	}
	if s.Error != "" {
		out += ": " + s.Error
	}
	return out
}

// State inspects a container.
func (e *Engine) State(ctx context.Context, id string) (State, error) {
	c, err := e.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return State{}, fmt.Errorf("inspect container: %w", err)
	}
	st := c.Container.State
	return State{Running: st.Running, ExitCode: st.ExitCode, OOMKilled: st.OOMKilled, Error: st.Error, Pid: st.Pid}, nil
}

// Logs returns the last n lines of a container's output, stdout and stderr
// interleaved as written.
func (e *Engine) Logs(ctx context.Context, id string, n int) (string, error) {
	rc, err := e.cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: fmt.Sprint(n)})
	if err != nil {
		return "", fmt.Errorf("container logs: %w", err)
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := stdcopy.StdCopy(&b, &b, rc); err != nil {
		return b.String(), fmt.Errorf("container logs: %w", err)
	}
	return b.String(), nil
}

// ExecResult is what a command run inside a container printed.
type ExecResult struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// MaxExecOutput bounds what Exec keeps of a command's output, stdout and
// stderr together. The harness's commands print a few kilobytes (a load
// generator's summary, World's 10,000 rows in some 100 KB); a command that
// prints on without end (a hostile target's psql) must not take the
// harness's memory with it.
const MaxExecOutput = 64 << 20

// ExecLimitError is Exec's error when a command printed more than
// MaxExecOutput.
type ExecLimitError struct {
	Cmd   string // the command, shortened
	Limit int64
}

func (e *ExecLimitError) Error() string {
	return fmt.Sprintf("exec %s: it printed more than %d MiB, which no command the harness runs does; stopped reading it", e.Cmd, e.Limit>>20)
}

// Exec runs cmd inside a running container and waits for it, keeping at
// most MaxExecOutput bytes of what it prints (an ExecLimitError past
// that). Give ctx a deadline: a command that never ends holds Exec until
// ctx does. Either way Exec stops reading and returns; the command itself
// runs on until it ends or its container is removed (the engine has no way
// to stop one exec), which its caller does.
func (e *Engine) Exec(ctx context.Context, id string, cmd []string) (ExecResult, error) {
	name := shortCmd(cmd)
	cr, err := e.cli.ExecCreate(ctx, id, client.ExecCreateOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: %w", name, err)
	}
	att, err := e.cli.ExecAttach(ctx, cr.ID, client.ExecAttachOptions{})
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: attach: %w", name, err)
	}
	out := newCappedOutput(MaxExecOutput)
	err = copyOutput(ctx, att.Reader, att.Close, out)
	var full *outputFull
	switch {
	case errors.As(err, &full):
		return ExecResult{}, &ExecLimitError{Cmd: name, Limit: full.limit}
	case err != nil && ctx.Err() != nil:
		return ExecResult{}, fmt.Errorf("exec %s: %w", name, ctx.Err())
	case err != nil:
		return ExecResult{}, fmt.Errorf("exec %s: read output: %w", name, err)
	}
	ins, err := e.cli.ExecInspect(ctx, cr.ID, client.ExecInspectOptions{})
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: inspect: %w", name, err)
	}
	return ExecResult{Stdout: out.stdout.Bytes(), Stderr: out.stderr.Bytes(), ExitCode: ins.ExitCode}, nil
}

// copyOutput demultiplexes an exec's stream r into out until the stream
// ends, out is full or ctx ends, then closes the stream (closeStream).
// When ctx ends it closes it first and waits for the copy to stop, so that
// nothing is written to out after it returns and no reader is left behind.
func copyOutput(ctx context.Context, r io.Reader, closeStream func(), out *cappedOutput) error {
	done := make(chan error, 1)
	go func() { _, err := stdcopy.StdCopy(out.Stdout(), out.Stderr(), r); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		closeStream()
		<-done
		return ctx.Err()
	}
	closeStream()
	return err
}

// shortCmd names a command in an error: its words, cut after 60 bytes.
func shortCmd(cmd []string) string {
	s := strings.Join(cmd, " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// cappedOutput keeps a command's stdout and stderr apart, and together no
// more than limit bytes of them.
type cappedOutput struct {
	stdout, stderr bytes.Buffer
	left           int64
	limit          int64
}

func newCappedOutput(limit int64) *cappedOutput { return &cappedOutput{left: limit, limit: limit} }

// outputFull is a write's error once the limit is passed.
type outputFull struct{ limit int64 }

func (e *outputFull) Error() string { return fmt.Sprintf("output past %d bytes", e.limit) }

// Stdout and Stderr are the writers of the two streams; a write that would
// pass the limit keeps what fits and fails.
func (c *cappedOutput) Stdout() io.Writer { return cappedWriter{c, &c.stdout} }
func (c *cappedOutput) Stderr() io.Writer { return cappedWriter{c, &c.stderr} }

type cappedWriter struct {
	c   *cappedOutput
	buf *bytes.Buffer
}

func (w cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > w.c.left {
		n, _ := w.buf.Write(p[:w.c.left])
		w.c.left = 0
		return n, &outputFull{limit: w.c.limit}
	}
	w.c.left -= int64(len(p))
	return w.buf.Write(p)
}

// Usage is one reading of a container's cgroup counters.
type Usage struct {
	CPUNanos uint64    // cumulative CPU time of every process in the container
	MemBytes uint64    // memory in use, page cache of inactive files excluded (as docker stats shows)
	At       time.Time // when the engine read them
}

func usageOf(s container.StatsResponse) Usage {
	mem := s.MemoryStats.Usage
	// cgroup v1 reports total_inactive_file, v2 inactive_file; docker stats
	// subtracts it so that reclaimable page cache is not counted.
	for _, k := range []string{"total_inactive_file", "inactive_file"} {
		if v, ok := s.MemoryStats.Stats[k]; ok && v < mem {
			mem -= v
			break
		}
	}
	return Usage{CPUNanos: s.CPUStats.CPUUsage.TotalUsage, MemBytes: mem, At: s.Read}
}

// Sample is one reading of a container's counters, with the time it
// reached the harness (on the harness's clock, unlike Usage.At).
type Sample struct {
	Usage
	Arrived time.Time
}

// Sampler holds the readings of one container's counters taken so far.
type Sampler interface {
	// Window returns the samples that arrived between from and to.
	Window(from, to time.Time) []Sample
	// Stop ends sampling and waits for the reader to finish.
	Stop()
}

// streamSampler keeps the engine's stream of stats for one container (a
// reading about once a second). Reading the stream costs nothing on the
// measured path, unlike one-shot stats, which wait for the engine's next
// collection.
type streamSampler struct {
	mu      sync.Mutex
	samples []Sample
	cancel  context.CancelFunc
	done    chan struct{}
}

// Sample starts sampling a container until Stop or ctx ends.
func (e *Engine) Sample(ctx context.Context, id string) Sampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &streamSampler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		r, err := e.cli.ContainerStats(ctx, id, client.ContainerStatsOptions{Stream: true})
		if err != nil {
			return
		}
		defer r.Body.Close()
		dec := newJSONDecoder(r.Body)
		for {
			var st container.StatsResponse
			if err := dec.Decode(&st); err != nil {
				return
			}
			u := usageOf(st)
			if u.At.IsZero() {
				continue
			}
			s.mu.Lock()
			s.samples = append(s.samples, Sample{Usage: u, Arrived: time.Now()})
			s.mu.Unlock()
		}
	}()
	return s
}

// Stop ends sampling and waits for the reader to finish. Safe on nil.
func (s *streamSampler) Stop() {
	if s == nil {
		return
	}
	s.cancel()
	<-s.done
}

// Window returns the samples that arrived between from and to.
func (s *streamSampler) Window(from, to time.Time) []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Sample
	for _, x := range s.samples {
		if !x.Arrived.Before(from) && !x.Arrived.After(to) {
			out = append(out, x)
		}
	}
	return out
}

// Rates condenses samples taken during a trial: the CPU cores used (CPU
// time over the engine's time between the first and last sample) and the
// largest memory reading. ok is false when fewer than two samples fell in
// the trial, too few for a rate.
func Rates(samples []Sample) (cores float64, peakMem uint64, ok bool) {
	for _, x := range samples {
		peakMem = max(peakMem, x.MemBytes)
	}
	if len(samples) < 2 {
		return 0, peakMem, false
	}
	a, b := samples[0], samples[len(samples)-1]
	wall := b.At.Sub(a.At)
	if wall <= 0 || b.CPUNanos < a.CPUNanos {
		return 0, peakMem, false
	}
	return float64(b.CPUNanos-a.CPUNanos) / float64(wall.Nanoseconds()), peakMem, true
}

// Steady is the median memory of samples: what a container holds once
// loaded, beside its peak (0 without samples).
func Steady(samples []Sample) uint64 {
	if len(samples) == 0 {
		return 0
	}
	mem := make([]uint64, len(samples))
	for i, x := range samples {
		mem[i] = x.MemBytes
	}
	slices.Sort(mem)
	return mem[len(mem)/2]
}

// SetCPUs moves a running container to the cores cpus ("0-1"), as docker
// update --cpuset-cpus does.
func (e *Engine) SetCPUs(ctx context.Context, id, cpus string) error {
	_, err := e.cli.ContainerUpdate(ctx, id, client.ContainerUpdateOptions{Resources: &container.Resources{CpusetCpus: cpus}})
	if err != nil {
		return fmt.Errorf("move container %s to cores %s: %w", id, cpus, err)
	}
	return nil
}

// CPUs is the cpuset a container runs on, as the engine reports it
// ("" when it is not pinned).
func (e *Engine) CPUs(ctx context.Context, id string) (string, error) {
	res, err := e.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspect container: %w", err)
	}
	if c := res.Container; c.HostConfig != nil {
		return c.HostConfig.CpusetCpus, nil
	}
	return "", nil
}

// ImageSize is an image's size in bytes, its layers included.
func (e *Engine) ImageSize(ctx context.Context, ref string) (int64, error) {
	ins, err := e.cli.ImageInspect(ctx, ref)
	if err != nil {
		return 0, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return ins.Size, nil
}

// ImageLabels returns an image's id and labels, and whether it exists.
func (e *Engine) ImageLabels(ctx context.Context, ref string) (id string, labels map[string]string, ok bool, err error) {
	ins, err := e.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	if ins.Config != nil {
		labels = ins.Config.Labels
	}
	return ins.ID, labels, true, nil
}

// Pull fetches an image from its registry, draining the progress stream.
func (e *Engine) Pull(ctx context.Context, ref string) error {
	rc, err := e.cli.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	defer rc.Close()
	if err := readMessages(rc, io.Discard); err != nil {
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	return nil
}

// Import creates an image from a root file system tarball.
func (e *Engine) Import(ctx context.Context, rootfs io.Reader, ref string, changes []string) error {
	rc, err := e.cli.ImageImport(ctx, client.ImageImportSource{Source: rootfs, SourceName: "-"}, ref, client.ImageImportOptions{Changes: changes})
	if err != nil {
		return fmt.Errorf("import %s: %w", ref, err)
	}
	defer rc.Close()
	if err := readMessages(rc, io.Discard); err != nil {
		return fmt.Errorf("import %s: %w", ref, err)
	}
	return nil
}
