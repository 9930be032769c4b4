package baseimage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/engine"
)

// What a recipe stand-in runs is Debian's package, not what the official
// image's tag names: the stand-in for python:3.12-slim-bookworm runs
// bookworm's python3, 3.11.2. Its record names the package and the version
// read from the built image, so that a run never reports, by the tag it
// stands in for, a version it did not run.

// standInPackage is the Debian package each recipe stand-in is there to
// run, one its recipe installs (TestStandInPackages holds the recipes to
// it).
var standInPackage = map[string]string{
	"python":   "python3",
	"node":     "nodejs",
	"nginx":    "nginx-light",
	"postgres": "postgresql-15",
	"mono":     "mono-runtime",
}

// runsTimeout bounds reading what a stand-in runs: a container's start and
// one dpkg-query.
const runsTimeout = 2 * time.Minute

// prober is what reading a stand-in's version needs of the engine: a
// throwaway container to run one command in. *engine.Engine has it; an
// engine without it (a unit test's fake) leaves the version unread, and
// the record says so.
type prober interface {
	Start(ctx context.Context, s engine.ContainerSpec) (string, error)
	Exec(ctx context.Context, id string, cmd []string) (engine.ExecResult, error)
	RemoveContainer(ctx context.Context, id string) error
}

// runsNote is what key's stand-in ref, standing in for official, runs, as
// its record leads with it ("runs Debian bookworm python3 …; "), or why
// that could not be read; "" for a stand-in that runs no package of its
// own (debian's, golang's, whose notes name what they are made of).
func (r *Resolver) runsNote(ctx context.Context, key, official, ref string) string {
	pkg, ok := standInPackage[key]
	if !ok {
		return ""
	}
	out, err := r.queryVersion(ctx, ref, pkg)
	if err == nil {
		var runs string
		if runs, err = runsOf(official, pkg, out); err == nil {
			return "runs " + runs + "; "
		}
	}
	fmt.Fprintf(r.opt.Log, "warning: what stand-in %s runs: %v\n", ref, err)
	return fmt.Sprintf("what it runs was not read (%v); ", err)
}

// queryVersion runs, in a container of ref with no network, a query of
// the Debian release and of pkg's installed version, and returns its
// output ("bookworm 3.11.2-1+b1"). The container is removed whatever
// happens.
func (r *Resolver) queryVersion(ctx context.Context, ref, pkg string) (string, error) {
	p, ok := r.eng.(prober)
	if !ok {
		return "", errors.New("this engine runs no containers")
	}
	ctx, cancel := context.WithTimeout(ctx, runsTimeout)
	defer cancel()
	// sleep, not the image's command: postgres's entrypoint runs any
	// command other than postgres as it is, and a container left behind
	// by a failed removal ends by itself.
	id, err := p.Start(ctx, engine.ContainerSpec{Image: ref, Cmd: []string{"sleep", "120"}, Network: "none"})
	defer p.RemoveContainer(context.WithoutCancel(ctx), id)
	if err != nil {
		return "", err
	}
	res, err := p.Exec(ctx, id, versionQuery(pkg))
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("dpkg-query %s in %s exited with code %d: %s", pkg, ref, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return string(res.Stdout), nil
}

// versionQuery prints the image's Debian release and pkg's installed
// version, separated by a space.
func versionQuery(pkg string) []string {
	return []string{"sh", "-c", `. /etc/os-release && dpkg-query -W -f "$VERSION_CODENAME \${Version}" "$1"`, "sh", pkg}
}

// runsOf names what a stand-in for official runs from versionQuery's
// output: "Debian bookworm python3 3.11.2-1+b1", and, where the official
// tag names a version the package's is not, both ("(3.11.2, not the tag's
// 3.12)").
func runsOf(official, pkg, out string) (string, error) {
	release, version, _ := strings.Cut(strings.TrimSpace(out), " ")
	if release == "" || version == "" || strings.ContainsAny(version, " \n") {
		return "", fmt.Errorf("dpkg-query %s answered %q, not a release and a version", pkg, out)
	}
	runs := fmt.Sprintf("Debian %s %s %s", release, pkg, version)
	if tag, up := tagVersion(official), upstreamVersion(version); tag != "" && up != tag && !strings.HasPrefix(up, tag+".") {
		runs += fmt.Sprintf(" (%s, not the tag's %s)", up, tag)
	}
	return runs, nil
}

// tagVersion is the version an image's tag leads with: "3.12" of
// python:3.12-slim-bookworm, "22" of node:22-bookworm-slim, "" of
// debian:bookworm-slim.
func tagVersion(ref string) string {
	_, tag := splitRef(ref)
	end := 0
	for end < len(tag) && (tag[end] >= '0' && tag[end] <= '9' || tag[end] == '.' && end > 0) {
		end++
	}
	return strings.TrimRight(tag[:end], ".")
}

// upstreamVersion is the upstream part of a Debian package version: no
// epoch, no Debian revision, no repackaging suffix ("1:6.8.0.105+dfsg-3.3"
// is 6.8.0.105).
func upstreamVersion(v string) string {
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	if i := strings.IndexAny(v, "+~"); i > 0 {
		v = v[:i]
	}
	return v
}
