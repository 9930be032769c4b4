// Package baseimage decides which image each key of the matrix's images
// section resolves to: the official image when the engine has it or can
// pull it, otherwise a local stand-in built from Debian packages (debootstrap
// then import) and the local Go toolchain, carrying the host's CA bundle.
// Results record which one every target was built on.
package baseimage

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/go-archive"
	"github.com/moby/go-archive/compression"

	webbench "github.com/webbench/webbench"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// Base is what one images key resolved to, as results.json records it.
type Base = results.BaseImage

// Engine is what resolving a base image needs from the Docker engine.
type Engine interface {
	ImageLabels(ctx context.Context, ref string) (id string, labels map[string]string, ok bool, err error)
	Pull(ctx context.Context, ref string) error
	Import(ctx context.Context, rootfs io.Reader, ref string, changes []string) error
	Build(ctx context.Context, s engine.BuildSpec) (engine.Built, error)
	// Cached says whether s.Tag is already built from s's inputs.
	Cached(ctx context.Context, s engine.BuildSpec) (bool, error)
}

// Options tune how stand-ins are made.
type Options struct {
	Mirror   string          // Debian mirror for debootstrap; default http://deb.debian.org/debian
	CABundle string          // host CA bundle copied into stand-ins; default /etc/ssl/certs/ca-certificates.crt
	GoRoot   string          // toolchain copied into the golang stand-in; default runtime.GOROOT()
	Log      io.Writer       // one-line notes on stand-in builds
	BuildLog io.Writer       // the full output of stand-in builds, whole lines led by their stand-in; builds side by side write at once
	NoPull   bool            // do not try the registry (tests, offline machines)
	Times    *buildtime.Book // where stand-in build times are learned; nil: not recorded
	// Copy brings ref from another engine of the run when that one has it
	// (docker save | docker load), reporting whether it did: tried before
	// building a stand-in, for the official image and then the stand-in.
	Copy func(ctx context.Context, ref string) (bool, error)
}

// Resolver resolves keys once each per run. Different keys resolve side
// by side (a stand-in's build mostly waits on Debian's mirror); a key
// asked for again while it resolves waits for that one resolution.
type Resolver struct {
	eng    Engine
	images map[string]string
	opt    Options

	mu   sync.Mutex
	keys map[string]*resolution

	rootfsMu sync.Mutex        // held through a debootstrap: debian and golang share its folder
	rootfs   map[string]string // suite → debootstrapped folder
	tmp      string
}

// A resolution is one key's, done when ready is closed.
type resolution struct {
	ready chan struct{}
	base  *Base
}

// NewResolver resolves the keys of images.
func NewResolver(eng Engine, images map[string]string, opt Options) *Resolver {
	if opt.Mirror == "" {
		opt.Mirror = "http://deb.debian.org/debian"
	}
	if opt.CABundle == "" {
		opt.CABundle = "/etc/ssl/certs/ca-certificates.crt"
	}
	if opt.GoRoot == "" {
		opt.GoRoot = goRoot()
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.BuildLog == nil {
		opt.BuildLog = io.Discard
	}
	return &Resolver{eng: eng, images: images, opt: opt, keys: map[string]*resolution{}, rootfs: map[string]string{}}
}

// Close removes the resolver's scratch folders, first unmounting what an
// interrupted debootstrap left mounted in them (/proc, /sys): removing a
// mounted /proc's files is not something to attempt.
func (r *Resolver) Close() error {
	if r.tmp == "" {
		return nil
	}
	if err := unmountUnder(r.tmp); err != nil {
		return fmt.Errorf("left %s in place: %w", r.tmp, err)
	}
	return os.RemoveAll(r.tmp)
}

// unmountUnder detaches every mount below dir, deepest first.
func unmountUnder(dir string) error {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return err
	}
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			points = append(points, f[1])
		}
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// Resolve returns the image to use for key; Base.Error says why there is
// none. It is safe to call from several goroutines.
func (r *Resolver) Resolve(ctx context.Context, key string) *Base {
	r.mu.Lock()
	res, ok := r.keys[key]
	if !ok {
		res = &resolution{ready: make(chan struct{})}
		r.keys[key] = res
	}
	r.mu.Unlock()
	if !ok {
		res.base = r.resolve(ctx, key)
		close(res.ready)
	}
	<-res.ready
	return res.base
}

func (r *Resolver) resolve(ctx context.Context, key string) *Base {
	ref, ok := r.images[key]
	b := &Base{Key: key, Official: ref}
	if !ok {
		b.Error = fmt.Sprintf("images has no key %q", key)
		return b
	}
	_, _, have, err := r.eng.ImageLabels(ctx, ref)
	if err != nil {
		b.Error = err.Error()
		return b
	}
	if have {
		b.Used = ref
		return b
	}
	var pullErr error = fmt.Errorf("pull disabled")
	if !r.opt.NoPull {
		if pullErr = r.eng.Pull(ctx, ref); pullErr == nil {
			b.Used, b.Pulled = ref, true
			return b
		}
	}
	if r.opt.Copy != nil {
		if ok, err := r.opt.Copy(ctx, ref); err != nil {
			fmt.Fprintf(r.opt.Log, "warning: %v\n", err)
		} else if ok {
			b.Used, b.Note = ref, "copied from the run's other engine"
			return b
		}
		if HasStandIn(key) {
			if ok, err := r.opt.Copy(ctx, StandInRef(ref)); err != nil {
				fmt.Fprintf(r.opt.Log, "warning: %v\n", err)
			} else if ok {
				b.Used, b.StandIn = StandInRef(ref), true
				b.Note = r.runsNote(ctx, key, ref, b.Used) + "stand-in copied from the run's other engine"
				return b
			}
		}
	}
	used, note, err := r.standIn(ctx, key, ref)
	if err != nil {
		b.Error = fmt.Sprintf("cannot pull it (%v) and no local stand-in (%v)", pullErr, err)
		return b
	}
	b.Used, b.StandIn, b.Note = used, true, note
	return b
}

// HasStandIn reports whether key can be stood in for locally when its
// official image can be neither found nor pulled.
func HasStandIn(key string) bool {
	if key == "debian" || key == "golang" {
		return true
	}
	_, err := fs.Stat(webbench.Assets, "docker/standins/"+key+"/Dockerfile")
	return err == nil
}

// Pending lists the builds resolving key would need if the engine has
// neither its official image nor a current stand-in (a pull, if one works,
// needs none of them): what plan and run count before building.
func (r *Resolver) Pending(ctx context.Context, key string) []buildtime.Kind {
	ref, ok := r.images[key]
	if !ok || !HasStandIn(key) {
		return nil
	}
	if _, _, ok, err := r.eng.ImageLabels(ctx, ref); err != nil || ok {
		return nil
	}
	if r.standInCurrent(ctx, key, ref) {
		return nil
	}
	return []buildtime.Kind{StandInKind(key)}
}

// standInCurrent says whether key's stand-in for official is on the engine
// as this harness would make it, by the hash it is labelled with: a
// debootstrapped one's import, or a recipe's build (a stand-in an older
// harness or recipe made is made again). An engine that cannot answer has
// nothing pending, as where the image is there.
func (r *Resolver) standInCurrent(ctx context.Context, key, official string) bool {
	_, labels, ok, err := r.eng.ImageLabels(ctx, StandInRef(official))
	if err != nil || !ok {
		return err != nil
	}
	p, debootstrapped, err := r.rootfsOf(key, official)
	if err != nil {
		return true
	}
	if !debootstrapped {
		return r.recipeCurrent(ctx, key, official)
	}
	hash, _, err := r.hash(p)
	return err != nil || labels[engine.LabelHash] == hash
}

// recipeCurrent says whether key's recipe stand-in for official is built
// from the recipe on the debian base the run will most likely give it
// (Resolve is not asked: that would make it).
func (r *Resolver) recipeCurrent(ctx context.Context, key, official string) bool {
	deb, ok := r.images["debian"]
	if !ok {
		return true
	}
	spec, err := recipeSpec(key, official, Likely(ctx, r.eng, "debian", deb))
	if err != nil {
		return true
	}
	current, err := r.eng.Cached(ctx, spec)
	return err != nil || current
}

// Likely is the image that key, given as ref, will most likely resolve
// to on eng without asking a registry: ref where the engine has it or
// nothing stands in for it, else its stand-in. An image's build arguments,
// and so its hash, depend on it.
func Likely(ctx context.Context, eng Engine, key, ref string) string {
	if _, _, ok, _ := eng.ImageLabels(ctx, ref); ok || !HasStandIn(key) {
		return ref
	}
	return StandInRef(ref)
}

// recipeSpec is the build of key's stand-in for official from its recipe,
// docker/standins/KEY, on the debian image debian.
func recipeSpec(key, official, debian string) (engine.BuildSpec, error) {
	recipe, err := fs.Sub(webbench.Assets, "docker/standins/"+key)
	if err != nil {
		return engine.BuildSpec{}, err
	}
	if _, err := fs.Stat(recipe, "Dockerfile"); err != nil {
		return engine.BuildSpec{}, fmt.Errorf("no stand-in recipe docker/standins/%s/Dockerfile", key)
	}
	return engine.BuildSpec{Context: recipe, Tag: StandInRef(official), BuildArgs: map[string]string{"DEBIAN_IMAGE": debian}}, nil
}

// StandInKind is the kind of build that makes key's stand-in (for a key
// that HasStandIn): debootstrap for debian, the local toolchain for golang,
// a recipe on the debian stand-in for the others.
func StandInKind(key string) buildtime.Kind {
	switch key {
	case "debian":
		return buildtime.Debootstrap
	case "golang":
		return buildtime.Toolchain
	}
	return buildtime.Recipe
}

func (r *Resolver) record(k buildtime.Kind, since time.Time) {
	if r.opt.Times != nil {
		r.opt.Times.Record(k, time.Since(since))
	}
}

// StandInRef is the local tag of the stand-in for an official reference.
func StandInRef(official string) string {
	name, tag := splitRef(official)
	return "webbench-standin/" + name + ":" + tag
}

func splitRef(ref string) (name, tag string) {
	name, tag = ref, "latest"
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		name, tag = ref[:i], ref[i+1:]
	}
	return name[strings.LastIndex(name, "/")+1:], tag
}

func (r *Resolver) standIn(ctx context.Context, key, official string) (ref, note string, err error) {
	ref = StandInRef(official)
	p, ok, err := r.rootfsOf(key, official)
	if err != nil {
		return "", "", err
	}
	if ok {
		return ref, p.note, r.importRootfs(ctx, ref, p)
	}
	spec, err := recipeSpec(key, official, "")
	if err != nil {
		return "", "", err
	}
	deb := r.Resolve(ctx, "debian")
	if deb.Used == "" {
		return "", "", fmt.Errorf("the stand-in builds on debian: %s", deb.Error)
	}
	spec.BuildArgs["DEBIAN_IMAGE"] = deb.Used
	started := time.Now()
	log := &prefixLines{w: r.opt.BuildLog, prefix: ref + " | "}
	spec.Log = log
	built, err := r.eng.Build(ctx, spec)
	log.Close()
	if err != nil {
		return "", "", err
	}
	if !built.Cached {
		fmt.Fprintf(r.opt.Log, "built stand-in %s for %s in %s\n", ref, official, time.Since(started).Round(time.Second))
		r.record(buildtime.Recipe, started)
	}
	return ref, r.runsNote(ctx, key, official, ref) + fmt.Sprintf("docker/standins/%s/Dockerfile on %s", key, deb.Used), nil
}

// stdBuildEnv is how every Go image of the project builds (static, paths
// trimmed): the golang stand-in carries a build cache of the standard
// library made that way, so each Go image compiles only its own code
// instead of the standard library afresh (about a minute apiece here).
var stdBuildEnv = []string{"CGO_ENABLED=0", "GOFLAGS=-trimpath"}

// addToolchain writes the host's Go toolchain at /usr/local/go and, at
// root's default GOCACHE, the standard library built as stdBuildEnv says.
// A build cache entry is keyed by its inputs, not by the machine, so one
// made here is hit in the image; one that misses only costs the time saved.
func (r *Resolver) addToolchain(tw *tar.Writer) error {
	if err := addTree(tw, r.opt.GoRoot, "usr/local/go"); err != nil {
		return err
	}
	cache, err := os.MkdirTemp("", "webbench-gocache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	cmd := exec.Command(filepath.Join(r.opt.GoRoot, "bin", "go"), "build", "std")
	cmd.Env = append(os.Environ(), append([]string{"GOCACHE=" + cache, "GOROOT=" + r.opt.GoRoot, "GOTOOLCHAIN=local"}, stdBuildEnv...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("prebuild the standard library for the golang stand-in: %v\n%s", err, tail(string(out), 15))
	}
	return addTree(tw, cache, "root/.cache/go-build")
}

// debianSuite maps an official tag such as debian:bookworm-slim or
// golang:1.26-bookworm to the Debian suite its root file system comes from.
func debianSuite(ref string) (string, error) {
	_, tag := splitRef(ref)
	for _, s := range []string{"bookworm", "trixie", "bullseye", "forky"} {
		if strings.Contains(tag, s) {
			return s, nil
		}
	}
	return "", fmt.Errorf("cannot tell the Debian suite of %q (name one of bookworm, trixie, bullseye in its tag)", ref)
}

func goRoot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return runtime.GOROOT()
}

func goVersion(goroot string) (string, error) {
	b, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		return "", fmt.Errorf("no local Go toolchain at %q: %w", goroot, err)
	}
	return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]), nil
}

// rootfs is how a debootstrapped stand-in (debian's, golang's) is made:
// the suite, the recipe note it is labelled with, the image changes, and
// what extra adds to the root file system.
type rootfs struct {
	suite, note string
	changes     []string
	extra       func(*tar.Writer) error
}

// rootfsOf is how key's stand-in for official is debootstrapped; ok is
// false for the keys whose stand-in is built from a recipe.
func (r *Resolver) rootfsOf(key, official string) (p rootfs, ok bool, err error) {
	if key != "debian" && key != "golang" {
		return rootfs{}, false, nil
	}
	if p.suite, err = debianSuite(official); err != nil {
		return rootfs{}, false, err
	}
	if key == "debian" {
		p.note = fmt.Sprintf("debootstrap --variant=minbase %s from %s, host CA bundle", p.suite, r.opt.Mirror)
		return p, true, nil
	}
	ver, err := goVersion(r.opt.GoRoot)
	if err != nil {
		return rootfs{}, false, err
	}
	p.note = fmt.Sprintf("debootstrap --variant=minbase %s + host Go toolchain %s at /usr/local/go with its standard library prebuilt (%s), host CA bundle",
		p.suite, ver, strings.Join(stdBuildEnv, " "))
	p.changes = []string{"ENV GOLANG_VERSION=" + strings.TrimPrefix(ver, "go"), "ENV GOPATH=/go",
		"ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "WORKDIR /go"}
	p.extra = r.addToolchain
	return p, true, nil
}

// hash is the recipe hash a stand-in made as p says is labelled with,
// and the host CA bundle it is made with.
func (r *Resolver) hash(p rootfs) (hash string, ca []byte, err error) {
	if ca, err = os.ReadFile(r.opt.CABundle); err != nil {
		return "", nil, fmt.Errorf("host CA bundle: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "v1\n%s\n%q\n", p.note, p.changes)
	h.Write(ca)
	return hex.EncodeToString(h.Sum(nil))[:16], ca, nil
}

// importRootfs imports the stand-in p as ref, unless ref already exists
// with the same recipe hash.
func (r *Resolver) importRootfs(ctx context.Context, ref string, p rootfs) error {
	hash, ca, err := r.hash(p)
	if err != nil {
		return err
	}
	if _, labels, ok, err := r.eng.ImageLabels(ctx, ref); err != nil {
		return err
	} else if ok && labels[engine.LabelHash] == hash {
		return nil
	}
	dir, err := r.debootstrap(ctx, p.suite, ca)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.opt.Log, "importing stand-in %s\n", ref)
	changes := append([]string{
		"LABEL " + engine.LabelHash + "=" + hash,
		"LABEL io.webbench.stand-in=" + strings.ReplaceAll(p.note, " ", "_"),
		`CMD ["bash"]`,
	}, p.changes...)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeRootfs(pw, dir, p.extra)) }()
	started := time.Now()
	err = r.eng.Import(ctx, pr, ref, changes)
	pr.CloseWithError(err)
	if err == nil && p.extra != nil { // the golang stand-in: its own root plus the toolchain
		r.record(buildtime.Toolchain, started)
	}
	return err
}

func writeRootfs(w io.Writer, dir string, extra func(*tar.Writer) error) error {
	rc, err := archive.Tar(dir, compression.None)
	if err != nil {
		return err
	}
	defer rc.Close()
	tw := tar.NewWriter(w)
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	if extra != nil {
		if err := extra(tw); err != nil {
			return err
		}
	}
	return tw.Close()
}

// addTree writes the folder src into tw under prefix.
func addTree(tw *tar.Writer, src, prefix string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := filepath.ToSlash(filepath.Join(prefix, rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = name, 0, 0, "root", "root"
		if d.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(tw, f)
			return err
		}
		return nil
	})
}

// debootstrapWaitDelay bounds the wait for a killed debootstrap's output.
const debootstrapWaitDelay = 10 * time.Second

// debootstrap makes (once per resolver) a minimal root file system of
// suite, slimmed like the official -slim images, with the host's CA bundle.
func (r *Resolver) debootstrap(ctx context.Context, suite string, ca []byte) (string, error) {
	r.rootfsMu.Lock()
	defer r.rootfsMu.Unlock()
	if dir, ok := r.rootfs[suite]; ok {
		return dir, nil
	}
	bin, err := exec.LookPath("debootstrap")
	if err != nil {
		return "", fmt.Errorf("debootstrap is not installed (apt-get install debootstrap, or `make tools`)")
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("debootstrap needs root to build the %s stand-in", suite)
	}
	if r.tmp == "" {
		if r.tmp, err = os.MkdirTemp("", "webbench-rootfs-"); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(r.tmp, suite)
	fmt.Fprintf(r.opt.Log, "debootstrap --variant=minbase %s (about a minute)\n", suite)
	started := time.Now()
	cmd := exec.CommandContext(ctx, bin, "--variant=minbase", suite, dir, r.opt.Mirror)
	// debootstrap runs dpkg and friends: an interrupt kills the whole group,
	// and the wait for its output ends soon after.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = debootstrapWaitDelay
	out, err := cmd.CombinedOutput()
	if err != nil {
		unmountUnder(dir)
		return "", fmt.Errorf("debootstrap %s: %v\n%s", suite, err, tail(string(out), 15))
	}
	for _, p := range []string{"usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale", "var/cache/apt/archives", "var/lib/apt/lists"} {
		entries, _ := os.ReadDir(filepath.Join(dir, p))
		for _, e := range entries {
			if e.Name() != "partial" && e.Name() != "lock" {
				os.RemoveAll(filepath.Join(dir, p, e.Name()))
			}
		}
	}
	certs := filepath.Join(dir, "etc/ssl/certs")
	if err := os.MkdirAll(certs, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(certs, "ca-certificates.crt"), ca, 0o644); err != nil {
		return "", err
	}
	r.rootfs[suite] = dir
	r.record(buildtime.Debootstrap, started)
	return dir, nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// prefixLines writes whole lines to w, each led by prefix: stand-ins built
// side by side share one build log, and each of its lines says which
// stand-in wrote it. Close writes what is left of a last line without a
// newline.
type prefixLines struct {
	w      io.Writer
	prefix string
	part   []byte // a line begun, not ended
}

func (p *prefixLines) Write(b []byte) (int, error) {
	p.part = append(p.part, b...)
	end := bytes.LastIndexByte(p.part, '\n')
	if end < 0 {
		return len(b), nil
	}
	err := p.emit(p.part[:end+1])
	p.part = append(p.part[:0], p.part[end+1:]...)
	return len(b), err
}

func (p *prefixLines) emit(lines []byte) error {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(line) > 0 {
			out.WriteString(p.prefix)
			out.Write(line)
		}
	}
	_, err := p.w.Write(out.Bytes())
	return err
}

// Close writes the last line begun, ending it.
func (p *prefixLines) Close() error {
	if len(p.part) == 0 {
		return nil
	}
	err := p.emit(append(p.part, '\n'))
	p.part = nil
	return err
}
