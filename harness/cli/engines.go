package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/runner"
)

// engineFlags choose the engines of a run, overriding the matrix's
// engines and placement.
type engineFlags struct {
	target, loadgen, address, link string
}

func (e *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.target, "target-engine", "", "engine `E` targets run on: an engines key of the matrix, a URL (unix://, tcp://, ssh://user@host) or a docker context name")
	fs.StringVar(&e.loadgen, "loadgen-engine", "", "engine `E` the load generator runs on (same forms as --target-engine)")
	fs.StringVar(&e.address, "target-address", "", "`ADDR` where the load generator reaches the targets' machine (default: the matrix's address, or the host of a tcp:// or ssh:// URL)")
	fs.StringVar(&e.link, "link", "", "the network between the two machines (`TEXT`), as results should describe it (e.g. \"10 GbE, same rack\")")
}

// placement is where a run puts targets and the load generator.
type placement struct {
	target, loadgen matrix.EngineSpec
	machines        *runner.Machines // nil: one engine
	reserve         int              // of the one engine
}

// placement resolves the flags against the matrix: a flag names one of its
// engines or gives an engine by URL or context; unset, the matrix's
// placement holds; with neither, the environment's engine runs both.
func (e *engineFlags) placement(m *matrix.Matrix) (placement, error) {
	var p placement
	if m.Placement != nil {
		p.target, p.loadgen = m.Engines[m.Placement.Target], m.Engines[m.Placement.Loadgen]
	}
	pick := func(flagName, value, role string, into *matrix.EngineSpec) error {
		if value == "" {
			return nil
		}
		if spec, ok := m.Engines[value]; ok {
			*into = spec
			return nil
		}
		if err := matrix.CheckEngine(value); err != nil {
			return usageErr("--%s: %v", flagName, err)
		}
		name := value
		if engine.IsURL(value) {
			name = role
		}
		*into = matrix.EngineSpec{Name: name, Host: value, Address: matrix.EngineHost(value)}
		return nil
	}
	if err := pick("target-engine", e.target, "target", &p.target); err != nil {
		return p, err
	}
	if err := pick("loadgen-engine", e.loadgen, "loadgen", &p.loadgen); err != nil {
		return p, err
	}
	switch {
	case p.target.Host == "" && p.loadgen.Host == "":
		return p, nil // the environment's engine, as always
	case p.target.Host == "":
		p.target = matrix.EngineSpec{Name: "default", Host: "default"}
	case p.loadgen.Host == "":
		p.loadgen = matrix.EngineSpec{Name: "default", Host: "default"}
	}
	if e.address != "" {
		p.target.Address = e.address
	}
	if p.target.Host == p.loadgen.Host {
		p.reserve = p.target.Reserve
		return p, nil
	}
	if p.target.Name == p.loadgen.Name {
		p.target.Name, p.loadgen.Name = "target", "loadgen"
	}
	if p.target.Address == "" {
		return p, usageErr("the targets' engine %s (%s) is not the load generator's: say where the load generator reaches its machine with --target-address or engines.%s.address",
			p.target.Name, p.target.Host, p.target.Name)
	}
	link := e.link
	if link == "" && m.Placement != nil {
		link = m.Placement.Link
	}
	p.machines = &runner.Machines{Target: p.target, Loadgen: p.loadgen, Link: link}
	return p, nil
}

// connect dials the placement's engines: the targets' and, on two
// machines, the load generator's (nil otherwise).
func (p placement) connect(ctx context.Context) (tgt, lg *engine.Engine, err error) {
	if p.target.Host == "" {
		tgt, err = engine.Connect(ctx)
		return tgt, nil, err
	}
	if tgt, err = engine.Dial(ctx, p.target.Name, p.target.Host); err != nil {
		return nil, nil, err
	}
	if p.machines == nil {
		return tgt, nil, nil
	}
	if lg, err = engine.Dial(ctx, p.loadgen.Name, p.loadgen.Host); err != nil {
		tgt.Close()
		return nil, nil, err
	}
	// "default" is recorded as what it stands for (DOCKER_HOST, or the socket).
	p.machines.Target.Host, p.machines.Loadgen.Host = tgt.Host(), lg.Host()
	return tgt, lg, nil
}

// copier brings an image from one of two engines to the other when the
// other has it and the receiving one does not: how stand-ins built on one
// machine reach the other without a registry.
func copier(tgt, lg *engine.Engine, log io.Writer) func(ctx context.Context, ref string, toLoadgen bool) (bool, error) {
	if lg == nil {
		return nil
	}
	return func(ctx context.Context, ref string, toLoadgen bool) (bool, error) {
		src, dst := lg, tgt
		if toLoadgen {
			src, dst = tgt, lg
		}
		if _, _, have, err := dst.ImageLabels(ctx, ref); err != nil || have {
			return false, err
		}
		if _, _, has, err := src.ImageLabels(ctx, ref); err != nil || !has {
			return false, err
		}
		fmt.Fprintf(log, "copying image %s from engine %s to engine %s\n", ref, src.Name, dst.Name)
		if err := dst.CopyImage(ctx, src, ref); err != nil {
			return false, err
		}
		return true, nil
	}
}
