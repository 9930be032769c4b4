// Command server is a test target that misbehaves in the way MODE names,
// after answering its first 100 requests (readiness, verification)
// correctly:
//
//	503-under-load  every second request gets a 503
//	memory-hog      every request keeps 8 MiB more, until the memory limit kills it
//	fork-bomb       starts sleeping child processes until the pids limit stops it, then exits
//	stall           stops answering (requests hang)
//	ignore-sigterm  ignores SIGTERM (answers correctly)
//	log-flood       writes its log as fast as it can (answers correctly)
//	slow-start      takes 20 s (or START_DELAY) before it listens (answers correctly)
//	pause           holds every answer due in the first 300 ms of each second
//	                until that 300 ms ends (a stop-the-world pause), from the start
//	foreign-cert    serves TLS with a certificate of an authority of its own
//	                (subject "CN=misbehave foreign"), not the run's that
//	                TLS_CERT_FILE names, from the start
//
// It is never a target of the default matrix: the end-to-end tests use it
// to prove that each fault ends as a failed cell (or a warning) with a
// clear reason, and that nothing is left on the engine.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	mode := os.Getenv("MODE")
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	switch mode {
	case "ignore-sigterm":
		signal.Ignore(syscall.SIGTERM)
	case "slow-start":
		delay := 20 * time.Second
		if d, err := time.ParseDuration(os.Getenv("START_DELAY")); err == nil {
			delay = d
		}
		time.Sleep(delay)
	case "log-flood":
		go func() {
			line := strings.Repeat("flood ", 40) + "\n"
			for {
				os.Stdout.WriteString(line)
			}
		}()
	}
	start := time.Now()
	var served atomic.Int64
	var hog [][]byte
	var mu sync.Mutex
	var forkOnce sync.Once
	http.HandleFunc("/plaintext", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		if in := time.Since(start) % time.Second; mode == "pause" && in < 300*time.Millisecond {
			time.Sleep(300*time.Millisecond - in)
		}
		if n > 100 {
			switch mode {
			case "503-under-load":
				if n%2 == 0 {
					http.Error(w, "overloaded", http.StatusServiceUnavailable)
					return
				}
			case "memory-hog":
				b := make([]byte, 8<<20)
				for i := range b { // touch it: untouched pages cost nothing
					b[i] = byte(i)
				}
				mu.Lock()
				hog = append(hog, b)
				mu.Unlock()
			case "fork-bomb":
				forkOnce.Do(func() { go forkBomb() })
			case "stall":
				select {}
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	fmt.Printf("runtime: %s (misbehave MODE=%s)\n", runtime.Version(), mode)
	if mode == "foreign-cert" {
		s := &http.Server{Addr: ":" + port, TLSConfig: &tls.Config{Certificates: []tls.Certificate{foreign()}}}
		log.Fatal(s.ListenAndServeTLS("", ""))
	}
	log.Fatal(http.ListenAndServe(":"+port, nil))
}

// foreign is a self-signed certificate for every name, of no authority the
// harness knows.
func foreign() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "misbehave foreign"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost", "app", "app-1"}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// forkBomb starts children until the kernel refuses one, as a server that
// forks a worker per job would, and then gives up as such a server does.
func forkBomb() {
	for i := 0; ; i++ {
		if err := exec.Command("sleep", "3600").Start(); err != nil {
			log.Printf("fork-bomb: could not start child %d: %v", i+1, err)
			os.Exit(3)
		}
	}
}
