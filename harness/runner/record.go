package runner

import (
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// The runner is where the matrix's and the load generator's values become
// results.json's own types: results imports neither matrix nor loadgen.

// SettingsOf records m as run, with the selector that picked its cells.
func SettingsOf(m *matrix.Matrix, only string) results.Settings {
	l := m.Load
	ls := results.LoadSettings{Duration: results.Duration(l.Duration), Requests: l.Requests, Warmup: results.Duration(l.Warmup),
		Trials: l.Trials, Timeout: results.Duration(l.Timeout), LoadgenCPUs: l.LoadgenCPUs, ReadyTimeout: results.Duration(l.ReadyTimeout),
		Aggregate: results.Aggregate(l.Aggregate), MaxErrorRate: l.MaxErrorRate}
	s := results.Settings{File: filepath.Base(m.File), Path: m.File, Profile: m.Profile, Profiles: m.ProfilesFile, Only: only, Set: m.Set, Control: strings.Join(m.Control, ","),
		Load: ls, CPUs: m.CPUs, Connections: m.Connections, KeepAlive: m.KeepAlive, Rate: m.Rate, Generators: m.Generators, Pinning: m.Pinning, Protocols: m.Protocols, Requests: m.Requests, Loadgens: m.Loadgens, Axes: m.Axes, Crosscheck: m.Crosscheck, Images: m.Images,
		RelativeTo: m.RelativeTo}
	for _, o := range m.SLO {
		s.SLO = append(s.SLO, results.Objective{Percentile: o.Percentile, Max: results.Duration(o.Max)})
	}
	s.Targets = make([]results.Target, len(m.Targets))
	for i, t := range m.Targets {
		s.Targets[i] = targetOf(t)
	}
	s.Scenarios = make([]results.Scenario, len(m.Scenarios))
	for i, sc := range m.Scenarios {
		s.Scenarios[i] = scenarioOf(sc)
	}
	return s
}

func targetOf(t matrix.Target) results.Target {
	out := results.Target{Name: t.Name, Entry: t.Entry, Port: t.Port, EnvKeys: t.EnvKeys, Scenarios: t.Scenarios, Limits: limitsOf(t.Limits),
		Services: make([]results.Service, len(t.Services))}
	for i, s := range t.Services {
		out.Services[i] = results.Service{Name: s.Name, Build: s.BuildRel, Replicas: s.Replicas, EnvKeys: s.EnvKeys, Port: s.Port, Images: s.Images}
	}
	if t.Variants != nil {
		out.Variants = make([]results.Variant, len(t.Variants))
		for i, v := range t.Variants {
			out.Variants[i] = results.Variant{Name: v.Name, EnvKeys: v.EnvKeys}
		}
	}
	return out
}

func scenarioOf(sc matrix.Scenario) results.Scenario {
	out := results.Scenario{Name: sc.Name, Path: sc.Path, Pipeline: sc.Pipeline, Expect: results.Expect{Status: sc.Expect.Status,
		ContentType: sc.Expect.ContentType, Body: sc.Expect.Body, JSON: sc.Expect.JSON}}
	if a := sc.Expect.JSONArray; a != nil {
		out.Expect.JSONArray = &results.JSONArray{Length: a.Length, Keys: a.Keys}
	}
	if sc.Params != nil {
		out.Params = make([]results.Param, len(sc.Params))
		for i, p := range sc.Params {
			out.Params[i] = results.Param{Name: p.Name, Values: p.Values}
		}
	}
	return out
}

func limitsOf(l matrix.Limits) results.Limits {
	return results.Limits{MemoryBytes: l.MemoryBytes, Pids: l.Pids, NoFile: l.NoFile}
}

// resultOf records what a load generator measured.
func resultOf(r loadgen.Result) results.Result {
	out := results.Result{RPS: r.RPS, Requests: r.Requests, Errors: r.Errors, ErrorRate: r.ErrorRate, ErrorKinds: r.ErrorKinds,
		StatusCodes: r.StatusCodes, BytesRead: r.BytesRead, Seconds: r.Seconds, LatencyMS: r.LatencyMS}
	if o := r.OpenLoop; o != nil {
		out.OpenLoop = &results.Schedule{Scheduled: o.Scheduled, Sent: o.Sent, Late: o.Late, LateMeanMS: o.LateMeanMS,
			LateMaxMS: o.LateMaxMS, Unsent: o.Unsent, Histogram: o.Histogram}
	}
	return out
}
