// Package certs makes the throwaway certificates of one run's TLS cells: a
// certificate authority that exists only for the run, and one server
// certificate it signs, whose names cover every host name and address the
// load generator and the probe reach a target at. The generator and the
// probe verify the chain against that authority; nothing skips the check.
// Keys live in memory and in the files handed to the target's containers,
// never in results.
package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// Validity is how long the certificates are valid from when they are
// made (their NotBefore is an hour earlier, for clocks a little behind):
// longer than any run.
const Validity = 7 * 24 * time.Hour

// Set is one run's authority and server certificate, PEM-encoded.
type Set struct {
	CA      []byte // the authority's certificate: what verifiers trust
	Cert    []byte // the server's certificate, then the authority's (a full chain)
	Key     []byte // the server's private key, PKCS #8
	Subject string // the server certificate's subject, as messages name it
	Names   []string
}

// New makes an authority and a server certificate for names (host names
// and IP addresses, duplicates dropped) at now. Both keys are ECDSA P-256;
// the server certificate is for server authentication only.
func New(label string, names []string, now time.Time) (*Set, error) {
	if len(names) == 0 {
		return nil, errors.New("certs: no names for the server certificate")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"webbench"}, CommonName: "webbench throwaway CA " + label},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("certs: authority: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"webbench"}, CommonName: "webbench target " + label},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	seen := map[string]bool{}
	var kept []string
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		kept = append(kept, n)
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("certs: server certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	chain := append(pemBlock("CERTIFICATE", der), pemBlock("CERTIFICATE", caDER)...)
	return &Set{CA: pemBlock("CERTIFICATE", caDER), Cert: chain, Key: pemBlock("PRIVATE KEY", keyDER),
		Subject: tmpl.Subject.String(), Names: kept}, nil
}

// Covers says whether the server certificate names host.
func (s *Set) Covers(host string) bool { return slices.Contains(s.Names, host) }

func pemBlock(typ string, der []byte) []byte {
	var b bytes.Buffer
	pem.Encode(&b, &pem.Block{Type: typ, Bytes: der})
	return b.Bytes()
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}
