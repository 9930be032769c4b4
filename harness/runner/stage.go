package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/certs"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// stage is the targets' engine as a run's containers use it: the run's
// id, which names and labels them, its network there, its throwaway TLS
// certificates, and the containers of each visit (a target's, or the
// ceiling's fixed-response server), numbered so that no two visits'
// names meet, with what a visit could not remove. It reads the started
// generator for the namespace a target joins in shared mode, the engine's
// open-files limit and the fixed-response server's image.
type stage struct {
	id       string // of the run, in its objects' names and labels
	target   *side
	network  network
	gen      *startedGenerator
	certs    *certs.Set // the run's throwaway TLS authority and server certificate; nil: no TLS cell
	visits   int        // visits started, for unique container names
	lane     string     // in its containers' names: "" or, for a duet's second side, "b"
	leftover error      // a container a visit could not remove: the next visit must not run
	log      io.Writer
}

// labels are the labels of an object of the run in role, for target and
// cell when they are set.
func (st *stage) labels(role, target, cell string) map[string]string {
	l := map[string]string{engine.LabelRun: st.id, engine.LabelRole: role}
	if target != "" {
		l[engine.LabelTarget] = target
	}
	if cell != "" {
		l[engine.LabelCell] = cell
	}
	return l
}

// targetNetwork is the network mode of target containers: in shared mode
// the load generator's namespace, else the run's network.
func (st *stage) targetNetwork() string {
	if st.network.mode == matrix.NetworkShared {
		return st.gen.Namespace
	}
	return st.network.name
}

// createNetwork makes the run's bridge network, in bridge mode.
func (st *stage) createNetwork(ctx context.Context) error {
	switch st.network.mode {
	case matrix.NetworkHost:
		st.network.name = "host"
	case matrix.NetworkShared:
		st.network.name = "none"
	default:
		st.network.name = "webbench-" + st.id
		var err error
		if st.network.id, err = st.target.eng.Host.CreateNetwork(ctx, st.network.name, st.labels("network", "", "")); err != nil {
			return err
		}
	}
	return nil
}

// deploy starts every replica of every service of t in order, each
// service one deployment. What it started is in the stack even when it
// fails, for the caller to remove.
func (st *stage) deploy(ctx context.Context, t matrix.Target, c matrix.Cell, rc *results.Cell) (stack, error) {
	st.visits++
	nofile, _ := st.gen.noFile(t.Limits.NoFile)
	lay := layout(t, st.network.mode)
	var s stack
	for _, svc := range t.Services {
		d := &deployment{eng: st.target.eng, limits: t.Limits}
		s = append(s, d)
		labels := st.labels("target", t.Name, c.ID())
		labels[engine.LabelService] = svc.Name
		for _, p := range lay[svc.Name] {
			m := &member{service: svc.Name, alias: p.alias}
			if svc.Name != t.Entry && svc.Port > 0 {
				m.addr = st.fromLoadgen(p)
			}
			// Unique per visit, so that a leftover of one visit is never
			// taken for the next one's container.
			name := fmt.Sprintf("webbench-%s%s-v%d-%s", st.id, st.lane, st.visits, p.alias)
			err := d.start(ctx, m, engine.ContainerSpec{
				Name: name, Image: rc.Image.Services[svc.Name], Env: env(t, svc, c, p, lay), CPUSet: c.ServiceSet(svc.Name).String(), Files: st.serverFiles(c.Protocol),
				Network: st.targetNetwork(), Aliases: []string{svc.Name, p.alias}, Labels: labels,
				Memory: t.Limits.MemoryBytes, Pids: t.Limits.Pids, NoFile: nofile,
			}, true)
			if err != nil {
				return s, fmt.Errorf("service %s: %w", m.alias, err)
			}
		}
	}
	return s, nil
}

// remove removes a visit's stack; what it could not remove is kept, so
// that no later visit runs beside it.
func (st *stage) remove(ctx context.Context, s stack) {
	for _, d := range s {
		if err := d.close(ctx); err != nil {
			fmt.Fprintf(st.log, "warning: %v\n", err)
			st.leftover = errors.Join(st.leftover, err)
		}
	}
}

// startFixed starts the fixed-response server in the load generator's image
// on the targets' engine, on cores, the way a target runs, and waits (at
// most ready) until the load generator gets its answer; it returns the server's URL as the
// load generator reaches it. The stack holds the container for the caller
// to remove, even when starting fails.
func (st *stage) startFixed(ctx context.Context, cores cpuset.Set, protocol string, ready time.Duration) (stack, string, error) {
	host := "127.0.0.1"
	switch {
	case st.target.address != "": // two machines: the targets' machine's host network
		host = st.target.address
	case st.network.mode == matrix.NetworkBridge:
		host = "ceiling"
	}
	st.visits++
	d := &deployment{eng: st.target.eng}
	s := stack{d}
	err := d.start(ctx, &member{service: "ceiling", alias: "ceiling"}, engine.ContainerSpec{
		Name: fmt.Sprintf("webbench-%s-v%d-ceiling", st.id, st.visits), Image: st.gen.ServerImage, Cmd: []string{"ceiling"},
		Env: fixedEnv(protocol), Files: st.serverFiles(protocol), CPUSet: cores.String(), Network: st.targetNetwork(),
		Aliases: []string{"ceiling"}, Labels: st.labels("ceiling", "", ""),
		Memory: matrix.DefaultLimits.MemoryBytes, Pids: matrix.DefaultLimits.Pids,
	}, false)
	if err != nil {
		return s, "", err
	}
	url := fmt.Sprintf("%s://%s/", scheme(protocol), net.JoinHostPort(host, strconv.Itoa(ceilingPort)))
	return s, url, s.ready(ctx, readiness(st.gen, s, url, protocol), ready)
}

// runtimeVersions joins the distinct "runtime:" lines of the first replica
// of each service, in start order (e.g. "nginx/1.22.1 + go1.26.8").
func (st *stage) runtimeVersions(ctx context.Context, s stack) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range s.members() {
		if seen[m.service] {
			continue
		}
		seen[m.service] = true
		logs, err := st.target.eng.Containers.Logs(ctx, m.id, 200)
		if v := runtimeVersion(logs); err == nil && v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return strings.Join(out, " + ")
}
