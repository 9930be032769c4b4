// Command server answers the harness's scenarios with Go's net/http, the
// way a small production service would: plaintext and json; json
// gzip-compressed when the request accepts gzip (compression); the files
// under /srv/static (static-*); and /compute.
//
// Given TLS_CERT_FILE and TLS_KEY_FILE it serves HTTPS, where ALPN offers
// HTTP/2 and HTTP/1.1 (net/http's default); without them it serves
// cleartext HTTP/1.1 and HTTP/2 with prior knowledge (h2c), both on one
// port, through http.Server's Protocols.
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// staticDir holds the files of the static scenarios, written by the
// Dockerfile.
const staticDir = "/srv/static"

type message struct {
	Message string `json:"message"`
}

type result struct {
	Result int64 `json:"result"`
}

// gzipWriters are reused across requests: a gzip.Writer holds hundreds of
// KB of compressor state.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// writeJSON writes v as JSON, gzip-compressed when r accepts gzip.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	if !acceptsGzip(r) {
		json.NewEncoder(w).Encode(v)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Vary", "Accept-Encoding")
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(w)
	json.NewEncoder(zw).Encode(v)
	zw.Close()
}

// acceptsGzip says whether r's Accept-Encoding lists gzip with a nonzero
// weight.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(coding, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
			w, err := strconv.ParseFloat(q, 64)
			return !ok || err == nil && w > 0
		}
	}
	return false
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
		writeJSON(w, r, message{Message: "Hello, World!"})
	})
	files := http.StripPrefix("/static/", http.FileServer(http.Dir(staticDir)))
	mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "go-nethttp")
		w.Header().Set("Content-Type", "application/octet-stream") // FileServer keeps a type set before it
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /compute", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "go-nethttp")
		a, errA := strconv.ParseInt(r.URL.Query().Get("a"), 10, 64)
		b, errB := strconv.ParseInt(r.URL.Query().Get("b"), 10, 64)
		if errA != nil || errB != nil {
			http.Error(w, "a and b must be integers", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(result{Result: a*b + a - b})
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
