package runner

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
)

// place is where one replica of a service listens.
type place struct {
	alias string // <service>-<replica>: its container's name on a bridge network
	host  string // how the load generator and the other services reach it
	port  int
}

func (p place) addr() string { return net.JoinHostPort(p.host, strconv.Itoa(p.port)) }

// fromLoadgen is where the load generator reaches p: where the services
// reach it, or, with two engines, the targets' machine's address and p's
// port (every replica there is on that machine's host network).
func (st *stage) fromLoadgen(p place) string {
	if st.target.address != "" {
		return net.JoinHostPort(st.target.address, strconv.Itoa(p.port))
	}
	return p.addr()
}

// layout places every replica of t's services. On a bridge network each
// container has its own address, so every replica of a service listens on
// the service's port under its own name. In shared and host modes all of
// them share one network namespace and reach each other on 127.0.0.1: the
// entry keeps the target's port and each other replica takes the next free
// port from its service's, in start order (a pool on 9000 listens on 9000,
// 9001, …).
func layout(t matrix.Target, mode matrix.Network) map[string][]place {
	out := map[string][]place{}
	taken := map[int]bool{t.Port: true}
	for _, svc := range t.Services {
		for i := 1; i <= svc.Replicas; i++ {
			p := place{alias: fmt.Sprintf("%s-%d", svc.Name, i), host: "127.0.0.1", port: svc.Port}
			switch {
			case svc.Name == t.Entry:
				p.port = t.Port
			case mode == matrix.NetworkBridge:
			default:
				for taken[p.port] {
					p.port++
				}
				taken[p.port] = true
			}
			if mode == matrix.NetworkBridge {
				p.host = p.alias
			}
			out[svc.Name] = append(out[svc.Name], p)
		}
	}
	return out
}

// HarnessEnv are the environment keys the harness sets on every target
// container; a matrix cannot override them.
var HarnessEnv = []string{"CPUS", "PORT", "<SERVICE>_ADDRS", "TLS_CERT_FILE", "TLS_KEY_FILE"}

// env is the environment of replica p of service svc of t in cell c: the
// target's, the service's and the variant's settings (later ones win), then
// the keys the harness sets, which nothing overrides: CPUS (the cell's
// cores, or the service's own), PORT (where p
// listens), TLS_CERT_FILE and TLS_KEY_FILE in a cell over TLS, and, for every service, <SERVICE>_ADDRS, the host:port of each of
// its replicas.
func env(t matrix.Target, svc matrix.Service, c matrix.Cell, p place, lay map[string][]place) []string {
	vars := map[string]string{}
	maps.Copy(vars, t.Env)
	maps.Copy(vars, svc.Env)
	maps.Copy(vars, t.Variant(c.Variant).Env)
	vars["CPUS"] = strconv.Itoa(c.CPUs)
	if svc.CPUs > 0 { // a service with cores of its own is told its own count
		vars["CPUS"] = strconv.Itoa(svc.CPUs)
	}
	if cellid.TLS(c.Protocol) { // the run's certificate, copied into the container
		vars["TLS_CERT_FILE"], vars["TLS_KEY_FILE"] = certPath, keyPath
	}
	if p.port > 0 {
		vars["PORT"] = strconv.Itoa(p.port)
	}
	for _, s := range t.Services {
		var addrs []string
		for _, q := range lay[s.Name] {
			if q.port > 0 {
				addrs = append(addrs, q.addr())
			}
		}
		if len(addrs) > 0 {
			vars[matrix.AddrsVar(s.Name)] = strings.Join(addrs, ",")
		}
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}
