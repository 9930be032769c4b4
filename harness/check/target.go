package check

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/certs"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
)

// Options tune Target.
type Options struct {
	// Connections is how many connections the concurrency and backlog
	// rules open at once; 0 is the largest of the matrix's connections.
	Connections int
	// Start bounds the start: until PORT accepts a connection.
	Start time.Duration
	// Timeout bounds each check: the concurrency rule waits this long for
	// every answer.
	Timeout time.Duration
	NoPull  bool      // do not try a registry for base images
	Log     io.Writer // a line per step (build, start)
	// BuildLog receives the builds' output (the target's and stand-ins').
	BuildLog io.Writer
}

// Where the server's certificate and key go in a container checked over
// TLS, as in a run's.
const (
	certPath = "/webbench-tls/cert.pem"
	keyPath  = "/webbench-tls/key.pem"
)

// debianImage is the debian key's image where the matrix names none: a
// run's default for the load generator's image, on which stand-ins build.
const debianImage = "debian:bookworm-slim"

// removeTimeout bounds the removal of a container after an interrupt.
const removeTimeout = 30 * time.Second

// Target builds t's one service as a run does (its base images resolved
// to the official image or a stand-in), starts it alone on an internal
// network, as a run does, and reaches it from inside its network
// namespace (eng must be this machine's engine, and this process root;
// where it cannot enter the namespace, the target runs on the host's
// network, and Log says so), and
// checks every rule: once with cleartext protocols, and again with the
// certificate files when t declares https or h2. The containers are
// removed on every path. The error is set only when the check could not
// be made (no engine, an interrupt); a breach is a finding.
func Target(ctx context.Context, eng *engine.Engine, m *matrix.Matrix, t matrix.Target, o Options) ([]Finding, error) {
	if len(t.Services) != 1 {
		return nil, fmt.Errorf("target %s has %d services: check takes a target of one service", t.Name, len(t.Services))
	}
	if o.Connections <= 0 {
		o.Connections = slices.Max(append([]int{1}, m.Connections...))
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	image, f, err := build(ctx, eng, m, t, o)
	if err != nil {
		return nil, err
	}
	if !f.OK {
		return []Finding{f}, nil
	}
	out := []Finding{f}
	clear, secure := split(t.Protocols)
	var tlsSet *certs.Set
	if len(secure) > 0 {
		if tlsSet, err = certs.New("check-"+t.Name, []string{"localhost", "127.0.0.1", "::1"}, time.Now()); err != nil {
			return out, err
		}
	}
	for i, protos := range [][]string{clear, secure} {
		if len(protos) == 0 {
			continue
		}
		c := &container{eng: eng, m: m, t: t, o: o, image: image, protos: protos, first: i == 0 || len(clear) == 0}
		if i == 1 {
			c.certs = tlsSet
		}
		// Connections are opened as the load generators open them:
		// HTTP/1.1, in cleartext where the target speaks it.
		switch {
		case slices.Contains(protos, cellid.ProtoHTTP1):
			c.conns = cellid.ProtoHTTP1
		case slices.Contains(protos, cellid.ProtoHTTPS) && !slices.Contains(clear, cellid.ProtoHTTP1):
			c.conns = cellid.ProtoHTTPS
		}
		fs, err := c.check(ctx)
		out = append(out, fs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// split parts protocols into those spoken in cleartext and over TLS;
// none declared is [http1].
func split(protocols []string) (clear, secure []string) {
	if len(protocols) == 0 {
		protocols = []string{cellid.ProtoHTTP1}
	}
	for _, p := range protocols {
		if cellid.TLS(p) {
			secure = append(secure, p)
		} else {
			clear = append(clear, p)
		}
	}
	return clear, secure
}

// build resolves t's base images and builds its image, tagged as a run
// tags it so that the run finds it built.
func build(ctx context.Context, eng *engine.Engine, m *matrix.Matrix, t matrix.Target, o Options) (string, Finding, error) {
	svc := t.Services[0]
	images := maps.Clone(m.Images)
	if _, ok := images["debian"]; !ok {
		images["debian"] = debianImage // what stand-ins build on
	}
	res := baseimage.NewResolver(eng, images, baseimage.Options{Log: o.Log, BuildLog: o.BuildLog, NoPull: o.NoPull, Times: buildtime.Open(buildtime.Path())})
	defer res.Close()
	args := map[string]string{}
	for _, key := range svc.Images {
		b := res.Resolve(ctx, key)
		if err := ctx.Err(); err != nil {
			return "", Finding{}, err
		}
		if b.Used == "" {
			return "", breach(RuleBuild, "base image %s (%s): %s", key, m.Images[key], b.Error), nil
		}
		args[strings.ToUpper(key)+"_IMAGE"] = b.Used
	}
	for _, ref := range svc.Undeclared {
		if _, _, ok, err := eng.ImageLabels(ctx, ref); err == nil && !ok && (o.NoPull || eng.Pull(ctx, ref) != nil) {
			return "", breach(RuleBuild, "its Dockerfile names %s in FROM, which the engine lacks and could not pull; %s", ref, matrix.UndeclaredFix(ref)), nil
		}
	}
	tag := "webbench/target-" + t.Name + ":latest"
	fmt.Fprintf(o.Log, "building %s from %s\n", tag, svc.BuildRel)
	built, err := eng.Build(ctx, engine.BuildSpec{Context: os.DirFS(svc.Build), Tag: tag, BuildArgs: args,
		Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: t.Name}, Log: o.BuildLog})
	if err != nil {
		if ctx.Err() != nil {
			return "", Finding{}, ctx.Err()
		}
		return "", breach(RuleBuild, "%v", err), nil
	}
	return built.ID, pass(RuleBuild, "%s built on %s", tag, strings.Join(slices.Sorted(maps.Values(args)), ", ")), nil
}

// container is one start of the target, for some of its protocols.
type container struct {
	eng    *engine.Engine
	m      *matrix.Matrix
	t      matrix.Target
	o      Options
	image  string
	protos []string
	certs  *certs.Set // set for the TLS protocols
	first  bool       // the first start: the runtime and port rules are checked on it
	conns  string     // the protocol the connection rules are checked in on this start; "": not on it
	port   int
	id     string
	// network is the internal network the container is alone on; "":
	// the host's (this process cannot enter another network namespace).
	network string
	ns      *netns // the container's network namespace, where check's sockets are opened
}

// check starts the container, checks it and removes it, whatever
// happened, an interrupt included.
func (c *container) check(ctx context.Context) ([]Finding, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c.port = port
	if err := canEnter(); err != nil {
		fmt.Fprintf(c.o.Log, "warning: the target runs on the host's network, where it can reach every listener of this machine, its loopback's too; a run puts it on an internal network of its own (%v)\n", err)
	} else {
		c.network = fmt.Sprintf("webbench-check-%s-%d-%d", c.t.Name, os.Getpid(), c.port)
		netID, err := c.eng.CreateNetwork(ctx, c.network, c.labels())
		defer c.remove(ctx, "network", netID, c.eng.RemoveNetwork)
		if err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(c.o.Log, "starting %s with PORT=%d for %s\n", c.t.Name, port, strings.Join(c.protos, ", "))
	id, err := c.eng.Start(ctx, c.spec())
	defer c.remove(ctx, "container", id, c.eng.RemoveContainer) // runs before the network's removal
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []Finding{breach(RuleStart, "%v", err)}, nil
	}
	c.id = id
	if c.network != "" {
		if f, err := c.enter(ctx); err != nil {
			return nil, err
		} else if !f.OK {
			return []Finding{f}, nil
		}
		defer c.ns.Close()
	}
	f := c.ready(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err // an interrupt is no finding about the target
	}
	if !f.OK {
		return []Finding{f}, ctx.Err()
	}
	return append([]Finding{f}, c.rules(ctx)...), ctx.Err()
}

// enter opens the running container's network namespace: a container
// already stopped is a breach of the start rule, a namespace that cannot
// be opened an error.
func (c *container) enter(ctx context.Context) (Finding, error) {
	st, err := c.eng.State(ctx, c.id)
	if err != nil {
		return Finding{}, err
	}
	if !st.Running {
		return breach(RuleStart, "the container stopped (%s); its last lines: %s", st, c.lastLines()), nil
	}
	if c.ns, err = openNetns(st.Pid, c.id); err != nil {
		return Finding{}, fmt.Errorf("check cannot reach the target on its own network: %w", err)
	}
	return pass(RuleStart, "running"), nil
}

// remove removes what check created, under its own timeout after an
// interrupt.
func (c *container) remove(ctx context.Context, what, id string, remove func(context.Context, string) error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := remove(rctx, id); err != nil {
		fmt.Fprintf(c.o.Log, "warning: remove %s %s: %v\n", what, id, err)
	}
}

func (c *container) labels() map[string]string {
	labels := engine.Owner()
	labels[engine.LabelRun] = "check-" + strconv.Itoa(os.Getpid())
	labels[engine.LabelRole], labels[engine.LabelTarget] = "target", c.t.Name
	return labels
}

// dial opens check's connections where the target is: in its network
// namespace, or on this machine's network.
func (c *container) dial() DialFunc {
	if c.ns == nil {
		return nil
	}
	return c.ns.dial
}

// spec is the container: alone on its network (the host's, where check
// cannot enter another), pinned to one core, with the environment a run
// gives (the target's, its service's and its first variant's settings,
// then PORT, CPUS and the certificate files).
func (c *container) spec() engine.ContainerSpec {
	vars := map[string]string{}
	svc := c.t.Services[0]
	maps.Copy(vars, c.t.Env)
	maps.Copy(vars, svc.Env)
	if len(c.t.Variants) > 0 {
		maps.Copy(vars, c.t.Variants[0].Env)
	}
	vars["PORT"], vars["CPUS"] = strconv.Itoa(c.port), "1"
	var files []engine.File
	if c.certs != nil {
		vars["TLS_CERT_FILE"], vars["TLS_KEY_FILE"] = certPath, keyPath
		files = []engine.File{{Path: certPath, Data: c.certs.Cert}, {Path: keyPath, Data: c.certs.Key}}
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	network := c.network
	if network == "" {
		network = "host"
	}
	return engine.ContainerSpec{
		Name:  fmt.Sprintf("webbench-check-%s-%d-%d", c.t.Name, os.Getpid(), c.port),
		Image: c.image, Env: env, Network: network, CPUSet: strconv.Itoa(runtime.NumCPU() - 1),
		Labels: c.labels(), Files: files,
		Memory: c.t.Limits.MemoryBytes, Pids: c.t.Limits.Pids, NoFile: c.t.Limits.NoFile,
	}
}

// freePort is a TCP port no socket of this machine uses now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ready waits until PORT accepts a connection, the container stops, or the
// timeout passes.
func (c *container) ready(ctx context.Context) Finding {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))
	deadline := time.Now().Add(c.o.Start)
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := c.dial().orDefault()(dctx, "tcp", addr)
		cancel()
		if err == nil {
			conn.Close()
			return pass(RuleStart, "up, accepting connections on PORT=%d", c.port)
		}
		if why := c.dead(ctx); why != "" {
			return breach(RuleStart, "%s", why)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return breach(RulePort, "nothing accepted connections on PORT=%d within %s; its last lines: %s", c.port, c.o.Start, c.lastLines())
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// dead says how the container ended, with its last lines, or "" while it
// runs.
func (c *container) dead(ctx context.Context) string {
	st, err := c.eng.State(context.WithoutCancel(ctx), c.id)
	switch {
	case err != nil:
		return fmt.Sprintf("the container is gone (%v)", err)
	case st.Running:
		return ""
	}
	return fmt.Sprintf("the container stopped (%s); its last lines: %s", st, c.lastLines())
}

func (c *container) lastLines() string {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(context.Background()), 10*time.Second)
	defer cancel()
	logs, err := c.eng.Logs(rctx, c.id, 10)
	if err != nil {
		return "(none: " + err.Error() + ")"
	}
	if s := clip(logs, 400); s != "" {
		return s
	}
	return "(none)"
}

// step is one rule's check of the running container.
type step struct {
	rule string
	run  func() []Finding
}

// sequence runs the steps in turn while the target lives. A target found
// dead after a step ends the check there: the step's breaches are kept,
// its passes are not (a rule seen to hold by a target that then died
// holds nothing), and a breach of the start rule says how it ended and
// that the rules after it were not checked.
func sequence(steps []step, dead func() string) []Finding {
	var out []Finding
	for i, s := range steps {
		fs := s.run()
		why := dead()
		if why == "" {
			out = append(out, fs...)
			continue
		}
		out = append(out, Breaches(fs)...)
		left := "no rule was left to check"
		if i+1 < len(steps) {
			var names []string
			for _, l := range steps[i+1:] {
				if !slices.Contains(names, l.rule) {
					names = append(names, l.rule)
				}
			}
			left = "not checked: " + strings.Join(names, ", ")
		}
		return append(out, breach(RuleStart, "the target died while its %s rule was checked: %s; %s", s.rule, why, left))
	}
	return out
}

// rules checks every rule on the running container.
func (c *container) rules(ctx context.Context) []Finding {
	to := c.o.Timeout
	var steps []step
	if c.first {
		steps = append(steps, step{RuleRuntime, func() []Finding {
			logs, err := c.eng.Logs(ctx, c.id, 200)
			if err != nil {
				return []Finding{breach(RuleRuntime, "its output could not be read: %v", err)}
			}
			return []Finding{Runtime(logs)}
		}}, step{RulePort, func() []Finding {
			var other net.IP
			if c.ns == nil {
				other = otherAddress()
			} else if err := c.ns.do(func() { other = otherAddress() }); err != nil {
				return []Finding{breach(RulePort, "not checked: %v", err)}
			}
			return []Finding{AllInterfaces(ctx, c.dial(), other, c.port, to)}
		}})
	}
	var roots *x509.CertPool
	if c.certs != nil {
		roots = x509.NewCertPool()
		roots.AppendCertsFromPEM(c.certs.CA)
	}
	scenarios := c.scenarios()
	if len(scenarios) == 0 {
		steps = append(steps, step{RuleScenario, func() []Finding { return []Finding{breach(RuleScenario, "it declares no scenario of the matrix")} }})
		return sequence(steps, func() string { return c.dead(ctx) })
	}
	first := matrix.Cell{Key: cellid.Key{Scenario: scenarios[0].Name, Params: combinations(scenarios[0].Params)[0]}}
	path := first.Subst(scenarios[0].Path)
	for _, p := range c.protos {
		scheme, host := "http", "127.0.0.1"
		if cellid.TLS(p) {
			scheme, host = "https", "localhost"
		}
		base := fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(host, strconv.Itoa(c.port)))
		steps = append(steps, step{RuleProtocol, func() []Finding { return []Finding{Speaks(ctx, c.dial(), p, base, path, roots, to)} }},
			step{RuleScenario, func() []Finding {
				var out []Finding
				for _, sc := range scenarios {
					out = append(out, Scenario(ctx, c.dial(), p, base, sc, roots, to)...)
				}
				return out
			}})
	}
	if c.conns != "" {
		steps = append(steps, c.connSteps(ctx, Ask{Path: path, Expect: scenarios[0].Expect, Subst: first.Subst}, roots)...)
	}
	return sequence(steps, func() string { return c.dead(ctx) })
}

// connSteps are the connection rules' steps, asking a.
func (c *container) connSteps(ctx context.Context, a Ask, roots *x509.CertPool) []step {
	to := c.o.Timeout
	a.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))
	dial := PlainVia(c.dial(), a.Host)
	if c.conns == cellid.ProtoHTTPS {
		dial = TLSVia(c.dial(), net.JoinHostPort("localhost", strconv.Itoa(c.port)), roots)
	}
	backlog := func() []Finding {
		var f Finding
		if c.ns == nil {
			return []Finding{Backlog(c.port, c.o.Connections)}
		}
		if err := c.ns.do(func() { f = Backlog(c.port, c.o.Connections) }); err != nil {
			return []Finding{breach(RuleBacklog, "not checked: %v", err)}
		}
		return []Finding{f}
	}
	return []step{
		{RuleKeepAlive, func() []Finding { return []Finding{KeepAlive(ctx, dial, a, to)} }},
		{RuleConcurrency, func() []Finding { return []Finding{Concurrency(ctx, dial, a, c.o.Connections, to)} }},
		{RuleBacklog, backlog},
	}
}

// scenarios are the matrix's scenarios t serves.
func (c *container) scenarios() []matrix.Scenario {
	var out []matrix.Scenario
	for _, sc := range c.m.Scenarios {
		if c.t.Serves(sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}
