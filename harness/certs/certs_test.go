package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, b []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for {
		var p *pem.Block
		p, b = pem.Decode(b)
		if p == nil {
			return out
		}
		c, err := x509.ParseCertificate(p.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

// The server certificate names every host and address asked (IPs as IP
// SANs, names as DNS SANs), chains to the run's authority, is for server
// authentication with an ECDSA P-256 key, and is valid now and for the
// run; the authority signs certificates and nothing below it can.
func TestNew(t *testing.T) {
	now := time.Now()
	s, err := New("r1", []string{"nginx-1", "127.0.0.1", "localhost", "10.9.0.2", "nginx-1", "::1"}, now)
	if err != nil {
		t.Fatal(err)
	}
	chain := parse(t, s.Cert)
	if len(chain) != 2 {
		t.Fatalf("chain of %d certificates, want leaf and authority", len(chain))
	}
	leaf, ca := chain[0], parse(t, s.CA)[0]
	if !slices.Equal(leaf.DNSNames, []string{"nginx-1", "localhost"}) {
		t.Errorf("DNS SANs %q", leaf.DNSNames)
	}
	var ips []string
	for _, ip := range leaf.IPAddresses {
		ips = append(ips, ip.String())
	}
	if !slices.Equal(ips, []string{"127.0.0.1", "10.9.0.2", "::1"}) {
		t.Errorf("IP SANs %q", ips)
	}
	if !s.Covers("10.9.0.2") || s.Covers("example.com") {
		t.Errorf("Covers wrong: names %q", s.Names)
	}
	if !ca.IsCA || !ca.MaxPathLenZero || ca.KeyUsage&x509.KeyUsageCertSign == 0 || leaf.IsCA {
		t.Errorf("authority IsCA=%v pathlen0=%v usage=%v; leaf IsCA=%v", ca.IsCA, ca.MaxPathLenZero, ca.KeyUsage, leaf.IsCA)
	}
	if leaf.KeyUsage != x509.KeyUsageDigitalSignature || !slices.Equal(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Errorf("leaf usage %v %v", leaf.KeyUsage, leaf.ExtKeyUsage)
	}
	if pk, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || pk.Curve != elliptic.P256() {
		t.Errorf("leaf key %T", leaf.PublicKey)
	}
	if now.Before(leaf.NotBefore) || leaf.NotAfter.Before(now.Add(24*time.Hour)) {
		t.Errorf("valid %s…%s", leaf.NotBefore, leaf.NotAfter)
	}
	if !strings.Contains(s.Subject, "webbench target r1") {
		t.Errorf("subject %q", s.Subject)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, host := range []string{"nginx-1", "10.9.0.2"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host, CurrentTime: now}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "other", CurrentTime: now}); err == nil {
		t.Error("verified for a name it does not carry")
	}
	other, _ := New("r2", []string{"nginx-1"}, now)
	opool := x509.NewCertPool()
	opool.AppendCertsFromPEM(other.CA)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: opool, DNSName: "nginx-1", CurrentTime: now}); err == nil {
		t.Error("verified against another run's authority")
	}
}

// A TLS server given the files serves a handshake that a client trusting
// only the authority completes.
func TestHandshake(t *testing.T) {
	s, err := New("r1", []string{"127.0.0.1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(s.Cert, s.Key)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CA)
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := New("r1", nil, time.Now()); err == nil {
		t.Error("no names: want an error")
	}
}
