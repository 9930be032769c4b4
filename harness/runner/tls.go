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
// when a cell to measure speaks TLS (of targets, the matrix's); the certificate names every host the
// load generator reaches a target or the ceiling's server at.
func (st *stage) makeCerts(cells []matrix.Cell, targets []matrix.Target) error {
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
	if st.target.address != "" {
		names = append(names, st.target.address)
	}
	for _, t := range targets {
		if tlsTargets[t.Name] {
			host, _, err := net.SplitHostPort(st.fromLoadgen(layout(t, st.network.mode)[t.Entry][0]))
			if err != nil {
				return err
			}
			names = append(names, host)
		}
	}
	set, err := certs.New(st.id, names, time.Now())
	if err != nil {
		return fmt.Errorf("the run's certificates: %w", err)
	}
	st.certs = set
	return nil
}

// caFiles is the authority for the load generator's container; none when
// no cell speaks TLS.
func (st *stage) caFiles() ([]engine.File, []string) {
	if st.certs == nil {
		return nil, nil
	}
	return []engine.File{{Path: caPath, Data: st.certs.CA}}, []string{"SSL_CERT_FILE=" + caPath}
}

// serverFiles are the certificate and key of a container serving protocol;
// none for a cleartext one.
func (st *stage) serverFiles(protocol string) []engine.File {
	if st.certs == nil || !cellid.TLS(protocol) {
		return nil
	}
	return []engine.File{{Path: certPath, Data: st.certs.Cert}, {Path: keyPath, Data: st.certs.Key}}
}

// scheme is the URL scheme of protocol.
func scheme(protocol string) string {
	if cellid.TLS(protocol) {
		return "https"
	}
	return "http"
}
