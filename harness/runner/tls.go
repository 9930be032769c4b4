package runner

import (
	"fmt"
	"net"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/certs"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
)

// Where a run's certificates go in the containers: the authority in the
// load generator's (SSL_CERT_FILE points Go's verifiers, bombardier's
// and openloop's, at it, so that nothing else is trusted), the server's
// certificate and key in every container of a target measured over TLS
// (TLS_CERT_FILE and TLS_KEY_FILE name them).
const (
	tlsDir   = "/webbench-tls"
	caPath   = tlsDir + "/ca.pem"
	certPath = tlsDir + "/cert.pem"
	keyPath  = tlsDir + "/key.pem"
)

// makeCerts makes the run's throwaway authority and server certificate
// when a cell to measure speaks TLS; the certificate names every host the
// load generator reaches a target or the ceiling's server at.
func (r *runner) makeCerts(cells []matrix.Cell) error {
	tlsTargets := map[string]bool{}
	for _, c := range cells {
		if c.Skip == "" && cellid.TLS(c.Protocol) {
			tlsTargets[c.Target] = true
		}
	}
	if len(tlsTargets) == 0 {
		return nil
	}
	names := []string{"localhost", "127.0.0.1", "::1", "ceiling"}
	if r.sides.target.address != "" {
		names = append(names, r.sides.target.address)
	}
	for _, t := range r.opt.Matrix.Targets {
		if tlsTargets[t.Name] {
			host, _, err := net.SplitHostPort(r.fromLoadgen(layout(t, r.network.mode)[t.Entry][0]))
			if err != nil {
				return err
			}
			names = append(names, host)
		}
	}
	set, err := certs.New(r.id, names, time.Now())
	if err != nil {
		return fmt.Errorf("the run's certificates: %w", err)
	}
	r.state.certs = set
	return nil
}

// caFiles is the authority for the load generator's container; none when
// no cell speaks TLS.
func (r *runner) caFiles() ([]engine.File, []string) {
	if r.state.certs == nil {
		return nil, nil
	}
	return []engine.File{{Path: caPath, Data: r.state.certs.CA}}, []string{"SSL_CERT_FILE=" + caPath}
}

// serverFiles are the certificate and key of a container serving protocol;
// none for a cleartext one.
func (r *runner) serverFiles(protocol string) []engine.File {
	if r.state.certs == nil || !cellid.TLS(protocol) {
		return nil
	}
	return []engine.File{{Path: certPath, Data: r.state.certs.Cert}, {Path: keyPath, Data: r.state.certs.Key}}
}

// scheme is the URL scheme of protocol.
func scheme(protocol string) string {
	if cellid.TLS(protocol) {
		return "https"
	}
	return "http"
}
