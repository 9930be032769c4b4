// Command server answers the harness's plaintext and json scenarios with
// Go's net/http, the way a small production service would.
//
// Given TLS_CERT_FILE and TLS_KEY_FILE it serves HTTPS, where ALPN offers
// HTTP/2 and HTTP/1.1 (net/http's default); without them it serves
// cleartext HTTP/1.1 and HTTP/2 with prior knowledge (h2c), both on one
// port, through http.Server's Protocols.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime"
)

type message struct {
	Message string `json:"message"`
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "go-nethttp")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Hello, World!"))
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "go-nethttp")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(message{Message: "Hello, World!"})
	})
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	s := &http.Server{Addr: ":" + port, Handler: mux, Protocols: new(http.Protocols)}
	s.Protocols.SetHTTP1(true)
	cert, key := os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE")
	if cert != "" {
		s.Protocols.SetHTTP2(true)
		log.Printf("listening on :%s (TLS: HTTP/1.1, HTTP/2) with GOMAXPROCS=%d", port, runtime.GOMAXPROCS(0))
		log.Fatal(s.ListenAndServeTLS(cert, key))
	}
	s.Protocols.SetUnencryptedHTTP2(true)
	log.Printf("listening on :%s (HTTP/1.1, h2c) with GOMAXPROCS=%d", port, runtime.GOMAXPROCS(0))
	log.Fatal(s.ListenAndServe())
}
